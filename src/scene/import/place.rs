//! The meshes as the scene's nodes place them ([`place`]): one copy per node, moved by
//! its world matrix, levels of detail from `MSFT_lod` and names, and the skins and
//! animations of the placed meshes ([`skins`]).

use serde_json::Value;

use super::accessors::charge;
use super::json::{bad, uint};
use super::skins;
use super::transform::{local_matrix, transformed};
use crate::error::Result;
use crate::scene::skin::{mul as mul4, Mat4, IDENTITY as IDENTITY4};
use crate::scene::{Animation, ExportMesh, ExportNote, NoteKind, Skeleton};

/// What the scene's nodes make of the meshes: see [`place`].
pub(super) struct Placed {
    pub(super) meshes: Vec<ExportMesh>,
    pub(super) skeleton: Option<Skeleton>,
    pub(super) animations: Vec<Animation>,
    pub(super) notes: Vec<ExportNote>,
}

/// One node that places a mesh, as the walk finds it.
struct Use {
    node: usize,
    mesh: usize,
    world: Mat4,
    skin: Option<usize>,
    lod: usize,
}

/// The level of detail a name gives: a trailing `LOD k` (`"Body LOD 1"`, `"body_lod2"`,
/// `"Cube.LOD3"`), else none.
fn lod_of_name(name: &str) -> Option<usize> {
    let digits = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let k: usize = name.get(digits.len()..)?.parse().ok()?;
    let rest = digits.trim_end_matches([' ', '_', '-', '.']);
    let lod = rest.get(rest.len().checked_sub(3)?..)?;
    lod.eq_ignore_ascii_case("lod").then_some(k)
}

