//! The loss report of a conversion, found by doing it: the target is read back and
//! compared with the mesh it was written from.
//!
//! Two comparisons, each part by part:
//! - **values**: vertices (bit for bit, per attribute), faces, LODs, skeleton, skinning,
//!   FACS, HSR flags, the `w` of 1.x texture coordinates;
//! - **layout**, when the mesh was read from a binary file of version S: every part that
//!   writing S would put in the file (vertex size, header bytes, padding, trailing bytes,
//!   LOD offsets, subsets and envelopes, the FACS block, HSR bytes, the core mesh
//!   encoding, the chunks) is worked out from both meshes; where they differ, the
//!   conversion would not come back to the same file, and that is reported.
//!
//! A part whose values are already reported lost is not reported again as layout.
//!
//! [`back`] is the target read back as the comparison sees it; [`in_place`](mod@in_place) reads a
//! binary target's arrays where they lie; [`text_back`] works out a text target.

mod back;
mod in_place;
mod printing;
mod text_back;

use crate::error::Result;
use crate::filemesh::model::convert::core_mesh::{CorePlan, DracoMemo};
use crate::filemesh::model::convert::plan::WriteOptions;
use crate::filemesh::model::stored::{ChunkKind, StoredFacs};
use crate::filemesh::model::{Mesh, SameBits};
use crate::filemesh::raw::chunks::{chunk_type_name, Chunk, SkinningV1};
use crate::filemesh::raw::facs::Facs;
use crate::filemesh::raw::{FileMesh, Version};
use crate::loss::{Level, Loss, LossKind};
use back::{Back, VertexDiff};
use in_place::{in_place, Arrays};
use text_back::TextBack;

/// The target read back into a whole model: a binary body writes and reads back byte
/// for byte (the raw layer's round trip), so its model is taken from it directly; a text
/// body is written and parsed, as its numbers are rounded on the way.
pub(crate) fn read_back(file: &FileMesh) -> Result<Mesh> {
    if file.version.is_text() {
        Mesh::from_file(&FileMesh::read(&file.write()?)?)
    } else {
        Mesh::from_file(file)
    }
}

/// Appends to `out` what converting `before` into `file` (its `target` version) lost:
/// `compare` with `file` read back, without copying its big arrays where it can.
///
/// The vertices, faces and envelopes of a binary target are compared where they lie in
/// `file` (a Draco core mesh is decoded); only the small parts (skeleton, LODs, FACS,
/// HSR flags, what the file stored) are read into a model. For a chunked source, the
/// chunks writing it again would give are planned from those arrays too, the COREMESH
/// as a choice ([`CorePlan`]) rather than a copy, the Draco work shared between the
/// source's plan and the target's ([`DracoMemo`]). A text target is worked out from
/// `before` ([`compare_text`]); a target whose stored skin would be laid out anew is
/// read back whole. `file` is left as it was (unless this fails).
///
/// `warm` holds Draco work done before the target was built ([`Mesh::warm_draco`]).
pub(crate) fn compare_file(
    before: &Mesh,
    file: &mut FileMesh,
    target: Version,
    out: &mut Vec<Loss>,
    warm: &DracoMemo<'_>,
) -> Result<()> {
    if target.is_text() {
        return compare_text(before, target, out, warm);
    }
    let mut arrays = Arrays::take(file);
    let done = in_place(before, file, &mut arrays, warm, |view| {
        compare_with(before, view, target, out, warm)
    });
    arrays.put_back(file);
    if done? {
        Ok(())
    } else {
        compare_with(before, &read_back(file)?, target, out, warm)
    }
}

/// `compare` of `before` with the text file `before` writes as `target`, worked out
/// number by number without writing it ([`TextBack`]): the text is never held.
pub(crate) fn compare_text(
    before: &Mesh,
    target: Version,
    out: &mut Vec<Loss>,
    warm: &DracoMemo<'_>,
) -> Result<()> {
    compare_with(before, &TextBack::new(before, target)?, target, out, warm)
}

/// Appends to `out` what converting `before` to `target` lost, `after` being the target
/// read back.
#[cfg(test)]
pub(crate) fn compare(
    before: &Mesh,
    after: &Mesh,
    target: Version,
    out: &mut Vec<Loss>,
) -> Result<()> {
    compare_with(before, after, target, out, &DracoMemo::default())
}

