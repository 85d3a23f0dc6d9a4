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

use super::convert::WriteOptions;
use super::stored::{ChunkKind, StoredFacs};
use super::{Mesh, MeshVertex, SameBits};
use crate::error::Result;
use crate::filemesh::raw::chunks::{chunk_type_name, Chunk, ChunkData, SkinningV1};
use crate::filemesh::raw::facs::Facs;
use crate::filemesh::raw::Version;
use crate::loss::{Loss, LossKind};

/// Appends to `out` what converting `before` to `target` lost, `after` being the target
/// read back.
pub(crate) fn compare(
    before: &Mesh,
    after: &Mesh,
    target: Version,
    out: &mut Vec<Loss>,
) -> Result<()> {
    let mut loss = |kind, detail: String| out.push(Loss { kind, detail });
    let faces_kept = geometry(before, after, target, &mut loss);
    let lod_info = |m: &Mesh| (m.lods.lod_type, m.lods.num_high_quality_lods);
    if lod_info(before) != lod_info(after) {
        loss(
            LossKind::LodInfo,
            format!(
                "lodType {} and numHighQualityLODs {} ({target} has neither)",
                before.lods.lod_type, before.lods.num_high_quality_lods
            ),
        );
    }
    let skeleton_kept = before.skeleton.same_bits(&after.skeleton);
    if !skeleton_kept {
        let detail = if after.skeleton.is_empty() {
            format!("{} bones ({target} has no skeleton)", before.skeleton.len())
        } else {
            format!("{} bones change", before.skeleton.len())
        };
        loss(LossKind::Skeleton, detail);
    }
    let skinning_kept = before.skinning == after.skinning;
    if !skinning_kept {
        let n = before.skinning.as_ref().map_or(0, Vec::len);
        loss(LossKind::Skinning, format!("skinning of {n} vertices"));
    }
    let facs_kept = before.facs.same_bits(&after.facs);
    if !facs_kept {
        let detail = match (&before.facs, &after.facs) {
            (Some(_), None) => format!("FACS data ({target} has none)"),
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
                format!("{changed} FACS pose values change when quantized")
            }
            _ => "FACS data changes".to_string(),
        };
        loss(LossKind::Facs, detail);
    }
    let hsr_kept = before.hsr_always_visible == after.hsr_always_visible;
    if !hsr_kept {
        let n = before.hsr_always_visible.as_ref().map_or(0, Vec::len);
        loss(
            LossKind::Hsr,
            format!("{n} HSR always-visible flags ({target} has none)"),
        );
    }
    let Some(source) = before.stored.version else {
        return Ok(());
    };
    if source.is_text() {
        // How a text file prints its numbers is not data: it is kept between 1.00 and
        // 1.01, and not reported when going to a binary version.
        return Ok(());
    }
    let kept = Kept {
        faces: faces_kept,
        skin: skeleton_kept && skinning_kept,
        facs: facs_kept,
        hsr: hsr_kept,
    };
    layout(before, after, source, target, &kept, &mut loss)
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
    after: &Mesh,
    target: Version,
    loss: &mut impl FnMut(LossKind, String),
) -> bool {
    let lod0 = before.lod0_faces();
    let mut kept = true;
    // Pairs of (vertex before, vertex after) that should hold the same values.
    let pairs: Vec<(usize, usize)> = if target.is_text() {
        let corners = lod0.iter().flatten().map(|&i| i as usize);
        let in_order = before.vertices.len() == lod0.len() * 3
            && corners.clone().enumerate().all(|(k, i)| k == i);
        if !in_order {
            kept = false;
            loss(
                LossKind::VertexSharing,
                format!(
                    "{} vertices become {} face corners ({target} has one vertex per corner)",
                    before.vertices.len(),
                    lod0.len() * 3
                ),
            );
        }
        corners.enumerate().map(|(k, i)| (i, k)).collect()
    } else {
        if before.vertices.len() != after.vertices.len() {
            kept = false;
            loss(
                LossKind::Values,
                format!(
                    "{} vertices become {}",
                    before.vertices.len(),
                    after.vertices.len()
                ),
            );
        }
        (0..before.vertices.len().min(after.vertices.len()))
            .map(|i| (i, i))
            .collect()
    };
    let expected: &[[u32; 3]] = if target.has_lods() {
        &before.faces
    } else {
        lod0
    };
    let dropped = before.faces.len() - expected.len();
    if dropped > 0 {
        kept = false;
        loss(
            LossKind::Lods,
            format!("{dropped} faces of LODs other than LOD 0 ({target} has no LODs)"),
        );
    }
    if !target.is_text() && after.faces != expected {
        kept = false;
        loss(LossKind::Values, "the faces change".to_string());
    }
    vertices(before, after, &pairs, target, loss);
    kept
}

