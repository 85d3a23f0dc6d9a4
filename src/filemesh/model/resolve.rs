//! Stored envelopes resolved to skeleton bones: each vertex's four bone bytes looked up
//! in the bone list of the subset that holds the vertex ([`each_skin`]), checked without
//! keeping anything ([`check_skinning`]), or kept ([`skinning`]). [`Skinning`] does this
//! the first time a mesh's skinning is looked at.
//!
//! [`Skinning`]: super::Skinning

use super::VertexSkin;
use crate::error::{Error, ErrorKind, Result};
use crate::filemesh::raw::records::{Envelope, Subset};
/// Resolves each envelope's bone bytes through the subset whose vertex range holds the
/// vertex. Zero-weight slots carry no bone (0).
pub(crate) fn skinning(
    envelopes: &[Envelope],
    subsets: &[Subset],
    num_bones: usize,
) -> Result<Vec<VertexSkin>> {
    // Sized once: a million-vertex mesh should not grow its array by doubling.
    let mut out = crate::Spare::vec_for(envelopes.len());
    each_skin(envelopes, subsets, num_bones, |skin| out.push(skin))?;
    Ok(out)
}

/// [`skinning`]'s checks, keeping nothing: the same error for the same file, from a
/// pass that only looks for a bad influence (and resolves the run that holds one, to
/// name it).
pub(crate) fn check_skinning(
    envelopes: &[Envelope],
    subsets: &[Subset],
    num_bones: usize,
) -> Result<()> {
    let mut table = BoneTable::new();
    runs(envelopes.len(), subsets, |range, subset| {
        if BoneTable::all_resolve(envelopes, range.clone(), subset, num_bones) {
            Ok(())
        } else {
            table.resolve(envelopes, range, subset, num_bones, &mut |_| ())
        }
    })
}

/// Each vertex's resolved skin, in order, to `each`; an error for an influence whose
/// bone byte names no bone through its subset.
///
/// A vertex belongs to the first subset whose vertex range holds it. When the subsets'
/// ranges follow one another without overlapping (as every real file's do) they are
/// walked in order; otherwise each vertex's first subset is found first (4 bytes a
/// vertex). Either way a run of vertices of one subset is resolved through a 256-entry
/// table of its bone bytes, so a vertex costs four table reads.
pub(crate) fn each_skin(
    envelopes: &[Envelope],
    subsets: &[Subset],
    num_bones: usize,
    mut each: impl FnMut(VertexSkin),
) -> Result<()> {
    let mut table = BoneTable::new();
    runs(envelopes.len(), subsets, |range, subset| {
        table.resolve(envelopes, range, subset, num_bones, &mut each)
    })
}

/// The runs of `n` vertices that belong to one subset (or to none), in vertex order, to
/// `run`: see [`each_skin`].
fn runs(
    n: usize,
    subsets: &[Subset],
    mut run: impl FnMut(std::ops::Range<usize>, Option<&Subset>) -> Result<()>,
) -> Result<()> {
    let range_of = |s: &Subset| {
        let start = (s.verts_begin as usize).min(n);
        start..start.saturating_add(s.verts_length as usize).min(n)
    };
    let mut end = 0;
    if subsets.iter().all(|s| {
        let r = range_of(s);
        let ok = r.start >= end;
        end = end.max(r.end);
        ok
    }) {
        let mut at = 0;
        for s in subsets {
            let r = range_of(s);
            if r.start > at {
                run(at..r.start, None)?;
            }
            at = at.max(r.end);
            run(r, Some(s))?;
        }
        return run(at..n, None);
    }
    // Overlapping or unordered ranges: the first subset of each vertex (u32::MAX: none),
    // then runs of one owner.
    let mut owner: Vec<u32> = vec![u32::MAX; n];
    for (i, s) in subsets.iter().enumerate() {
        for o in owner.get_mut(range_of(s)).unwrap_or_default() {
            if *o == u32::MAX {
                *o = u32::try_from(i).unwrap_or(u32::MAX);
            }
        }
    }
    let mut start = 0;
    for piece in owner.chunk_by(|a, b| a == b) {
        let first = piece.first().map_or(u32::MAX, |&o| o);
        run(start..start + piece.len(), subsets.get(first as usize))?;
        start += piece.len();
    }
    Ok(())
}