/// `compare` reusing the Draco work in `warm`.
fn compare_with(
    before: &Mesh,
    after: &impl Back,
    target: Version,
    out: &mut Vec<Loss>,
    warm: &DracoMemo<'_>,
) -> Result<()> {
    let mut loss = |l: Loss| out.push(l);
    let faces_kept = geometry(before, after, target, &mut loss);
    let lod_info = |m: &Mesh| (m.lods.lod_type, m.lods.num_high_quality_lods);
    let a = after.model();
    if lod_info(before) != lod_info(a) {
        // With one level of detail they describe nothing the target could hold: how
        // the source's header was filled in, not data.
        let level = if before.lod0_faces().len() == before.faces.len() {
            Level::Relaid
        } else {
            Level::Lost
        };
        loss(
            Loss::new(
                LossKind::LodInfo,
                format!(
                    "lodType {} and numHighQualityLODs {} ({target} has neither)",
                    before.lods.lod_type, before.lods.num_high_quality_lods
                ),
            )
            .at(level),
        );
    }
    let skeleton_kept = before.skeleton.same_bits(&a.skeleton);
    if !skeleton_kept {
        let detail = if a.skeleton.is_empty() {
            format!("{} bones ({target} has no skeleton)", before.skeleton.len())
        } else {
            format!("{} bones change", before.skeleton.len())
        };
        loss(Loss::counted(
            LossKind::Skeleton,
            before.skeleton.len(),
            detail,
        ));
    }
    let skinning_kept = after.same_skinning(before);
    if !skinning_kept {
        let n = before.skinning.as_ref().map_or(0, |s| s.len());
        loss(Loss::counted(
            LossKind::Skinning,
            n,
            format!("skinning of {n} vertices"),
        ));
    }
    let facs_kept = before.facs.same_bits(&a.facs);
    if !facs_kept {
        let (count, detail) = match (&before.facs, &a.facs) {
            (Some(f), None) => (f.poses.len(), format!("FACS data ({target} has none)")),
            (Some(b), Some(a)) => {
                let changed = b
                    .poses
                    .iter()
                    .flatten()
                    .zip(a.poses.iter().flatten())
                    .map(|(x, y)| {
                        x.position
                            .iter()
                            .chain(&x.rotation)
                            .zip(y.position.iter().chain(&y.rotation))
                            .filter(|(p, q)| !p.same_bits(q))
                            .count()
                    })
                    .sum::<usize>();
                (
                    changed,
                    format!("{changed} FACS pose values change when quantized"),
                )
            }
            _ => (0, "FACS data changes".to_string()),
        };
        loss(Loss::counted(LossKind::Facs, count, detail));
    }
    let hsr_kept = before.hsr_always_visible == a.hsr_always_visible;
    if !hsr_kept {
        let n = before.hsr_always_visible.as_ref().map_or(0, Vec::len);
        loss(Loss::counted(
            LossKind::Hsr,
            n,
            format!("{n} HSR always-visible flags ({target} has none)"),
        ));
    }
    let Some(source) = before.stored.version else {
        return Ok(());
    };
    if source.is_text() {
        // How a text file prints its numbers is not data, but writing it again from the
        // target may print it otherwise: re-laid.
        let back = format!("writing {source} again from {target}");
        if let Some(l) = printing::text_printing(before, after.model(), source, &back) {
            loss(l);
        }
        return Ok(());
    }
    let kept = Kept {
        faces: faces_kept,
        skin: skeleton_kept && skinning_kept,
        facs: facs_kept,
        hsr: hsr_kept,
    };
    layout(before, after, source, target, &kept, &mut loss, warm)
}

/// Which values survived, so their layout is worth comparing.
struct Kept {
    faces: bool,
    skin: bool,
    facs: bool,
    hsr: bool,
}

