//! Roblox unions: CSGPHS collision data (versions 0, 3, 5, 6, 7, 8) as raw values and as
//! [`CsgMesh`] models (closed hulls Edgebreaker codes, and open or degenerate ones), and
//! CSGMDL union graphics as [`UnionMesh`] models.
//!
//! ```
//! use meshcodec::csg::phs::model::CsgMesh;
//! use meshcodec::strategy::{csg, Size};
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//!
//! // Any model written as version 8 (zstd, Edgebreaker) keeps its hulls' surfaces.
//! TestRunner::default()
//!     .run(&csg::model(Size::default()), |m| {
//!         let bytes = m.to_csgphs(8).unwrap().write().unwrap();
//!         let back = CsgMesh::read(&bytes).unwrap();
//!         prop_assert_eq!(back.hulls.len(), if m.block { 0 } else { m.hulls.len() });
//!         Ok(())
//!     })
//!     .unwrap();
//! ```

use proptest::collection::vec;
use proptest::prelude::*;

use super::Size;
use crate::csg::mdl::model::{normal_id_of, UnionVertex};
use crate::csg::mdl::UnionMesh;
use crate::csg::phs::model::{CsgHull, CsgLayout, CsgMesh};
use crate::csg::phs::raw::{
    Compressed, CsgBody, Csgphs, Hull, HullList, PhysicsHulls, PhysicsInfo, TypedPhysicsHulls,
};

// ---- CSGPHS, raw ----------------------------------------------------------------------

/// A raw hull record: preambles, vertices and indices of any bits.
pub fn hull(s: Size) -> impl Strategy<Value = Hull> {
    (
        vec(any::<u8>(), 0..20),
        vec(any::<u8>(), 0..20),
        vec(any::<u32>().prop_map(f32::from_bits), 0..s.n(12)),
        vec(any::<u32>(), 0..s.n(12)),
    )
        .prop_map(|(preamble1, preamble2, vertices, indices)| Hull {
            preamble1: preamble1.into(),
            preamble2: preamble2.into(),
            vertices: vertices.into(),
            indices: indices.into(),
        })
}

/// Physics info (volume, centre of gravity, inertia) of any bits.
pub fn physics() -> impl Strategy<Value = PhysicsInfo> {
    (any::<u32>(), any::<[u32; 3]>(), any::<[u32; 6]>()).prop_map(|(v, c, i)| PhysicsInfo {
        volume: f32::from_bits(v),
        center_of_gravity: c.map(f32::from_bits),
        inertia: i.map(f32::from_bits),
    })
}

/// A raw CSGPHS blob of `version` (0, 3, 5, 6, 7 or 8). Version 8's zstd frame holds
/// any bytes here (the raw layer keeps it as stored); [`model`] written as version 8
/// gives frames that decode.
///
/// # Panics
///
/// For a version CSGPHS does not have.
pub fn raw(version: u32, s: Size) -> BoxedStrategy<Csgphs> {
    let hulls = move || vec(hull(s), 0..s.n(4)).prop_map(|hulls| HullList { hulls });
    match version {
        0 => vec(any::<u8>(), 0..6)
            .prop_map(|trailing| Csgphs {
                version: 0,
                body: CsgBody::Block { trailing },
            })
            .boxed(),
        3 | 5 => hulls()
            .prop_map(move |h| Csgphs {
                version,
                body: CsgBody::Hulls(h),
            })
            .boxed(),
        6 => (physics(), hulls())
            .prop_map(|(physics, hulls)| Csgphs {
                version: 6,
                body: CsgBody::Physics(PhysicsHulls { physics, hulls }),
            })
            .boxed(),
        7 => (any::<u8>(), physics(), hulls())
            .prop_map(|(geometry_type, physics, hulls)| Csgphs {
                version: 7,
                body: CsgBody::Typed(TypedPhysicsHulls {
                    geometry_type,
                    physics,
                    hulls,
                }),
            })
            .boxed(),
        8 => (any::<u8>(), any::<u8>(), vec(any::<u8>(), 0..30))
            .prop_map(|(geometry_type, reserved, frame)| Csgphs {
                version: 8,
                body: CsgBody::Compressed(Compressed {
                    geometry_type,
                    reserved,
                    frame,
                }),
            })
            .boxed(),
        v => panic!("strategy::csg::raw: CSGPHS has no version {v} (0, 3, 5, 6, 7, 8)"),
    }
}

/// A raw CSGPHS blob of any version.
pub fn any_raw(s: Size) -> BoxedStrategy<Csgphs> {
    proptest::sample::select(crate::csg::phs::model::CSGPHS_VERSIONS.to_vec())
        .prop_flat_map(move |v| raw(v, s))
        .boxed()
}

// ---- CSGPHS, the model ------------------------------------------------------------------