/// The bones a subset's bone bytes name ([`BoneTable::NONE`] for a byte that names
/// none), for [`each_skin`].
struct BoneTable([u32; 256]);

impl BoneTable {
    /// No bone.
    const NONE: u32 = u32::MAX;

    fn new() -> BoneTable {
        BoneTable([Self::NONE; 256])
    }

    /// Whether every influence of the envelopes of `range` (of `subset`, or of none)
    /// names a bone: one pass with no branch per vertex, for [`check_skinning`].
    fn all_resolve(
        envelopes: &[Envelope],
        range: std::ops::Range<usize>,
        subset: Option<&Subset>,
        num_bones: usize,
    ) -> bool {
        let used = subset.map_or(&[][..], |s| &s.bone_indices[..]);
        // Which bone bytes name a bone, as a byte per value.
        let mut names = [0u8; 256];
        for (slot, &g) in names.iter_mut().zip(used) {
            *slot = u8::from(usize::from(g) < num_bones);
        }
        let mut bad = 0u8;
        for e in envelopes.get(range).unwrap_or_default() {
            for (&b, &w) in e.bones.iter().zip(&e.weights) {
                // A weighted influence whose byte names nothing.
                bad |= u8::from(w != 0) & (names.get(usize::from(b)).copied().unwrap_or(0) ^ 1);
            }
        }
        bad == 0
    }

    /// Resolves the envelopes of `range`, which belong to `subset` (or to none).
    fn resolve(
        &mut self,
        envelopes: &[Envelope],
        range: std::ops::Range<usize>,
        subset: Option<&Subset>,
        num_bones: usize,
        each: &mut impl FnMut(VertexSkin),
    ) -> Result<()> {
        if range.is_empty() {
            return Ok(());
        }
        let used = subset.map_or(&[][..], |s| &s.bone_indices[..]);
        for (slot, &g) in self.0.iter_mut().zip(used) {
            if usize::from(g) < num_bones {
                *slot = u32::from(g);
            }
        }
        let first = range.start;
        let mut bad = None;
        for (i, e) in envelopes.get(range).unwrap_or_default().iter().enumerate() {
            let mut skin = VertexSkin::default();
            let mut missing = false;
            for (inf, (&b, &w)) in skin
                .influences
                .iter_mut()
                .zip(e.bones.iter().zip(&e.weights))
            {
                // A u8 always indexes the 256 entries.
                let g = self.0.get(usize::from(b)).copied().unwrap_or(Self::NONE);
                missing |= w != 0 && g == Self::NONE;
                // A zero weight carries no bone; `g` fits in u16 whenever it is a bone.
                inf.bone = if w == 0 { 0 } else { g as u16 };
                inf.weight = w;
            }
            if missing {
                bad = Some((first + i, *e));
                break;
            }
            each(skin);
        }
        for slot in self.0.iter_mut().take(used.len()) {
            *slot = Self::NONE;
        }
        match bad {
            None => Ok(()),
            Some((v, e)) => {
                let (slot, (b, w)) = e
                    .bones
                    .into_iter()
                    .zip(e.weights)
                    .enumerate()
                    .find(|&(_, (b, w))| w != 0 && names_no_bone(used, b, num_bones))
                    .unwrap_or((0, (e.bones[0], e.weights[0])));
                Err(Error::new(
                    "skinning",
                    ErrorKind::Invalid(format!(
                        "vertex {v}: influence {slot} (bone byte {b}, weight {w}) names no bone through its subset"
                    )),
                ))
            }
        }
    }
}