/// Compares vertices, faces and text `w`; true when the faces (and vertex indexing) are
/// unchanged.
fn geometry(
    before: &Mesh,
    after: &impl Back,
    target: Version,
    loss: &mut impl FnMut(Loss),
) -> bool {
    let lod0 = before.lod0_faces();
    let mut kept = true;
    // Pairs of (vertex before, vertex after) that should hold the same values.
    let corners = lod0.iter().flatten().map(|&i| i as usize).enumerate();
    if target.is_text() {
        let in_order =
            before.vertices.len() == lod0.len() * 3 && corners.clone().all(|(k, i)| k == i);
        if !in_order {
            kept = false;
            loss(Loss::counted(
                LossKind::VertexSharing,
                before.vertices.len(),
                format!(
                    "{} vertices become {} face corners ({target} has one vertex per corner)",
                    before.vertices.len(),
                    lod0.len() * 3
                ),
            ));
        }
    } else {
        if before.vertices.len() != after.vertex_count() {
            kept = false;
            loss(Loss::counted(
                LossKind::Values,
                before.vertices.len(),
                format!(
                    "{} vertices become {}",
                    before.vertices.len(),
                    after.vertex_count()
                ),
            ));
        }
    }
    let expected: &[[u32; 3]] = if target.has_lods() {
        &before.faces
    } else {
        lod0
    };
    let dropped = before.faces.len() - expected.len();
    if dropped > 0 {
        kept = false;
        loss(Loss::counted(
            LossKind::Lods,
            dropped,
            format!("{dropped} faces of LODs other than LOD 0 ({target} has no LODs)"),
        ));
    }
    if !target.is_text() && after.faces() != expected {
        kept = false;
        loss(Loss::counted(
            LossKind::Values,
            expected.len(),
            "the faces change",
        ));
    }
    if target.is_text() {
        vertices(before, after, corners.map(|(k, i)| (i, k)), target, loss);
    } else {
        let n = before.vertices.len().min(after.vertex_count());
        vertices(before, after, (0..n).map(|i| (i, i)), target, loss);
    }
    kept
}

/// Counts, per attribute, the values that differ between paired vertices.
fn vertices(
    before: &Mesh,
    after: &impl Back,
    pairs: impl Iterator<Item = (usize, usize)>,
    target: Version,
    loss: &mut impl FnMut(Loss),
) {
    // Per attribute: vertices whose value changed; and numbers that changed, finite or
    // not.
    let (mut pos, mut nrm, mut uv, mut tan, mut col, mut ws) = (0, 0, 0, 0, 0, 0);
    let (mut non_finite, mut numbers) = (0usize, 0usize);
    for (i, j) in pairs {
        let d = after.diff(before, i, j);
        pos += usize::from(d.changed & VertexDiff::POSITION != 0);
        nrm += usize::from(d.changed & VertexDiff::NORMAL != 0);
        uv += usize::from(d.changed & VertexDiff::UV != 0);
        ws += usize::from(d.changed & VertexDiff::W != 0);
        tan += usize::from(d.changed & VertexDiff::TANGENT != 0);
        col += usize::from(d.changed & VertexDiff::COLOR != 0);
        numbers += usize::from(d.numbers);
        non_finite += usize::from(d.non_finite);
    }
    if col > 0 {
        loss(Loss::counted(
            LossKind::Colors,
            col,
            format!("colours of {col} vertices ({target} has no vertex colours)"),
        ));
    }
    if tan > 0 {
        loss(Loss::counted(
            LossKind::Tangents,
            tan,
            format!("tangents of {tan} vertices ({target} has no tangents)"),
        ));
    }
    if ws > 0 {
        loss(Loss::counted(
            LossKind::TextW,
            ws,
            format!("the w of {ws} texture coordinates (only 1.x holds it)"),
        ));
    }
    if non_finite > 0 {
        let how = if target.is_text() {
            "written as 0: text cannot hold them"
        } else {
            "replaced by 0 before Draco quantization"
        };
        loss(Loss::counted(
            LossKind::NonFinite,
            non_finite,
            format!("{non_finite} numbers that are not finite (NaN or infinite), {how}"),
        ));
    }
    if numbers == 0 {
        return;
    }
    if target.is_text() {
        loss(Loss::counted(
            LossKind::TextPrecision,
            numbers,
            format!("{numbers} numbers rounded to the text's significant digits"),
        ));
    } else if target == Version::V7_00 && pos == 0 && uv == 0 {
        loss(Loss::counted(
            LossKind::NormalPrecision,
            nrm,
            format!("normals of {nrm} vertices quantized to 11 bits by Draco"),
        ));
    } else {
        loss(Loss::counted(
            LossKind::Values,
            numbers,
            format!(
                "{numbers} numbers change (positions of {pos}, normals of {nrm}, UVs of {uv} vertices)"
            ),
        ));
    }
}

