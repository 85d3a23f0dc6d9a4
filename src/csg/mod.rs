//! Roblox unions (CSG): [`phs`], the collision data (CSGPHS) of a `PartOperation`.
pub mod phs;