/// The meshes as the scene's nodes place them: one copy per node that names a mesh, in
/// the order the default scene's node trees are walked (depth first), transformed by the
/// node's world matrix. A skinned mesh's node is not moved (glTF: its joints place it);
/// its joints are renumbered into one skeleton of every skin the placed meshes use
/// ([`skins`]), and the animations of those joints are read. Meshes no node of the
/// scene names follow, as they are. Copies beyond the first of a mesh count against the
/// decoding budget, so a file cannot multiply a big mesh without limit.
///
/// Levels of detail: the nodes a node's `MSFT_lod` extension lists are placed where it
/// is, as LODs 1, 2 …; otherwise a node or mesh name ending in `LOD k` gives LOD k.
pub(super) fn place(
    doc: &Value,
    mut meshes: Vec<ExportMesh>,
    budget: &std::cell::Cell<u64>,
    fetch: &mut skins::Fetch<'_>,
) -> Result<Placed> {
    let empty = Vec::new();
    let nodes = doc.get("nodes").and_then(Value::as_array).unwrap_or(&empty);
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
    // A list of node indices (`children`, a scene's `nodes`, `MSFT_lod.ids`).
    let indices = |v: Option<&Value>| -> Vec<usize> {
        v.and_then(Value::as_array)
            .map(|c| {
                c.iter()
                    .filter_map(Value::as_u64)
                    .map(|i| i as usize)
                    .collect()
            })
            .unwrap_or_default()
    };
    let children = |n: &Value| indices(n.get("children"));
    let scenes = doc
        .get("scenes")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let chosen = uint(doc, "scene", "glTF")?.unwrap_or(0);
    let roots: Vec<usize> = match scenes.get(chosen) {
        Some(scene) => indices(scene.get("nodes")),
        // No scene: every node that is no other's child is a root.
        None => {
            let mut child = vec![false; nodes.len()];
            for n in nodes {
                for c in children(n) {
                    if let Some(x) = child.get_mut(c) {
                        *x = true;
                    }
                }
            }
            child
                .iter()
                .enumerate()
                .filter(|(_, c)| !**c)
                .map(|(i, _)| i)
                .collect()
        }
    };
    let mut uses: Vec<Use> = Vec::new();
    let mut visited = vec![false; nodes.len()];
    // (node, parent's world matrix, LOD given by an MSFT_lod list)
    let mut stack: Vec<(usize, Mat4, Option<usize>)> = roots
        .into_iter()
        .rev()
        .map(|r| (r, IDENTITY4, None))
        .collect();
    while let Some((i, parent, lod)) = stack.pop() {
        let ctx = format!("glTF node {i}");
        let node = nodes
            .get(i)
            .ok_or_else(|| bad(format!("{ctx}: no such node ({} nodes)", nodes.len())))?;
        if visited
            .get_mut(i)
            .is_some_and(|v| std::mem::replace(v, true))
        {
            return Err(bad(format!(
                "{ctx} is reached twice: nodes must form trees (glTF 2.0, \"Nodes and Hierarchy\")"
            )));
        }
        let world = mul4(&parent, &local_matrix(node, &ctx)?);
        if let Some(m) = uint(node, "mesh", &ctx)? {
            let mesh = meshes
                .get(m)
                .ok_or_else(|| bad(format!("{ctx}: mesh {m} of {}", meshes.len())))?;
            let named = node
                .get("name")
                .and_then(Value::as_str)
                .and_then(lod_of_name)
                .or_else(|| lod_of_name(&mesh.name));
            uses.push(Use {
                node: i,
                mesh: m,
                world,
                skin: uint(node, "skin", &ctx)?,
                lod: lod.or(named).unwrap_or(0),
            });
        }
        for c in children(node).into_iter().rev() {
            stack.push((c, world, None));
        }
        // The coarser levels of this node, placed where it is.
        let lods = indices(
            node.get("extensions")
                .and_then(|e| e.get("MSFT_lod"))
                .and_then(|l| l.get("ids")),
        );
        for (k, &l) in lods.iter().enumerate().rev() {
            stack.push((l, parent, Some(k + 1)));
        }
    }
    let mut used_skins: Vec<usize> = uses.iter().filter_map(|u| u.skin).collect();
    used_skins.sort_unstable();
    used_skins.dedup();
    let all_skins = doc
        .get("skins")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let unused = all_skins - used_skins.len().min(all_skins);
    // No placed mesh is skinned: a skeleton (and its animations) alone, as an
    // animation file exports, is read from every skin.
    let unused = if used_skins.is_empty() {
        used_skins = (0..all_skins).collect();
        0
    } else {
        unused
    };
    let node_graph = skins::Nodes::read(doc)?;
    let skins = skins::Skins::build(doc, &node_graph, &used_skins, fetch)?;
    note(
        unused,
        format!("{unused} skins that no placed mesh uses (their joints and bind matrices) were not imported"),
    );
    let mut out = Vec::new();
    let mut placed = vec![false; meshes.len()];
    let mut unbound = 0usize;
    for u in &uses {
        let ctx = format!("glTF node {}", u.node);
        let Some(mesh) = meshes.get(u.mesh) else {
            continue;
        };
        if placed
            .get_mut(u.mesh)
            .is_some_and(|p| std::mem::replace(p, true))
        {
            let values: usize = mesh
                .primitives
                .iter()
                .map(|p| p.positions.len() * 3 + p.triangles.len() * 3)
                .sum();
            charge(budget, values, &ctx)?;
        }
        let mut primitives = match u.skin {
            Some(_) => mesh.primitives.clone(),
            None if u.world == IDENTITY4 => mesh.primitives.clone(),
            None => mesh
                .primitives
                .iter()
                .map(|p| transformed(p, &u.world))
                .collect(),
        };
        for p in &mut primitives {
            match u.skin {
                Some(s) => skins.apply(s, p, &ctx)?,
                None if p.joints.is_some() => {
                    p.joints = None;
                    p.weights = None;
                    unbound += 1;
                }
                None => {}
            }
        }
        let name = nodes
            .get(u.node)
            .and_then(|n| n.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(&mesh.name)
            .to_string();
        out.push(ExportMesh {
            name,
            primitives,
            lod: u.lod,
        });
    }
    for (mesh, placed) in meshes.iter_mut().zip(placed) {
        if !placed {
            for p in &mut mesh.primitives {
                if p.joints.take().is_some() {
                    p.weights = None;
                    unbound += 1;
                }
            }
            mesh.lod = lod_of_name(&mesh.name).unwrap_or(0);
            out.push(std::mem::take(mesh));
        }
    }
    note(
        unbound,
        format!(
            "the skin influences of {unbound} primitives whose node has no skin were not imported"
        ),
    );
    let (skeleton, animations) = if used_skins.is_empty() {
        let n = doc
            .get("animations")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        note(
            n,
            format!(
                "{n} animations were not imported: only animations of a placed skin's joints are"
            ),
        );
        (None, Vec::new())
    } else {
        let (skeleton, between) = skins.skeleton(doc, &node_graph);
        let (animations, more) = skins.animations(doc, &between, fetch)?;
        notes.extend(more);
        (Some(skeleton), animations)
    };
    Ok(Placed {
        meshes: out,
        skeleton,
        animations,
        notes,
    })
}