/// Counts, per attribute, the values that differ between paired vertices.
fn vertices(
    before: &Mesh,
    after: &Mesh,
    pairs: &[(usize, usize)],
    target: Version,
    loss: &mut impl FnMut(LossKind, String),
) {
    let w = |m: &Mesh, i: usize| {
        m.stored
            .text
            .as_ref()
            .filter(|t| t.w.len() == m.vertices.len())
            .and_then(|t| t.w.get(i).copied())
            .unwrap_or(0.0)
    };
    // Per attribute: (vertices whose value changed, numbers that were not finite).
    let (mut pos, mut nrm, mut uv, mut tan, mut col, mut ws) = (0, 0, 0, 0, 0, 0);
    let (mut non_finite, mut numbers) = (0usize, 0usize);
    let mut count = |b: &[f32], a: &[f32], n: &mut usize| {
        let mut changed = false;
        for (x, y) in b.iter().zip(a) {
            if !x.same_bits(y) {
                changed = true;
                if x.is_finite() {
                    numbers += 1;
                } else {
                    non_finite += 1;
                }
            }
        }
        if changed {
            *n += 1;
        }
    };
    let default = MeshVertex::default();
    for &(i, j) in pairs {
        let b = before.vertices.get(i).unwrap_or(&default);
        let a = after.vertices.get(j).unwrap_or(&default);
        count(&b.position, &a.position, &mut pos);
        count(&b.normal, &a.normal, &mut nrm);
        count(&b.uv, &a.uv, &mut uv);
        count(&[w(before, i)], &[w(after, j)], &mut ws);
        if b.tangent != a.tangent {
            tan += 1;
        }
        if b.color != a.color {
            col += 1;
        }
    }
    if col > 0 {
        loss(
            LossKind::Colors,
            format!("colours of {col} vertices ({target} has no vertex colours)"),
        );
    }
    if tan > 0 {
        loss(
            LossKind::Tangents,
            format!("tangents of {tan} vertices ({target} has no tangents)"),
        );
    }
    if ws > 0 {
        loss(
            LossKind::TextW,
            format!("the w of {ws} texture coordinates (only 1.x holds it)"),
        );
    }
    if non_finite > 0 {
        let how = if target.is_text() {
            "written as 0: text cannot hold them"
        } else {
            "replaced by 0 before Draco quantization"
        };
        loss(
            LossKind::NonFinite,
            format!("{non_finite} numbers that are not finite (NaN or infinite), {how}"),
        );
    }
    if numbers == 0 {
        return;
    }
    if target.is_text() {
        loss(
            LossKind::TextPrecision,
            format!("{numbers} numbers rounded to the text's significant digits"),
        );
    } else if target == Version::V7_00 && pos == 0 && uv == 0 {
        loss(
            LossKind::NormalPrecision,
            format!("normals of {nrm} vertices quantized to 11 bits by Draco"),
        );
    } else {
        loss(
            LossKind::Values,
            format!(
                "{numbers} numbers change (positions of {pos}, normals of {nrm}, UVs of {uv} vertices)"
            ),
        );
    }
}

