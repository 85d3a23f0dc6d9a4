//! The spatial tree and edge flags as first written (commit 0026596): one `Vec` per
//! node, boxes and splits recomputed from the corners. Kept for tests only, as the
//! oracle the faster [`super::build_tree`] must agree with exactly.

use super::{Ms14Tree, TreeNode, COPLANAR_COS};
use crate::unigine::raw::cint::CInt;

#[allow(clippy::indexing_slicing)] // only fixed-size [f64; 3] / [f64; 6], indexed by 0..3
pub fn build_tree(positions: &[[f32; 3]], coordinate_indices: &[u32], leaf: usize) -> Ms14Tree {
    let n = coordinate_indices.len() / 3;
    let corner = |t: usize, k: usize| -> [f64; 3] {
        let i = coordinate_indices.get(3 * t + k).copied().unwrap_or(0) as usize;
        positions.get(i).copied().unwrap_or_default().map(f64::from)
    };
    let centroids: Vec<[f64; 3]> = (0..n)
        .map(|t| {
            let (a, b, c) = (corner(t, 0), corner(t, 1), corner(t, 2));
            [0, 1, 2].map(|x| (a[x] + b[x] + c[x]) / 3.0)
        })
        .collect();
    let mut tree = Ms14Tree {
        edge_flags: edge_flags(positions, coordinate_indices).into(),
        ..Ms14Tree::default()
    };
    // An explicit stack instead of recursion: depth is bounded only by the data.
    enum Task {
        Build(Vec<usize>, Option<(usize, bool)>),
    }
    let mut stack = vec![Task::Build((0..n).collect(), None)];
    while let Some(Task::Build(tris, parent)) = stack.pop() {
        let index = tree.nodes.len();
        if let Some((p, is_left)) = parent {
            if let Some(node) = tree.nodes.get_mut(p) {
                if is_left {
                    node.left = CInt(index as i32);
                } else {
                    node.right = CInt(index as i32);
                }
            }
        }
        let mut bb = [
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        for &t in &tris {
            for k in 0..3 {
                let p = corner(t, k);
                for a in 0..3 {
                    bb[a] = bb[a].min(p[a]);
                    bb[a + 3] = bb[a + 3].max(p[a]);
                }
            }
        }
        if tris.is_empty() {
            bb = [0.0; 6];
        }
        tree.node_bounds.push(bb.map(|x| x as f32));
        let mut best: Option<(usize, usize, f64)> = None;
        if tris.len() >= leaf {
            for a in 0..3 {
                let mid = (bb[a] + bb[a + 3]) / 2.0;
                let left = tris
                    .iter()
                    .filter(|&&t| centroids.get(t).is_some_and(|c| c[a] < mid))
                    .count();
                let score = left.abs_diff(tris.len() - left);
                if left > 0 && left < tris.len() && best.is_none_or(|(s, _, _)| score < s) {
                    best = Some((score, a, mid));
                }
            }
        }
        match best {
            None => {
                let start = tree.triangle_refs.len() as i32;
                tree.triangle_refs
                    .extend(tris.iter().map(|&t| CInt(3 * t as i32)));
                tree.nodes.push(TreeNode {
                    axis: 0,
                    left: CInt(-1),
                    right: CInt(-1),
                    start: CInt(start),
                    end: CInt(tree.triangle_refs.len() as i32),
                });
                tree.splits.push(0.0);
            }
            Some((_, a, mid)) => {
                let (l, r): (Vec<usize>, Vec<usize>) = tris
                    .iter()
                    .partition(|&&t| centroids.get(t).is_some_and(|c| c[a] < mid));
                tree.nodes.push(TreeNode {
                    axis: a as u8,
                    ..TreeNode::default()
                });
                tree.splits.push(mid as f32);
                // Pre-order: the left subtree is built (popped) first.
                stack.push(Task::Build(r, Some((index, false))));
                stack.push(Task::Build(l, Some((index, true))));
            }
        }
    }
    tree
}

/// The edge flags of [`build_tree`].
#[allow(clippy::indexing_slicing)] // only fixed-size [f64; 3], indexed by 0..3
fn edge_flags(positions: &[[f32; 3]], ci: &[u32]) -> Vec<u8> {
    let n = ci.len() / 3;
    let idx = |t: usize, k: usize| ci.get(3 * t + k).copied().unwrap_or(0);
    // Corner `k` of triangle `t`, in f64.
    let corner = |t: usize, k: usize| -> [f64; 3] {
        positions
            .get(idx(t, k) as usize)
            .copied()
            .unwrap_or_default()
            .map(f64::from)
    };
    let normal = |t: usize| -> [f64; 3] {
        let (a, b, c) = (corner(t, 0), corner(t, 1), corner(t, 2));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let nn = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let len = (nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]).sqrt();
        if len > 0.0 {
            nn.map(|x| x / len)
        } else {
            nn
        }
    };
    // Every (edge, triangle, corner), sorted by edge: triangles sharing an edge are
    // neighbours, in triangle order (a sort instead of a hash map of vectors: 3 entries
    // per triangle, no allocation per edge).
    let key = |p: u32, q: u32| (u64::from(p.min(q)) << 32) | u64::from(p.max(q));
    let mut sides: Vec<(u64, u32, u8)> = Vec::with_capacity(3 * n);
    for t in 0..n {
        for b in 0..3u8 {
            let b = usize::from(b);
            sides.push((
                key(idx(t, (b + 1) % 3), idx(t, (b + 2) % 3)),
                t as u32,
                b as u8,
            ));
        }
    }
    sides.sort_unstable();
    let normals: Vec<[f64; 3]> = (0..n).map(normal).collect();
    let mut flags = vec![0u8; n];
    let mut start = 0;
    while start < sides.len() {
        let edge = sides[start].0;
        let end = start + sides[start..].iter().take_while(|s| s.0 == edge).count();
        let group = &sides[start..end];
        for &(_, t, b) in group {
            let other = group.iter().find(|s| s.1 != t);
            let t = t as usize;
            let flat = other.is_some_and(|&(_, o, c)| {
                let o = o as usize;
                let (x, y) = (normals.get(t), normals.get(o));
                let coplanar = x
                    .zip(y)
                    .is_some_and(|(x, y)| x[0] * y[0] + x[1] * y[1] + x[2] * y[2] > COPLANAR_COS);
                // Concave: the other triangle's corner off the edge is above t's plane.
                let (e, f) = (
                    corner(t, (usize::from(b) + 1) % 3),
                    corner(o, usize::from(c)),
                );
                let concave = x.is_some_and(|x| {
                    x[0] * (f[0] - e[0]) + x[1] * (f[1] - e[1]) + x[2] * (f[2] - e[2]) > 0.0
                });
                coplanar || concave
            });
            if !flat {
                if let Some(f) = flags.get_mut(t) {
                    *f |= 1 << b;
                }
            }
        }
        start = end;
    }
    flags
}
