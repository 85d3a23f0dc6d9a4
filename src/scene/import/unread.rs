//! What a glTF document holds that the import does not carry into the scene, named so
//! that nothing is dropped in silence: each becomes an [`ExportNote`] of kind
//! [`NoteKind::NotImported`], which [`crate::import`] turns into the loss report (the CLI
//! then refuses without `--allow-lossy`). Extensions the reader cannot decode and the
//! file requires are refused up front, by name.

use serde_json::Value;

use super::json::bad;
use crate::error::Result;
use crate::scene::{ExportNote, NoteKind};

/// The vertex attributes the import reads of a Draco-compressed primitive.
const DRACO_ATTRIBUTES: [&str; 4] = ["POSITION", "NORMAL", "TEXCOORD_0", "COLOR_0"];

/// Whether the import reads attribute `name` of a primitive with `attributes`: POSITION,
/// NORMAL and COLOR_0; TEXCOORD_0, 1 … as long as they follow on; JOINTS_k with
/// WEIGHTS_k, as long as the pairs follow on. Of a Draco-compressed primitive, only
/// [`DRACO_ATTRIBUTES`].
fn is_read(name: &str, attributes: &serde_json::Map<String, Value>, draco: bool) -> bool {
    if draco {
        return DRACO_ATTRIBUTES.contains(&name);
    }
    let run = |prefix: &str, k: usize, pair: Option<&str>| {
        (0..=k).all(|i| {
            attributes.contains_key(&format!("{prefix}{i}"))
                && pair.is_none_or(|p| attributes.contains_key(&format!("{p}{i}")))
        })
    };
    let index = |prefix: &str| -> Option<usize> { name.strip_prefix(prefix)?.parse().ok() };
    match name {
        "POSITION" | "NORMAL" | "COLOR_0" => true,
        _ => {
            if let Some(k) = index("TEXCOORD_") {
                run("TEXCOORD_", k, None)
            } else if let Some(k) = index("JOINTS_") {
                run("JOINTS_", k, Some("WEIGHTS_"))
            } else if let Some(k) = index("WEIGHTS_") {
                run("WEIGHTS_", k, Some("JOINTS_"))
            } else {
                false
            }
        }
    }
}

/// Extensions that change how geometry is stored: a file that requires one cannot be
/// read without it.
const GEOMETRY_EXTENSIONS: [&str; 1] = ["EXT_meshopt_compression"];

/// Required extensions the reader implements: `KHR_mesh_quantization` only allows
/// integer component types for positions, normals, tangents and UVs, which the accessor
/// reader decodes like any other (their scale lives in the node transforms, applied);
/// `KHR_draco_mesh_compression` primitives are decoded with the crate's Draco decoder.
const READ_EXTENSIONS: [&str; 2] = ["KHR_mesh_quantization", "KHR_draco_mesh_compression"];

fn array<'a>(doc: &'a Value, key: &str) -> &'a [Value] {
    doc.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// Refuses a document that requires an extension the reader does not implement, naming
/// it (rather than failing later on a buffer view the extension replaces).
pub(crate) fn check_required_extensions(doc: &Value) -> Result<()> {
    let required: Vec<&str> = array(doc, "extensionsRequired")
        .iter()
        .filter_map(Value::as_str)
        .filter(|e| !READ_EXTENSIONS.contains(e))
        .collect();
    if let Some(ext) = required.first() {
        let kind = if GEOMETRY_EXTENSIONS.contains(ext) {
            "compressed or quantized geometry"
        } else {
            "an extension"
        };
        return Err(bad(format!(
            "the glTF file requires {ext} ({kind}), which meshcodec cannot read yet; \
             re-export it without {ext} (for example with glTF-Transform or Blender)"
        )));
    }
    Ok(())
}

/// One note per kind of content the import leaves behind, with counts.
pub(crate) fn gltf_unread(doc: &Value) -> Vec<ExportNote> {
    let mut notes = Vec::new();
    let mut note = |count: usize, detail: String| {
        if count > 0 {
            notes.push(ExportNote {
                kind: NoteKind::NotImported,
                count,
                detail,
            });
        }
    };
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let primitives: Vec<&Value> = array(doc, "meshes")
        .iter()
        .flat_map(|m| array(m, "primitives"))
        .collect();
    let not_triangles = primitives
        .iter()
        .filter(|p| p.get("mode").and_then(Value::as_u64).unwrap_or(4) != 4)
        .count();
    note(
        not_triangles,
        format!(
            "{} that {} not a triangle list (points, lines, strips or fans) {} left out",
            plural(not_triangles, "primitive", "primitives"),
            if not_triangles == 1 { "is" } else { "are" },
            if not_triangles == 1 { "was" } else { "were" }
        ),
    );
    let mut other: std::collections::BTreeMap<&str, usize> = Default::default();
    let draco = |p: &Value| {
        p.get("extensions")
            .and_then(|e| e.get("KHR_draco_mesh_compression"))
            .is_some()
    };
    for p in &primitives {
        if let Some(attrs) = p.get("attributes").and_then(Value::as_object) {
            for name in attrs.keys() {
                if !is_read(name, attrs, draco(p)) {
                    *other.entry(name.as_str()).or_default() += 1;
                }
            }
        }
    }
    for (name, n) in other {
        let what = match name {
            n if n.starts_with("JOINTS_") || n.starts_with("WEIGHTS_") => " (skinning)",
            n if n.starts_with("TEXCOORD_") => " (a further UV set)",
            n if n.starts_with("COLOR_") => " (a further colour set)",
            _ => "",
        };
        note(
            n,
            format!(
                "vertex attribute {name}{what} of {} is not imported",
                plural(n, "primitive", "primitives")
            ),
        );
    }
    let morphs = primitives
        .iter()
        .filter(|p| draco(p) && !array(p, "targets").is_empty())
        .count();
    note(
        morphs,
        format!(
            "morph targets of {} compressed with Draco are not imported",
            plural(morphs, "primitive", "primitives")
        ),
    );
    // Morph targets are read as position offsets; normal and tangent offsets are not.
    let offsets = primitives
        .iter()
        .filter(|p| !draco(p))
        .flat_map(|p| array(p, "targets"))
        .filter(|t| {
            t.as_object()
                .is_some_and(|o| o.keys().any(|k| k != "POSITION"))
        })
        .count();
    note(
        offsets,
        format!(
            "the normal and tangent offsets of {} are not imported",
            plural(offsets, "morph target", "morph targets")
        ),
    );
    // A primitive keeps its material's name; a material that holds more (colours,
    // textures, shading) loses that.
    let materials = array(doc, "materials")
        .iter()
        .filter(|m| {
            // An empty object (Blender writes `"pbrMetallicRoughness": {}`) holds only
            // the defaults.
            m.as_object().is_some_and(|o| {
                o.iter().any(|(k, v)| {
                    k != "name" && k != "extras" && v.as_object().is_none_or(|x| !x.is_empty())
                })
            })
        })
        .count();
    note(
        materials,
        format!(
            "{} not imported (the primitives keep their materials' names)",
            plural(
                materials,
                "material's properties are",
                "materials' properties are"
            )
        ),
    );
    for (key, one, many) in [
        ("textures", "texture", "textures"),
        ("cameras", "camera", "cameras"),
    ] {
        let n = array(doc, key).len();
        note(n, format!("{} not imported", plural(n, one, many)));
    }
    notes
}