/// Compares, part by part, what writing `source` would give from each mesh.
fn layout(
    before: &Mesh,
    after: &Mesh,
    source: Version,
    target: Version,
    kept: &Kept,
    loss: &mut impl FnMut(LossKind, String),
) -> Result<()> {
    let back = format!("writing {source} again from {target}");
    if !source.has_skinning() && !source.is_chunked() {
        let (b, a) = (
            before.vertex_size_for(source),
            after.vertex_size_for(source),
        );
        if b != a {
            loss(
                LossKind::Layout,
                format!(
                    "the {b}-byte vertices of the {source} file ({target} cannot record the \
                     vertex size; {back} gives {a}-byte vertices)"
                ),
            );
        }
    }
    if source.has_lods() && !source.has_skinning() && !source.is_chunked() {
        let (b, a) = (
            before.sizeof_lod_offset_for(),
            after.sizeof_lod_offset_for(),
        );
        if b != a {
            loss(
                LossKind::HeaderBytes,
                format!("sizeof_LodOffset {b} ({target} has no such field)"),
            );
        }
    }
    let (b, a) = (
        before.header_tail_for(source),
        after.header_tail_for(source),
    );
    if b != a {
        loss(
            LossKind::HeaderBytes,
            format!(
                "{} header bytes beyond the known fields of {source}'s header ({target} has \
                 no place for them)",
                b.len()
            ),
        );
    }
    if source.has_skinning() && !source.is_chunked() {
        let (b, a) = (before.padding_for(), after.padding_for());
        if b != a {
            loss(
                LossKind::HeaderBytes,
                format!("the header's padding byte {b} ({target} has no padding byte)"),
            );
        }
    }
    let (b, a) = (before.trailing_for(source), after.trailing_for(source));
    if b != a {
        loss(
            LossKind::TrailingBytes,
            format!(
                "{} bytes after the last structure ({target} has no place for them)",
                b.len()
            ),
        );
    }
    if source.has_lods() && kept.faces {
        let (b, a) = (before.lod_offsets_for(), after.lod_offsets_for());
        if b != a {
            loss(
                LossKind::Layout,
                format!("LOD offsets {b:?} ({back} gives {a:?})"),
            );
        }
    }
    if source.has_skinning() && kept.skin && !same_skin(&*before.skin_for()?, &*after.skin_for()?) {
        loss(
            LossKind::Layout,
            format!(
                "the subsets, bone name table and envelope bytes as stored ({back} lays the \
                 skinning out anew)"
            ),
        );
    }
    if source.has_facs() && kept.facs {
        let (b, a) = (before.facs_section_for()?, after.facs_section_for()?);
        if !same_facs(b.as_ref(), a.as_ref()) {
            let detail = match b.as_ref().map(|s| &s.facs) {
                Some(Facs::Opaque(bytes)) => format!(
                    "{} bytes of FACS data the model does not read ({target} has no place \
                     for them)",
                    bytes.len()
                ),
                _ => format!(
                    "the FACS block as stored (facsDataFormat and quantization; {back} \
                     writes it anew)"
                ),
            };
            loss(LossKind::Facs, detail);
        }
    }
    if !source.is_chunked() {
        return Ok(());
    }
    if kept.hsr {
        let (b, a) = (before.hsr_for()?, after.hsr_for()?);
        if b != a {
            loss(
                LossKind::Layout,
                "the padding bits of the HSR flags".to_string(),
            );
        }
    }
    let options = WriteOptions::default();
    let (b, a) = (
        before.planned_chunks(source, &options)?,
        after.planned_chunks(source, &options)?,
    );
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
        loss(
            LossKind::Chunks,
            format!(
                "chunks the model does not interpret: {} ({target} has no place for them)",
                lost.join(", ")
            ),
        );
    } else if names(&b) != names(&a) {
        loss(
            LossKind::Chunks,
            format!(
                "the chunk order ({} in {source}; {back} gives {})",
                names(&b),
                names(&a)
            ),
        );
    }
    let core = |p: &[(Option<ChunkKind>, Chunk)]| {
        p.iter()
            .find(|(k, _)| *k == Some(ChunkKind::CoreMesh))
            .map(|(_, c)| match &c.data {
                ChunkData::CoreMeshV2(d) => Some(d.draco.clone()),
                _ => None,
            })
    };
    if kept.faces && core(&b) != core(&a) {
        loss(
            LossKind::Layout,
            format!(
                "the COREMESH encoding as stored ({}; {back} gives {})",
                core_name(&b),
                core_name(&a)
            ),
        );
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

fn core_name(chunks: &[(Option<ChunkKind>, Chunk)]) -> String {
    chunks
        .iter()
        .find_map(|(_, c)| match &c.data {
            ChunkData::CoreMeshV1(_) => Some("COREMESH v1".to_string()),
            ChunkData::CoreMeshV2(d) => Some(format!("a {}-byte Draco bitstream", d.draco.len())),
            _ => None,
        })
        .unwrap_or_else(|| "no COREMESH".to_string())
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