/// Compares, part by part, what writing `source` would give from each mesh.
fn layout(
    before: &Mesh,
    after: &impl Back,
    source: Version,
    target: Version,
    kept: &Kept,
    loss: &mut impl FnMut(Loss),
    warm: &DracoMemo<'_>,
) -> Result<()> {
    let back = format!("writing {source} again from {target}");
    if !source.has_skinning() && !source.is_chunked() {
        let (b, a) = (before.vertex_size_for(source), after.vertex_size(source));
        if b != a {
            loss(Loss::new(
                LossKind::Layout,
                format!(
                    "the {b}-byte vertices of the {source} file ({target} cannot record the \
                     vertex size; {back} gives {a}-byte vertices)"
                ),
            ));
        }
    }
    if source.has_lods() && !source.has_skinning() && !source.is_chunked() {
        let (b, a) = (
            before.sizeof_lod_offset_for(),
            after.model().sizeof_lod_offset_for(),
        );
        if b != a {
            // 4 is what every writer puts there ("unused, always 4").
            let level = if b == 4 { Level::Relaid } else { Level::Lost };
            loss(
                Loss::new(
                    LossKind::HeaderBytes,
                    format!("sizeof_LodOffset {b} ({target} has no such field)"),
                )
                .at(level),
            );
        }
    }
    let (b, a) = (
        before.header_tail_for(source),
        after.model().header_tail_for(source),
    );
    if b != a {
        loss(Loss::counted(
            LossKind::HeaderBytes,
            b.len(),
            format!(
                "{} header bytes beyond the known fields of {source}'s header ({target} has \
                 no place for them)",
                b.len()
            ),
        ));
    }
    if source.has_skinning() && !source.is_chunked() {
        let (b, a) = (before.padding_for(), after.model().padding_for());
        if b != a {
            let level = if b == 0 { Level::Relaid } else { Level::Lost };
            loss(
                Loss::new(
                    LossKind::HeaderBytes,
                    format!("the header's padding byte {b} ({target} has no padding byte)"),
                )
                .at(level),
            );
        }
    }
    let (b, a) = (
        before.trailing_for(source),
        after.model().trailing_for(source),
    );
    if b != a {
        loss(Loss::counted(
            LossKind::TrailingBytes,
            b.len(),
            format!(
                "{} bytes after the last structure ({target} has no place for them)",
                b.len()
            ),
        ));
    }
    if source.has_lods() && kept.faces {
        let (b, a) = (before.lod_offsets_for(), after.lod_offsets());
        if b != a {
            loss(Loss::new(
                LossKind::Layout,
                format!("LOD offsets {b:?} ({back} gives {a:?})"),
            ));
        }
    }
    if source.has_skinning() && kept.skin && !same_skin(&*before.skin_for()?, &*after.skin()?) {
        loss(Loss::new(
            LossKind::Layout,
            format!(
                "the subsets, bone name table and envelope bytes as stored ({back} lays the \
                 skinning out anew)"
            ),
        ));
    }
    if source.has_facs() && kept.facs {
        let (b, a) = (
            before.facs_section_for()?,
            after.model().facs_section_for()?,
        );
        if !same_facs(b.as_ref(), a.as_ref()) {
            let l = match b.as_ref().map(|s| &s.facs) {
                Some(Facs::Opaque(bytes)) => Loss::counted(
                    LossKind::Facs,
                    bytes.len(),
                    format!(
                        "{} bytes of FACS data the model does not read ({target} has no \
                         place for them)",
                        bytes.len()
                    ),
                ),
                // The same poses, quantized and laid out anew.
                _ => Loss::new(
                    LossKind::Facs,
                    format!(
                        "the FACS block as stored (facsDataFormat and quantization; {back} \
                         writes it anew)"
                    ),
                )
                .at(Level::Relaid),
            };
            loss(l);
        }
    }
    if !source.is_chunked() {
        return Ok(());
    }
    if kept.hsr {
        let (b, a) = (before.hsr_for()?, after.model().hsr_for()?);
        if b != a {
            loss(Loss::new(
                LossKind::Layout,
                "the padding bits of the HSR flags",
            ));
        }
    }
    let options = WriteOptions::default();
    let mut memo = DracoMemo::child(warm);
    // The COREMESH encodings are compared only while the faces are kept.
    let (b, b_core) = before.plan(source, &options, &mut memo, kept.faces)?;
    let (a, a_core) = after.plan(source, &options, &mut memo, kept.faces)?;
    // Chunks kept whole: each one the target's file does not give back is lost.
    let kept_of = |p: &[(Option<ChunkKind>, Chunk)]| -> Vec<Chunk> {
        p.iter()
            .filter(|(k, _)| k.is_none())
            .map(|(_, c)| c.clone())
            .collect()
    };
    let mut remaining = kept_of(&a);
    let lost: Vec<String> = kept_of(&b)
        .into_iter()
        .filter(|c| match remaining.iter().position(|r| r == c) {
            Some(i) => {
                remaining.remove(i);
                false
            }
            None => true,
        })
        .map(|c| {
            format!(
                "{} v{} ({} bytes)",
                chunk_type_name(&c.chunk_type),
                c.chunk_version,
                c.data.byte_size()
            )
        })
        .collect();
    if !lost.is_empty() {
        loss(Loss::counted(
            LossKind::Chunks,
            lost.len(),
            format!(
                "chunks the model does not interpret: {} ({target} has no place for them)",
                lost.join(", ")
            ),
        ));
    } else if names(&b) != names(&a) {
        loss(
            Loss::new(
                LossKind::Chunks,
                format!(
                    "the chunk order ({} in {source}; {back} gives {})",
                    names(&b),
                    names(&a)
                ),
            )
            .at(Level::Relaid),
        );
    }
    let same_core = match (&b_core, &a_core) {
        (Some(b), Some(a)) => b.same(a),
        (b, a) => b.is_none() && a.is_none(),
    };
    if kept.faces && !same_core {
        loss(Loss::new(
            LossKind::Layout,
            format!(
                "the COREMESH encoding as stored ({}; {back} gives {})",
                core_name(b_core.as_ref()),
                core_name(a_core.as_ref())
            ),
        ));
    }
    Ok(())
}

