//! Roblox unions (CSG): [`phs`], the collision data (CSGPHS) of a `PartOperation`, and
//! [`mdl`], its union graphics (CSGMDL, CSGK).
pub mod mdl;
pub mod phs;