/// Whether bone byte `b` names no bone through a subset's `used` bone indices.
fn names_no_bone(used: &[u16], b: u8, num_bones: usize) -> bool {
    used.get(usize::from(b))
        .is_none_or(|&g| usize::from(g) >= num_bones)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::filemesh::model::{Influence, Skinning};
    use crate::filemesh::raw::chunks::SkinningV1;
    use crate::filemesh::raw::records::Bone;
    use proptest::prelude::*;

    /// The plain reading of the spec: each vertex looks up the first subset whose range
    /// holds it, then each influence's bone byte in that subset.
    fn reference(
        envelopes: &[Envelope],
        subsets: &[Subset],
        num_bones: usize,
    ) -> std::result::Result<Vec<VertexSkin>, String> {
        let mut out = Vec::new();
        for (v, e) in envelopes.iter().enumerate() {
            let s = subsets.iter().find(|s| {
                (s.verts_begin as usize
                    ..(s.verts_begin as usize).saturating_add(s.verts_length as usize))
                    .contains(&v)
            });
            let mut skin = VertexSkin::default();
            for slot in 0..4 {
                let (b, w) = (e.bones[slot], e.weights[slot]);
                if w == 0 {
                    continue;
                }
                match s.and_then(|s| s.bone_indices.get(usize::from(b))) {
                    Some(&g) if usize::from(g) < num_bones => {
                        skin.influences[slot] = Influence { bone: g, weight: w }
                    }
                    _ => {
                        return Err(format!(
                            "vertex {v}: influence {slot} (bone byte {b}, weight {w}) names no bone through its subset"
                        ))
                    }
                }
            }
            out.push(skin);
        }
        Ok(out)
    }

    fn subset() -> impl Strategy<Value = Subset> {
        (0u32..40, 0u32..30, prop::array::uniform26(0u16..12)).prop_map(|(b, l, bones)| Subset {
            faces_begin: 0,
            faces_length: 0,
            verts_begin: b,
            verts_length: l,
            num_bone_indices: 26,
            bone_indices: bones,
        })
    }

    fn envelope() -> impl Strategy<Value = Envelope> {
        // Bone bytes mostly inside a subset's 26 entries, sometimes beyond; weights
        // often 0.
        (
            prop::array::uniform4(prop_oneof![8 => 0u8..26, 1 => any::<u8>()]),
            prop::array::uniform4(prop_oneof![1 => Just(0u8), 3 => any::<u8>()]),
        )
            .prop_map(|(bones, weights)| Envelope { bones, weights })
    }

    proptest! {
        /// Ordered, gapped, overlapping and unordered subset ranges, bone bytes naming
        /// no bone, and bones beyond the skeleton: the same skins, or the same error.
        #[test]
        fn each_skin_matches_the_plain_reading(
            envelopes in prop::collection::vec(envelope(), 0..60),
            mut subsets in prop::collection::vec(subset(), 0..5),
            sorted in any::<bool>(),
            num_bones in 0usize..14,
        ) {
            if sorted {
                // The layout of real files: ranges one after another.
                let mut at = 0;
                for s in &mut subsets {
                    s.verts_begin = at;
                    at += s.verts_length;
                }
            }
            let mut got = Vec::new();
            let got = each_skin(&envelopes, &subsets, num_bones, |s| got.push(s))
                .map(|()| got)
                .map_err(|e| match e.kind() {
                    ErrorKind::Invalid(m) => m.clone(),
                    other => format!("{other:?}"),
                });
            let message = |e: Error| match e.kind() {
                ErrorKind::Invalid(m) => m.clone(),
                other => format!("{other:?}"),
            };
            // The check alone gives the same verdict and the same error.
            let checked = check_skinning(&envelopes, &subsets, num_bones).map_err(message);
            prop_assert_eq!(&checked, &got.as_ref().map(|_| ()).map_err(Clone::clone));
            // A checked stored skin reads as what resolving it gives.
            if let Ok(resolved) = &got {
                let stored = Skinning::stored(std::sync::Arc::new(SkinningV1 {
                    envelopes: envelopes.clone().into(),
                    bones: vec![Bone::default(); num_bones].into(),
                    bone_names: Default::default(),
                    subsets: subsets.clone().into(),
                }));
                prop_assert_eq!(stored.len(), resolved.len());
                // One pass without resolving, then the resolved array, then a pass
                // over it: the same values each time.
                let mut seen = Vec::new();
                stored.for_each(|v| seen.push(*v));
                prop_assert_eq!(&seen, resolved);
                prop_assert_eq!(&stored, resolved);
                seen.clear();
                stored.for_each(|v| seen.push(*v));
                prop_assert_eq!(&seen, resolved);
                prop_assert_eq!(stored.clone().into_vec(), resolved.clone());
                let mut changed = stored.clone();
                if let Some(first) = changed.first_mut() {
                    first.influences[0].weight ^= 1;
                    prop_assert!(changed != stored);
                    prop_assert!(changed.source().is_none());
                }
            }
            prop_assert_eq!(got, reference(&envelopes, &subsets, num_bones));
        }
    }
}
