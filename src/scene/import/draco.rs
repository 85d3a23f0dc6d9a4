//! `KHR_draco_mesh_compression` primitives, decoded with the crate's Draco codec: the
//! import's one call into it.

use serde_json::Value;

use super::accessors::{charge, fixed};
use super::json::{bad, entry, uint};
use crate::error::Result;
// The crate's Draco codec: the scene's only use of a format module.
use crate::codec::draco::decode_attributes;
use crate::scene::Primitive;

/// A primitive compressed with `KHR_draco_mesh_compression`: its buffer view decoded
/// with the crate's Draco decoder, the attributes the scene carries (POSITION, NORMAL,
/// TEXCOORD_0, COLOR_0) taken by the unique ids the extension names, normalized where
/// their accessors say so, and the decoded triangles. The decoded values count against
/// the decoding budget.
pub(super) fn draco_primitive(
    doc: &Value,
    p: &Value,
    draco: &Value,
    buffers: &[Vec<u8>],
    budget: &std::cell::Cell<u64>,
    ctx: &str,
) -> Result<Primitive> {
    let ctx = format!("{ctx} KHR_draco_mesh_compression");
    let view_index =
        uint(draco, "bufferView", &ctx)?.ok_or_else(|| bad(format!("{ctx}: no bufferView")))?;
    let view = entry(doc, "bufferViews", view_index, &ctx)?;
    let buffer = buffers
        .get(uint(view, "buffer", &ctx)?.unwrap_or(usize::MAX))
        .ok_or_else(|| bad(format!("{ctx}: its buffer view names no buffer")))?;
    let start = uint(view, "byteOffset", &ctx)?.unwrap_or(0);
    let len = uint(view, "byteLength", &ctx)?.unwrap_or(0);
    let bitstream = buffer
        .get(start..start.saturating_add(len))
        .ok_or_else(|| bad(format!("{ctx}: buffer view outside its buffer")))?;
    // (name, unique id, normalized) of the attributes the scene carries.
    let mut wanted: Vec<(&str, u32, bool)> = Vec::new();
    for name in ["POSITION", "NORMAL", "TEXCOORD_0", "COLOR_0"] {
        let Some(uid) = draco
            .get("attributes")
            .and_then(|a| a.get(name))
            .and_then(Value::as_u64)
        else {
            continue;
        };
        let uid = u32::try_from(uid).map_err(|_| bad(format!("{ctx}: {name} id {uid}")))?;
        let normalized = p
            .get("attributes")
            .and_then(|a| uint(a, name, &ctx).ok().flatten())
            .and_then(|k| doc.get("accessors")?.get(k))
            .and_then(|a| a.get("normalized"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        wanted.push((name, uid, normalized));
    }
    if !wanted.iter().any(|w| w.0 == "POSITION") {
        return Err(bad(format!("{ctx}: no POSITION")));
    }
    // What is left of the budget, in bytes of decoded values, is the decoder's ceiling.
    let limits = crate::Limits {
        max_decoded_bytes: budget.get().saturating_mul(8),
        ..crate::Limits::default()
    };
    let ids: Vec<(u32, bool)> = wanted.iter().map(|w| (w.1, w.2)).collect();
    let d = decode_attributes(bitstream, &ids, &limits).map_err(|e| bad(format!("{ctx}: {e}")))?;
    let mut prim = Primitive {
        triangles: d.faces,
        ..Primitive::default()
    };
    for ((name, _, _), (n, values)) in wanted.iter().zip(d.attributes) {
        charge(budget, values.len(), &ctx)?;
        let rows = values.chunks_exact(n.max(1));
        let want = |dims: &[usize]| {
            if dims.contains(&n) {
                Ok(())
            } else {
                Err(bad(format!("{ctx}: {name} has {n} components")))
            }
        };
        match *name {
            "POSITION" => {
                want(&[3])?;
                prim.positions = rows.map(fixed).collect();
            }
            "NORMAL" => {
                want(&[3])?;
                prim.normals = Some(rows.map(fixed).collect());
            }
            "TEXCOORD_0" => {
                want(&[2])?;
                prim.uvs = Some(rows.map(fixed).collect());
            }
            _ => {
                want(&[3, 4])?;
                prim.colors = Some(
                    rows.map(|x| {
                        let [r, g, b] = fixed::<3>(x);
                        [r, g, b, x.get(3).map_or(1.0, |&a| a as f32)]
                    })
                    .collect(),
                );
            }
        }
    }
    Ok(prim)
}