/// Chunk types and versions in order (the core mesh's version is its encoding, compared
/// on its own).
fn names(chunks: &[(Option<ChunkKind>, Chunk)]) -> String {
    chunks
        .iter()
        .map(|(k, c)| match k {
            Some(ChunkKind::CoreMesh) => chunk_type_name(&c.chunk_type),
            _ => format!("{} v{}", chunk_type_name(&c.chunk_type), c.chunk_version),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn core_name(core: Option<&CorePlan<'_>>) -> String {
    match core {
        Some(CorePlan::Uncompressed) => "COREMESH v1".to_string(),
        Some(CorePlan::Draco(b)) => format!("a {}-byte Draco bitstream", b.len()),
        None => "no COREMESH".to_string(),
    }
}

/// Byte equality of two skins (floats by their bits).
fn same_skin(a: &SkinningV1, b: &SkinningV1) -> bool {
    bytemuck::cast_slice::<_, u8>(&a.bones) == bytemuck::cast_slice::<_, u8>(&b.bones)
        && a.bone_names == b.bone_names
        && a.envelopes == b.envelopes
        && a.subsets == b.subsets
}

/// Byte equality of two FACS sections, `facsDataFormat` included.
fn same_facs(a: Option<&StoredFacs>, b: Option<&StoredFacs>) -> bool {
    let bytes = |f: &Facs| -> Option<Vec<u8>> {
        let mut c = std::io::Cursor::new(Vec::new());
        binrw::BinWrite::write_le(f, &mut c).ok()?;
        Some(c.into_inner())
    };
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.format.unwrap_or(1) == b.format.unwrap_or(1) && bytes(&a.facs) == bytes(&b.facs)
        }
        _ => false,
    }
}