/// A random genus-0 triangulation: a tetrahedron grown by face splits (1 → 3) and
/// randomised by edge flips that keep it a simple closed surface. Gives the vertex
/// count and the triangles. Each `(op, pick)` splits (`op % 3 == 0`) or flips an edge of
/// triangle `pick`.
pub fn triangulation(ops: &[(u8, u16)]) -> (usize, Vec<[u32; 3]>) {
    let mut tris: Vec<[u32; 3]> = vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];
    let mut n = 4u32;
    for &(op, pick) in ops {
        let i = pick as usize % tris.len();
        if op % 3 == 0 {
            let [a, b, c] = tris[i];
            tris[i] = [a, b, n];
            tris.push([b, c, n]);
            tris.push([c, a, n]);
            n += 1;
        } else {
            // Flip the edge (a, b) of triangle i with its neighbour (b, a, d).
            let k = usize::from(op) % 3;
            let t = tris[i];
            let (a, b, c) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
            let Some(j) = tris
                .iter()
                .position(|u| (0..3).any(|m| u[m] == b && u[(m + 1) % 3] == a))
            else {
                continue;
            };
            let u = tris[j];
            let Some(m) = (0..3).find(|&m| u[m] == b) else {
                continue;
            };
            let d = u[(m + 2) % 3];
            let exists = tris.iter().any(|t| t.contains(&c) && t.contains(&d));
            let degree = |v: u32| tris.iter().filter(|t| t.contains(&v)).count();
            if c == d || exists || degree(a) <= 3 || degree(b) <= 3 {
                continue;
            }
            tris[i] = [c, a, d];
            tris[j] = [d, b, c];
        }
    }
    (n as usize, tris)
}

/// The operations [`triangulation`] takes: up to `max` splits and flips.
pub fn triangulation_ops(max: usize) -> impl Strategy<Value = Vec<(u8, u16)>> {
    vec((any::<u8>(), any::<u16>()), 0..max.max(1))
}

/// A hull of anything at all: open, non-manifold, degenerate or empty.
pub fn junk_hull() -> impl Strategy<Value = CsgHull> {
    (1usize..8, vec(any::<[u8; 3]>(), 0..10)).prop_map(|(n, t)| {
        let positions = (0..n).map(|i| [i as f32, 0.5, -(i as f32)]).collect();
        let triangles = t
            .iter()
            .map(|t| t.map(|v| u32::from(v) % n as u32))
            .collect();
        CsgHull::new(positions, triangles)
    })
}

/// A closed genus-0 hull ([`triangulation`]), as real unions hold.
pub fn closed_hull(s: Size) -> impl Strategy<Value = CsgHull> {
    (triangulation_ops(s.n(40)), any::<i8>()).prop_map(|(ops, shift)| {
        let (n, triangles) = triangulation(&ops);
        let positions = (0..n)
            .map(|i| [i as f32 + f32::from(shift), (i % 7) as f32, 0.25 * i as f32])
            .collect();
        CsgHull::new(positions, triangles)
    })
}

/// A CSGPHS model: closed hulls mostly, junk ones sometimes, a geometry type maybe, or a
/// box (no hulls).
pub fn model(s: Size) -> impl Strategy<Value = CsgMesh> {
    (
        vec(
            prop_oneof![3 => closed_hull(s), 1 => junk_hull()],
            0..s.n(5),
        ),
        proptest::option::of(any::<u8>()),
        any::<bool>(),
    )
        .prop_map(|(hulls, geometry_type, block)| CsgMesh {
            block: block && hulls.is_empty(),
            geometry_type,
            physics: None,
            hulls,
            layout: CsgLayout::default(),
        })
}

// ---- CSGMDL -------------------------------------------------------------------------

fn unit_vector() -> impl Strategy<Value = [f32; 3]> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z)| {
        let l = (x * x + y * y + z * z).sqrt().max(1e-3);
        [x / l, y / l, z / l]
    })
}

/// Union graphics: finite positions and UVs, unit normals and tangents, any colour.
pub fn union_mesh(s: Size) -> impl Strategy<Value = UnionMesh> {
    (1usize..s.n(40)).prop_flat_map(move |n| {
        let vertex = (
            any::<[f32; 3]>(),
            unit_vector(),
            any::<[u8; 4]>(),
            any::<[f32; 2]>(),
            unit_vector(),
        )
            .prop_map(|(p, nrm, c, uv, t)| UnionVertex {
                position: p.map(|x| if x.is_finite() { x } else { 0.0 }),
                normal: nrm,
                color: c,
                normal_id: normal_id_of(nrm),
                uv: uv.map(|x| if x.is_finite() { x } else { 0.0 }),
                tangent: t,
            });
        (
            vec(vertex, n),
            vec([0..n as u32, 0..n as u32, 0..n as u32], 0..s.n(60)),
        )
            .prop_map(|(vertices, triangles)| UnionMesh {
                vertices,
                triangles,
                ..UnionMesh::default()
            })
    })
}

// ---- files ---------------------------------------------------------------------------

/// Valid CSGPHS blobs of `version`: raw values, and models written as that version
/// (version 8 only from models, so that its frame decodes).
pub(super) fn csgphs_file(version: u32, s: Size) -> BoxedStrategy<Vec<u8>> {
    let from_model = model(s).prop_filter_map("writes", move |m| {
        m.to_csgphs(version).ok().and_then(|c| c.write().ok())
    });
    if version == 8 {
        return from_model.boxed();
    }
    let raw = raw(version, s).prop_filter_map("writes", |c| c.write().ok());
    prop_oneof![raw, from_model].boxed()
}

/// Valid CSGMDL blobs of `version` (2, 4, 5).
pub(super) fn csgmdl_file(version: u32, s: Size) -> BoxedStrategy<Vec<u8>> {
    union_mesh(s)
        .prop_filter_map("writes", move |m| {
            m.to_blob(version).ok().and_then(|b| b.write().ok())
        })
        .boxed()
}

/// A CSGK reference: `CSGK` and 32 hexadecimal characters.
pub(super) fn csgk_file() -> BoxedStrategy<Vec<u8>> {
    "[0-9a-f]{32}"
        .prop_map(|key| [b"CSGK".as_slice(), key.as_bytes()].concat())
        .boxed()
}
