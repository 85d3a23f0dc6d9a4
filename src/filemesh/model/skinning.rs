//! Per-vertex skinning ([`Skinning`]), resolved to skeleton bones the first time it is
//! looked at.
//!
//! A 4.00+ file stores each vertex's four bone bytes as indices into the bone list of
//! the subset that holds the vertex. The model's skinning names skeleton bones instead.
//! Reading a file checks that every influence resolves (a bad byte is an error of the
//! read, at the read), but writes the resolved array only when something asks for it:
//! reading a million-vertex file into the model then costs no 16 MB array, and writing
//! it back, or converting it, uses the stored envelopes without resolving them at all.

use std::sync::{Arc, OnceLock};

use serde::Serialize;

use super::VertexSkin;
use crate::filemesh::raw::chunks::SkinningV1;

/// One [`VertexSkin`] per vertex: a `[VertexSkin]` through `Deref`/`DerefMut`.
///
/// Build one from a `Vec<VertexSkin>` (`vec.into()`, or `collect()`); turn it back with
/// [`Skinning::into_vec`]. A mesh read from a file holds the envelopes as stored and
/// resolves them when first read through; changing it (`DerefMut`,
/// [`Skinning::as_mut_vec`]) resolves it first. Either way it reads as the same values:
/// equality, `Debug` and serialisation see the resolved array.
#[derive(Clone)]
pub struct Skinning(Repr);

#[derive(Clone)]
enum Repr {
    Resolved(Vec<VertexSkin>),
    /// The stored skin the values come from (checked to resolve when it was read), and
    /// the values once something has asked for them.
    Stored {
        skin: Arc<SkinningV1>,
        resolved: OnceLock<Vec<VertexSkin>>,
    },
}

impl Skinning {
    /// The skinning `skin`'s envelopes resolve to, which the caller has checked
    /// ([`super::check_skinning`]): resolving then cannot fail.
    pub(crate) fn stored(skin: Arc<SkinningV1>) -> Skinning {
        Skinning(Repr::Stored {
            skin,
            resolved: OnceLock::new(),
        })
    }

    /// The stored skin this skinning is still exactly the resolution of (nothing has
    /// changed it), if it came from one.
    pub(crate) fn source(&self) -> Option<&Arc<SkinningV1>> {
        match &self.0 {
            Repr::Stored { skin, .. } => Some(skin),
            Repr::Resolved(_) => None,
        }
    }

    /// Number of vertices (without resolving).
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Resolved(v) => v.len(),
            Repr::Stored { skin, .. } => skin.envelopes.len(),
        }
    }

    /// True for a skinning of no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values, resolved now if they were not yet.
    pub fn as_slice(&self) -> &[VertexSkin] {
        match &self.0 {
            Repr::Resolved(v) => v,
            Repr::Stored { skin, resolved } => resolved.get_or_init(|| resolve(skin)),
        }
    }

    /// Each vertex's values in order, to `each`, without keeping them: a skinning read
    /// from a file and not yet looked at is resolved as it goes, and stays unresolved
    /// (for one pass over a big mesh, such as building its scene, this costs no array).
    pub fn for_each(&self, mut each: impl FnMut(&VertexSkin)) {
        match &self.0 {
            Repr::Resolved(v) => v.iter().for_each(each),
            Repr::Stored { skin, resolved } => match resolved.get() {
                Some(v) => v.iter().for_each(each),
                None => {
                    // Checked when read: cannot fail (see `resolve`).
                    let _ =
                        super::each_skin(&skin.envelopes, &skin.subsets, skin.bones.len(), |v| {
                            each(&v)
                        });
                }
            },
        }
    }

    /// The values as a vector to change (resolved first; from then on the skinning
    /// no longer counts as the stored one).
    pub fn as_mut_vec(&mut self) -> &mut Vec<VertexSkin> {
        if let Repr::Stored { skin, resolved } = &mut self.0 {
            let v = resolved.take().unwrap_or_else(|| resolve(skin));
            self.0 = Repr::Resolved(v);
        }
        match &mut self.0 {
            Repr::Resolved(v) => v,
            // Made `Resolved` just above.
            Repr::Stored { .. } => unreachable!("skinning resolved above"),
        }
    }

    /// The values as a vector.
    pub fn into_vec(self) -> Vec<VertexSkin> {
        match self.0 {
            Repr::Resolved(v) => v,
            Repr::Stored { skin, resolved } => {
                resolved.into_inner().unwrap_or_else(|| resolve(&skin))
            }
        }
    }

    /// The resolved array, if one was made (for [`super::Mesh::recycle`]).
    pub(crate) fn into_resolved(self) -> Option<Vec<VertexSkin>> {
        match self.0 {
            Repr::Resolved(v) => Some(v),
            Repr::Stored { resolved, .. } => resolved.into_inner(),
        }
    }
}

/// The resolution of a checked stored skin. The check at reading guarantees success; were
/// it ever to fail, every vertex would get no influence rather than a panic.
fn resolve(skin: &SkinningV1) -> Vec<VertexSkin> {
    super::skinning(&skin.envelopes, &skin.subsets, skin.bones.len())
        .unwrap_or_else(|_| vec![VertexSkin::default(); skin.envelopes.len()])
}

impl From<Vec<VertexSkin>> for Skinning {
    fn from(v: Vec<VertexSkin>) -> Skinning {
        Skinning(Repr::Resolved(v))
    }
}

impl From<Skinning> for Vec<VertexSkin> {
    fn from(s: Skinning) -> Vec<VertexSkin> {
        s.into_vec()
    }
}

impl FromIterator<VertexSkin> for Skinning {
    fn from_iter<I: IntoIterator<Item = VertexSkin>>(iter: I) -> Skinning {
        Skinning(Repr::Resolved(iter.into_iter().collect()))
    }
}

impl<'a> IntoIterator for &'a Skinning {
    type Item = &'a VertexSkin;
    type IntoIter = std::slice::Iter<'a, VertexSkin>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl std::ops::Deref for Skinning {
    type Target = [VertexSkin];

    fn deref(&self) -> &[VertexSkin] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for Skinning {
    fn deref_mut(&mut self) -> &mut [VertexSkin] {
        self.as_mut_vec()
    }
}

impl PartialEq for Skinning {
    fn eq(&self, other: &Skinning) -> bool {
        match (self.source(), other.source()) {
            // The same checked envelopes resolve alike.
            (Some(a), Some(b)) if Arc::ptr_eq(a, b) => true,
            _ => self.as_slice() == other.as_slice(),
        }
    }
}

impl PartialEq<[VertexSkin]> for Skinning {
    fn eq(&self, other: &[VertexSkin]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<Vec<VertexSkin>> for Skinning {
    fn eq(&self, other: &Vec<VertexSkin>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Skinning {}

impl std::fmt::Debug for Skinning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl Serialize for Skinning {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}
