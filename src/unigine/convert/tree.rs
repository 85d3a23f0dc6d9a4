//! The edges and spatial tree of an ms14 surface, built as UNIGINE builds it
//! ([`build_tree`]): the model side of the [`Ms14Tree`] block, whose bytes the raw layer
//! reads and writes.

use crate::unigine::raw::cint::CInt;
use crate::unigine::raw::ms14::{Ms14Tree, TreeNode};

/// Leaf size of the spatial tree in real files: nodes with fewer triangles are leaves.
pub const TREE_LEAF_TRIANGLES: i32 = 4;

/// Two triangles whose unit normals have a dot product above this are coplanar: the edge
/// between them is not a feature edge. (Real files put the threshold between 0.9999988
/// and 0.9999992; this value reproduces every edge flag of the eight real files.)
pub const COPLANAR_COS: f64 = 0.999999;

/// The edges + spatial tree of one surface, built as UNIGINE builds it; for the real
/// ms14 files this gives their stored trees back exactly.
///
/// - **Edge flags**: bit `b` of triangle `t` is set unless the triangle across the edge
///   opposite corner `b` (sharing both positions) is coplanar ([`COPLANAR_COS`]) or
///   folds up from it (a concave edge: its far corner lies above `t`'s plane).
/// - **Tree**: a node's box bounds its triangles' corners; a node with fewer than
///   `leaf` triangles (or whose triangles cannot be split) is a leaf. Otherwise the split
///   is the middle of the box on the axis whose partition "centroid < middle" is the most
///   even (ties to the lower axis), the left child holding the triangles below, in their
///   order, and the right the others. Nodes are stored in pre-order, leaves listing their
///   triangles as 3 × the triangle number.
///
/// Built without a `Vec` per node: one array of triangle numbers is partitioned in
/// place (stably, through one scratch buffer), so it ends in leaf order; each
/// triangle's box and centroid are computed once, side by side (the centroid kept as
/// `f32`, and computed again in `f64` where that is too coarse to tell its side:
/// `is_below`; 36 bytes a triangle, not 48, at what is the peak of a conversion to
/// ms14); the pass of a split that moves the triangles also grows each child's box
/// from its triangles' boxes, in triangle order
/// (`grow`: bit for bit the fold over the corners); the three candidate axes are
/// counted in one pass. Edge neighbours come from the list of triangles around each
/// position (a counting sort), not from sorting all sides.
#[allow(clippy::indexing_slicing)] // only fixed-size arrays, indexed by 0..3
pub fn build_tree(positions: &[[f32; 3]], coordinate_indices: &[u32], leaf: usize) -> Ms14Tree {
    // The edge flags first: their scratch arrays are gone before the tree's are made.
    let edge_flags = edge_flags(positions, coordinate_indices);
    // Per triangle, the box of its corners (a missing position reads as the origin) and
    // its centroid, computed once, side by side (one array, read together).
    let mut tris: Vec<Triangle> = Vec::with_capacity(coordinate_indices.len() / 3);
    for t in coordinate_indices.chunks_exact(3) {
        let [a, b, c] = corners(positions, t);
        let mut bb = EMPTY;
        for q in [a, b, c] {
            grow(&mut bb, &[q[0], q[1], q[2], q[0], q[1], q[2]]);
        }
        tris.push(Triangle {
            bb,
            centroid: [0, 1, 2].map(|x| centroid([a[x], b[x], c[x]]) as f32),
        });
    }
    let n = tris.len();
    // A centroid coordinate as a split compares it (`f64`), from the corners.
    let exact = |t: u32, a: usize| {
        let t = t as usize;
        coordinate_indices
            .get(3 * t..3 * t + 3)
            .map_or(0.0, |c| centroid(corners(positions, c).map(|q| q[a])))
    };
    let mut tree = Ms14Tree {
        edge_flags: edge_flags.into(),
        ..Ms14Tree::default()
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut right: Vec<u32> = vec![0; n];
    let mut root = EMPTY;
    for t in &tris {
        grow(&mut root, &t.bb);
    }
    if n == 0 {
        root = [0.0; 6];
    }
    // Pre-order with an explicit stack (depth is bounded only by the data): a node is
    // `order[start..end]`, its box, and where its parent records it.
    struct Task {
        start: usize,
        end: usize,
        bb: [f32; 6],
        parent: Option<(usize, bool)>,
    }
    let mut stack = vec![Task {
        start: 0,
        end: n,
        bb: root,
        parent: None,
    }];
    while let Some(Task {
        start,
        end,
        bb,
        parent,
    }) = stack.pop()
    {
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
        tree.node_bounds.push(bb);
        let bb = bb.map(f64::from);
        let here = order.get(start..end).unwrap_or_default();
        let mut best: Option<(usize, usize, f64)> = None;
        if here.len() >= leaf {
            let mid = [0, 1, 2].map(|a| (bb[a] + bb[a + 3]) / 2.0);
            let mut below = [0usize; 3];
            let mut unsure = false;
            for &t in here {
                if let Some(x) = tris.get(t as usize) {
                    for a in 0..3 {
                        let (b, u) = side(x.centroid[a], mid[a]);
                        below[a] += usize::from(b);
                        unsure |= u;
                    }
                }
            }
            if unsure {
                // A centroid too near a middle for its f32 value to tell: counted again,
                // those from their corners.
                below = [0; 3];
                for &t in here {
                    if let Some(x) = tris.get(t as usize) {
                        for a in 0..3 {
                            below[a] +=
                                usize::from(is_below(x.centroid[a], mid[a], || exact(t, a)));
                        }
                    }
                }
            }
            for a in 0..3 {
                let left = below[a];
                let score = left.abs_diff(here.len() - left);
                if left > 0 && left < here.len() && best.is_none_or(|(s, _, _)| score < s) {
                    best = Some((score, a, mid[a]));
                }
            }
        }
        match best {
            None => {
                let first = tree.triangle_refs.len() as i32;
                tree.triangle_refs
                    .extend(here.iter().map(|&t| CInt(3 * t as i32)));
                tree.nodes.push(TreeNode {
                    axis: 0,
                    left: CInt(-1),
                    right: CInt(-1),
                    start: CInt(first),
                    end: CInt(tree.triangle_refs.len() as i32),
                });
                tree.splits.push(0.0);
            }
            Some((_, a, mid)) => {
                // Stable partition: the triangles below go to the front in order, the
                // others through `right` to the back in order. Without branches (which
                // side a triangle falls on is often unpredictable): each triangle is
                // written to both places and one cursor moves, and each child's box grows
                // by the triangle's box or by the empty box, which changes nothing.
                let (mut lbb, mut rbb) = (Grow::EMPTY, Grow::EMPTY);
                let (mut w, mut r) = (start, 0);
                for i in start..end {
                    let Some(&t) = order.get(i) else { break };
                    let x = tris.get(t as usize);
                    let below = x.is_some_and(|x| is_below(x.centroid[a], mid, || exact(t, a)));
                    if let Some(slot) = order.get_mut(w) {
                        *slot = t;
                    }
                    if let Some(slot) = right.get_mut(r) {
                        *slot = t;
                    }
                    w += usize::from(below);
                    r += usize::from(!below);
                    let b = x.map_or(&EMPTY, |x| &x.bb);
                    lbb.add(std::hint::select_unpredictable(below, b, &EMPTY));
                    rbb.add(std::hint::select_unpredictable(below, &EMPTY, b));
                }
                if let (Some(back), Some(moved)) = (order.get_mut(w..end), right.get(..r)) {
                    back.copy_from_slice(moved);
                }
                tree.nodes.push(TreeNode {
                    axis: a as u8,
                    ..TreeNode::default()
                });
                tree.splits.push(mid as f32);
                // Pre-order: the left subtree is built (popped) first.
                stack.push(Task {
                    start: w,
                    end,
                    bb: rbb.get(),
                    parent: Some((index, false)),
                });
                stack.push(Task {
                    start,
                    end: w,
                    bb: lbb.get(),
                    parent: Some((index, true)),
                });
            }
        }
    }
    tree
}

/// A triangle as [`build_tree`] splits it: the box of its corners and its centroid
/// (as `f32`, see [`is_below`]).
struct Triangle {
    bb: [f32; 6],
    centroid: [f32; 3],
}

/// The corners of the triangle whose coordinate indices are `t` (a missing position
/// reads as the origin).
#[inline(always)]
fn corners(positions: &[[f32; 3]], t: &[u32]) -> [[f32; 3]; 3] {
    [0, 1, 2].map(|k| {
        t.get(k)
            .and_then(|&i| positions.get(i as usize))
            .copied()
            .unwrap_or_default()
    })
}

/// A triangle's centroid on one axis, from its corners' coordinates, in `f64`: what a
/// split compares with its middle.
#[inline(always)]
fn centroid([a, b, c]: [f32; 3]) -> f64 {
    (f64::from(a) + f64::from(b) + f64::from(c)) / 3.0
}

/// Whether a centroid coordinate (in `f64`, as `exact` computes it) is below `mid`,
/// told from its value rounded to `f32`, `c32`. Rounding moves it by at most half an
/// `f32` step (at most |c32| × 2⁻²⁴, or 2⁻¹⁵⁰ below the normal range), so when `c32`
/// is farther than twice that from `mid` it is on the same side; otherwise (a centroid
/// at the middle, or not finite, or a middle that is NaN) it is computed again. The
/// answer is always the `f64` comparison's, and the centroids take half the memory.
#[inline(always)]
fn is_below(c32: f32, mid: f64, exact: impl Fn() -> f64) -> bool {
    match side(c32, mid) {
        (below, false) => below,
        (_, true) => exact() < mid,
    }
}

/// [`is_below`] without the exact value: whether `c32` is below `mid`, and whether
/// that may not be the exact centroid's side (then the side is to be found again).
/// Without branches.
#[inline(always)]
fn side(c32: f32, mid: f64) -> (bool, bool) {
    /// 2⁻²³: twice the largest rounding to `f32`, relative to the value.
    const STEP: f64 = 1.0 / 8_388_608.0;
    /// Above 2⁻¹⁴⁹ (the smallest `f32` step): twice the rounding below the normal range.
    const TINY: f64 = 1.5e-45;
    let c = f64::from(c32);
    let d = c - mid;
    // NaN anywhere leaves `sure` false.
    let sure = d.abs() > c.abs() * STEP + TINY;
    (d < 0.0, !sure)
}

/// A box that grows to anything: +∞ minima, −∞ maxima.
const EMPTY: [f32; 6] = [
    f32::INFINITY,
    f32::INFINITY,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NEG_INFINITY,
    f32::NEG_INFINITY,
];

/// Grows box `bb` to hold box `b`. As `f64::min`/`max` compile on x86-64 (and as
/// UNIGINE's files show): NaN is ignored, and on a tie (+0 against −0) the box keeps
/// its value. That is associative, so growing by per-triangle boxes gives the same bits
/// as growing by each corner in turn; and min/max are exact, so folding in `f32` and
/// widening gives what folding the widened corners gives.
#[inline(always)]
#[allow(clippy::indexing_slicing)] // fixed-size arrays, constant indices
fn grow(bb: &mut [f32; 6], b: &[f32; 6]) {
    for a in 0..3 {
        if b[a] < bb[a] {
            bb[a] = b[a];
        }
        if b[a + 3] > bb[a + 3] {
            bb[a + 3] = b[a + 3];
        }
    }
}

/// A box being grown in a loop: minima and maxima as four lanes each (the last lane
/// repeats the third), so each side is one vector minimum or maximum. On x86-64,
/// `if x < m { x } else { m }` is exactly what `minps x, m` computes, NaN and ±0 ties
/// included, which is [`grow`]'s rule.
#[derive(Clone, Copy)]
struct Grow {
    lo: [f32; 4],
    hi: [f32; 4],
}

impl Grow {
    const EMPTY: Grow = Grow {
        lo: [f32::INFINITY; 4],
        hi: [f32::NEG_INFINITY; 4],
    };

    #[inline(always)]
    #[allow(clippy::indexing_slicing)] // fixed-size arrays, constant indices
    fn add(&mut self, b: &[f32; 6]) {
        let lo = [b[0], b[1], b[2], b[2]];
        let hi = [b[3], b[4], b[5], b[5]];
        for k in 0..4 {
            self.lo[k] = if lo[k] < self.lo[k] {
                lo[k]
            } else {
                self.lo[k]
            };
            self.hi[k] = if hi[k] > self.hi[k] {
                hi[k]
            } else {
                self.hi[k]
            };
        }
    }

    #[inline(always)]
    #[allow(clippy::indexing_slicing)] // fixed-size arrays, constant indices
    fn get(self) -> [f32; 6] {
        [
            self.lo[0], self.lo[1], self.lo[2], self.hi[0], self.hi[1], self.hi[2],
        ]
    }
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
    let normals: Vec<[f64; 3]> = (0..n).map(normal).collect();
    let mut flags = vec![0u8; n];
    // Side `b` of triangle `t` (opposite corner `b`) is a feature edge unless `o`, the
    // first other triangle with the same side, is coplanar or concave: its corner `c`
    // off the side lies above `t`'s plane.
    let mut mark = |t: usize, b: usize, o: Option<(usize, usize)>| {
        let flat = o.is_some_and(|(o, c)| {
            let (x, y) = (normals.get(t), normals.get(o));
            let coplanar = x
                .zip(y)
                .is_some_and(|(x, y)| x[0] * y[0] + x[1] * y[1] + x[2] * y[2] > COPLANAR_COS);
            let (e, f) = (corner(t, (b + 1) % 3), corner(o, c));
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
    };
    let key = |p: u32, q: u32| (u64::from(p.min(q)) << 32) | u64::from(p.max(q));
    let side_key = |t: usize, b: usize| key(idx(t, (b + 1) % 3), idx(t, (b + 2) % 3));
    let top = ci
        .get(..3 * n)
        .and_then(|c| c.iter().max())
        .map_or(0, |&m| m as usize);
    if n <= u32::MAX as usize && top <= ci.len() + positions.len() {
        // The triangles around each index (counting sort, so each list ascends): a
        // side's first other triangle is the first one around either end of it, the
        // end with fewer, that has the same side. No sort, no hashing.
        let mut first = vec![0usize; top + 2];
        for &i in ci.get(..3 * n).unwrap_or_default() {
            if let Some(c) = first.get_mut(i as usize + 2) {
                *c += 1;
            }
        }
        let mut sum = 0;
        for c in first.iter_mut().skip(2) {
            sum += *c;
            *c = sum;
        }
        // `first[i + 1]` counts up as index i's triangles are filled in; after, `first[i]`
        // to `first[i + 1]` is index i's list.
        let mut around = vec![0u32; 3 * n];
        for (k, &i) in ci.get(..3 * n).unwrap_or_default().iter().enumerate() {
            if let Some(c) = first.get_mut(i as usize + 1) {
                if let Some(slot) = around.get_mut(*c) {
                    *slot = (k / 3) as u32;
                }
                *c += 1;
            }
        }
        let list = |i: u32| {
            let i = i as usize;
            around
                .get(first.get(i).copied().unwrap_or(0)..first.get(i + 1).copied().unwrap_or(0))
                .unwrap_or_default()
        };
        for t in 0..n {
            for b in 0..3 {
                let (p, q) = (idx(t, (b + 1) % 3), idx(t, (b + 2) % 3));
                let want = key(p, q);
                let (lp, lq) = (list(p), list(q));
                let near = if lq.len() < lp.len() { lq } else { lp };
                let other = near.iter().map(|&o| o as usize).find_map(|o| {
                    (0..3)
                        .find(|&c| o != t && side_key(o, c) == want)
                        .map(|c| (o, c))
                });
                mark(t, b, other);
            }
        }
        return flags;
    }
    // Indices far beyond the positions: every (edge, triangle, corner), sorted by
    // edge; the triangles sharing an edge are neighbours, in triangle order.
    let mut sides: Vec<(u64, u32, u8)> = Vec::with_capacity(3 * n);
    for t in 0..n {
        for b in 0..3u8 {
            sides.push((side_key(t, usize::from(b)), t as u32, b));
        }
    }
    sides.sort_unstable();
    let mut start = 0;
    while start < sides.len() {
        let edge = sides[start].0;
        let end = start + sides[start..].iter().take_while(|s| s.0 == edge).count();
        let group = &sides[start..end];
        for &(_, t, b) in group {
            let other = group
                .iter()
                .find(|s| s.1 != t)
                .map(|s| (s.1 as usize, usize::from(s.2)));
            mark(t as usize, usize::from(b), other);
        }
        start = end;
    }
    flags
}

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::write_all;
    use proptest::prelude::*;

    fn bytes(t: &Ms14Tree) -> Vec<u8> {
        write_all(&[], t, 1024, ()).unwrap()
    }

    /// A coordinate: few distinct values, so triangles share positions, tie on splits
    /// and sit on both sides of a middle; signed zeros, infinities and NaN included.
    fn coordinate() -> impl Strategy<Value = f32> {
        prop_oneof![
            6 => (-4i8..=4).prop_map(|v| f32::from(v) * 0.5),
            2 => any::<f32>(),
            1 => prop_oneof![
                Just(0.0f32),
                Just(-0.0),
                Just(f32::NAN),
                Just(f32::INFINITY),
                Just(f32::NEG_INFINITY),
                Just(1e-30)
            ],
        ]
    }

    fn mesh() -> impl Strategy<Value = (Vec<[f32; 3]>, Vec<u32>, usize)> {
        (proptest::collection::vec([coordinate(), coordinate(), coordinate()], 0..40))
            .prop_flat_map(|p| {
                // Indices mostly in range, a few past the end (read as the origin);
                // repeated indices give degenerate triangles and repeated edges.
                let top = p.len() as u32 + 2;
                (
                    Just(p),
                    proptest::collection::vec(0..top, 0..300),
                    1usize..7,
                )
            })
    }

    /// A grid of quads: many shared edges, coplanar and not.
    fn grid() -> impl Strategy<Value = (Vec<[f32; 3]>, Vec<u32>, usize)> {
        (
            2u32..25,
            2u32..25,
            proptest::collection::vec(-2i8..=2, 1..8),
            1usize..7,
        )
            .prop_map(|(w, h, bumps, leaf)| {
                let positions = (0..w * h)
                    .map(|i| {
                        let (x, y) = (i % w, i / w);
                        let z = bumps.get(i as usize % bumps.len()).copied().unwrap_or(0);
                        [x as f32, f32::from(z) * 0.25, y as f32]
                    })
                    .collect();
                let mut ci = Vec::new();
                for y in 0..h - 1 {
                    for x in 0..w - 1 {
                        let c = [
                            y * w + x,
                            y * w + x + 1,
                            (y + 1) * w + x + 1,
                            (y + 1) * w + x,
                        ];
                        ci.extend([c[0], c[1], c[2], c[0], c[2], c[3]]);
                    }
                }
                (positions, ci, leaf)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The fast tree and edge flags are the first implementation's, byte for byte.
        #[test]
        fn build_tree_equals_reference((p, ci, leaf) in prop_oneof![mesh(), grid()]) {
            let fast = build_tree(&p, &ci, leaf);
            let slow = reference::build_tree(&p, &ci, leaf);
            prop_assert_eq!(bytes(&fast), bytes(&slow));
            prop_assert_eq!(fast.to_bytes().unwrap(), bytes(&fast));
        }
    }
}
