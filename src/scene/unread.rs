//! What a glTF document holds that the import does not carry into the scene, named so
//! that nothing is dropped in silence: each becomes an [`ExportNote`] of kind
//! [`NoteKind::NotImported`], which [`crate::import`] turns into the loss report (the CLI
//! then refuses without `--allow-lossy`). Extensions the reader cannot decode and the
//! file requires are refused up front, by name.

use serde_json::Value;

use super::{ExportNote, NoteKind};
use crate::error::Result;

/// The vertex attributes the import reads.
const READ_ATTRIBUTES: [&str; 4] = ["POSITION", "NORMAL", "TEXCOORD_0", "COLOR_0"];

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
        return Err(super::import::bad(format!(
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
    for p in &primitives {
        if let Some(attrs) = p.get("attributes").and_then(Value::as_object) {
            for name in attrs.keys() {
                if !READ_ATTRIBUTES.contains(&name.as_str()) {
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
        .filter(|p| !array(p, "targets").is_empty())
        .count();
    note(
        morphs,
        format!(
            "morph targets of {} are not imported",
            plural(morphs, "primitive", "primitives")
        ),
    );
    let skins = array(doc, "skins").len();
    note(
        skins,
        format!(
            "{} (joints, inverse bind matrices) {} not imported",
            plural(skins, "skin", "skins"),
            if skins == 1 { "is" } else { "are" }
        ),
    );
    let animations = array(doc, "animations").len();
    note(
        animations,
        format!(
            "{} {} not imported",
            plural(animations, "animation", "animations"),
            if animations == 1 { "is" } else { "are" }
        ),
    );
    for (key, one, many) in [
        ("materials", "material", "materials"),
        ("textures", "texture", "textures"),
        ("cameras", "camera", "cameras"),
    ] {
        let n = array(doc, key).len();
        note(n, format!("{} not imported", plural(n, one, many)));
    }
    notes
}
