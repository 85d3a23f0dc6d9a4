//! What the scene of a union graphics blob leaves behind ([`crate::MeshFile::scene_losses`]),
//! item by item.

use super::raw::MdlBody;
use super::CsgMdl;
use crate::file::contract::ExportOptions;
use crate::loss::{Level, Loss, LossKind, VertexUse};

/// What the scene made with `options` (one index range, or every range) does not carry
/// of `blob`: vertices no triangle uses, the other index ranges (levels of detail) and
/// the vertices only they use,
/// the NormalIds, the tangents, versions 2 and 4's hash, reserved vertex bytes that are
/// not zero, and a version 4 list that holds no range markers.
pub(crate) fn scene_losses(blob: &CsgMdl, options: &ExportOptions) -> Vec<Loss> {
    let mut losses = Vec::new();
    let ranges = blob.index_ranges();
    let (vertices, corners, normal_ids, tangents) = match &blob.body {
        MdlBody::Plain(m) => (
            m.vertices.len(),
            m.indices.to_vec(),
            m.vertices.iter().filter(|v| v.normal_id != 0).count(),
            m.vertices.iter().filter(|v| v.tangent != [0.0; 3]).count(),
        ),
        MdlBody::Packed(m) => (
            m.positions.values.len(),
            m.corners().unwrap_or_default(),
            m.normal_ids.values.iter().filter(|&&i| i != 0).count(),
            m.tangents
                .vectors()
                .map_or(0, |t| t.iter().filter(|v| **v != [0.0; 3]).count()),
        ),
    };
    let kept = |k: usize| options.all_lods || k == options.lod;
    let vertex_use = VertexUse::count(
        vertices,
        ranges
            .iter()
            .enumerate()
            .map(|(k, r)| (kept(k), corners.get(r.clone()).unwrap_or_default())),
    );
    losses.extend(vertex_use.unused_loss("triangle"));
    if !options.all_lods && ranges.len() > 1 {
        let others: Vec<String> = (0..ranges.len())
            .filter(|&k| k != options.lod)
            .map(|k| k.to_string())
            .collect();
        let faces: usize = ranges
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != options.lod)
            .map(|(_, r)| r.len() / 3)
            .sum();
        let only_others = vertex_use.only_left_out;
        losses.push(Loss::counted(
            LossKind::Lods,
            faces,
            format!(
                "{faces} triangles of the union's other index range{} (LOD{} {}) and the \
                 {only_others} vertices only they use (the scene holds LOD {}; export --lod \
                 all keeps every level)",
                if others.len() == 1 { "" } else { "s" },
                if others.len() == 1 { "" } else { "s" },
                others.join(", "),
                options.lod
            ),
        ));
    }
    if normal_ids > 0 {
        losses.push(Loss::counted(
            LossKind::NotImported,
            normal_ids,
            format!(
                "the NormalId of {normal_ids} vertices (the face of the part each came from; \
                 the scene has no place for it)"
            ),
        ));
    }
    if tangents > 0 {
        losses.push(Loss::counted(
            LossKind::Tangents,
            tangents,
            format!("the tangents of {tangents} vertices (the scene has no place for them)"),
        ));
    }
    if let MdlBody::Plain(m) = &blob.body {
        losses.push(Loss::counted(
            LossKind::HeaderBytes,
            32,
            "the 32-byte hash (the scene has no place for it)",
        ));
        let zero = [0u8; 16];
        let reserved = m
            .vertices
            .iter()
            .filter(|v| v.reserved1 != zero || v.reserved2 != zero)
            .count();
        if reserved > 0 {
            losses.push(
                Loss::counted(
                    LossKind::Layout,
                    reserved,
                    format!("the reserved bytes of {reserved} vertices that are not zero"),
                )
                .at(Level::Lost),
            );
        }
        match &m.extra {
            // Range markers: the ranges above.
            Some(_) if ranges.len() > 1 => {}
            Some(e) => losses.push(
                Loss::counted(
                    LossKind::Layout,
                    e.values.len(),
                    format!(
                        "version 4's list after the mesh ({} values that are not range \
                         markers; meaning unknown)",
                        e.values.len()
                    ),
                )
                .at(Level::Lost),
            ),
            None => {}
        }
    }
    losses
}
