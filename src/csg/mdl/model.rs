//! One union mesh, whatever the CSGMDL version, and writing any version from it.
//!
//! The model holds what every version stores per vertex (position, normal, colour,
//! NormalId, UV, tangent) and the mesh's triangles (LOD 0, its first index range), and
//! carries what only some versions store so that a blob written back in its own version
//! keeps its bytes: the 32-byte hash and the per-vertex reserved bytes (2, 4), version
//! 4's list after the mesh, version 5's quantized normal and tangent bytes (reused while
//! they still decode to the model's vectors) and the further index ranges (levels of
//! detail: version 5's, and version 4's when its list is range markers), which versions
//! 4 and 5 both hold and version 2 does not.
//!
//! The loss report of a conversion is found by doing it: the target is written, read
//! back into a model, and compared with the source, value by value (bits for floats),
//! and what the target has no place for is named.

use super::raw::{
    decode_corners, encode_corners, Attribute, CountedU32, MdlBody, MdlHeader, MdlVertex, MeshV2,
    MeshV5, Quantized,
};
use super::CsgMdl;
use crate::error::{Error, ErrorKind, Result};
use crate::loss::{Loss, LossKind};

/// One vertex of a union mesh.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UnionVertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal (version 5 stores it quantized to 1/32767).
    pub normal: [f32; 3],
    /// RGBA colour.
    pub color: [u8; 4],
    /// The face of the source part (Roblox NormalId; 1–6 in real files).
    pub normal_id: u32,
    /// Texture coordinates.
    pub uv: [f32; 2],
    /// Tangent (quantized like the normal in version 5).
    pub tangent: [f32; 3],
}

/// What a source blob stored beyond the model's values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnionStored {
    /// Versions 2, 4: the 32-byte hash.
    pub hash: Option<[u8; 32]>,
    /// Versions 2, 4: each vertex's two 16-byte reserved runs, when any is not zero.
    pub reserved: Option<Vec<([u8; 16], [u8; 16])>>,
    /// Version 4: the list after the mesh.
    pub extra: Option<Vec<u32>>,
    /// Version 5: the quantized normals and tangents as stored.
    pub quantized: Option<(Quantized, Quantized)>,
    /// Every corner of every index range and the range markers: version 5's stream and
    /// markers, version 4's index list and the list after it when that is range
    /// markers ([`CsgMdl::index_ranges`]).
    pub ranges: Option<(Vec<u32>, Vec<u32>)>,
}

/// A union mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnionMesh {
    /// The vertices.
    pub vertices: Vec<UnionVertex>,
    /// The mesh's triangles: its first index range (LOD 0).
    pub triangles: Vec<[u32; 3]>,
    /// What the source stored beyond these values.
    pub stored: UnionStored,
}

fn invalid(msg: String) -> Error {
    Error::new("CSGMDL", ErrorKind::Invalid(msg))
}

fn triples(v: &[u32]) -> Vec<[u32; 3]> {
    v.chunks_exact(3)
        .map(|t| [t.first(), t.get(1), t.get(2)].map(|i| i.copied().unwrap_or(0)))
        .collect()
}

/// `(q − 0x7fff) / 32767`'s inverse: the quantized value whose dequantization is `x`
/// (every stored value but 0xffff, which reads as −32768/32767, comes back exactly).
pub fn quantize(x: f32) -> u16 {
    let q = (f64::from(x) * 32767.0).round().clamp(-32767.0, 32767.0) as i32;
    (q + 0x7fff) as u16
}

fn quantized_of(v: &[[f32; 3]]) -> Quantized {
    let bytes: Vec<u8> = v
        .iter()
        .flat_map(|c| c.map(quantize))
        .flat_map(u16::to_le_bytes)
        .collect();
    Quantized {
        count: v.len() as u16,
        bytes: bytes.into(),
    }
}

impl UnionMesh {
    /// Reads a blob into the model.
    pub fn read(bytes: &[u8]) -> Result<UnionMesh> {
        UnionMesh::from_blob(&CsgMdl::read(bytes)?)
    }

    /// The model of a raw blob.
    pub fn from_blob(blob: &CsgMdl) -> Result<UnionMesh> {
        match &blob.body {
            MdlBody::Plain(m) => {
                // A list of range markers after the mesh: the triangles are the first
                // range, the others carried with the markers.
                let ranges = blob.index_ranges();
                let (triangles, ranges) = match (ranges.first(), &m.extra) {
                    (Some(first), Some(e)) if ranges.len() > 1 => (
                        triples(m.indices.get(first.clone()).unwrap_or_default()),
                        Some((m.indices.to_vec(), e.values.to_vec())),
                    ),
                    _ => (triples(&m.indices), None),
                };
                let zero = [0u8; 16];
                let reserved = m
                    .vertices
                    .iter()
                    .any(|v| v.reserved1 != zero || v.reserved2 != zero)
                    .then(|| {
                        m.vertices
                            .iter()
                            .map(|v| (v.reserved1, v.reserved2))
                            .collect()
                    });
                Ok(UnionMesh {
                    vertices: m
                        .vertices
                        .iter()
                        .map(|v| UnionVertex {
                            position: v.position,
                            normal: v.normal,
                            color: v.color,
                            normal_id: v.normal_id,
                            uv: v.uv,
                            tangent: v.tangent,
                        })
                        .collect(),
                    triangles,
                    stored: UnionStored {
                        hash: Some(m.hash),
                        reserved,
                        extra: m.extra.as_ref().map(|e| e.values.to_vec()),
                        ranges,
                        ..UnionStored::default()
                    },
                })
            }
            MdlBody::Packed(m) => {
                let n = m.positions.values.len();
                let same = |len: usize, what: &str| {
                    if len == n {
                        Ok(())
                    } else {
                        Err(invalid(format!("{len} {what} for {n} positions")))
                    }
                };
                let normals = m
                    .normals
                    .vectors()
                    .ok_or_else(|| invalid("normal bytes are not 6 per normal".into()))?;
                let tangents = m
                    .tangents
                    .vectors()
                    .ok_or_else(|| invalid("tangent bytes are not 6 per tangent".into()))?;
                same(normals.len(), "normals")?;
                same(tangents.len(), "tangents")?;
                same(m.colors.values.len(), "colours")?;
                same(m.normal_ids.values.len(), "NormalIds")?;
                same(m.uvs.values.len(), "UVs")?;
                let corners = decode_corners(&m.faces, m.index_count).map_err(invalid)?;
                let triangles = m.triangles().map_err(invalid)?;
                let vertices = (0..n)
                    .map(|i| UnionVertex {
                        position: m.positions.values.get(i).copied().unwrap_or_default(),
                        normal: normals.get(i).copied().unwrap_or_default(),
                        color: m.colors.values.get(i).copied().unwrap_or_default(),
                        normal_id: m.normal_ids.values.get(i).copied().map_or(0, u32::from),
                        uv: m.uvs.values.get(i).copied().unwrap_or_default(),
                        tangent: tangents.get(i).copied().unwrap_or_default(),
                    })
                    .collect();
                if !m.tail.is_empty() {
                    return Err(invalid(format!(
                        "{} bytes after the range markers",
                        m.tail.len()
                    )));
                }
                Ok(UnionMesh {
                    vertices,
                    triangles,
                    stored: UnionStored {
                        quantized: Some((m.normals.clone(), m.tangents.clone())),
                        ranges: Some((corners, m.ranges.to_vec())),
                        ..UnionStored::default()
                    },
                })
            }
        }
    }

    /// The blob of version `version` (2, 4 or 5).
    pub fn to_blob(&self, version: u32) -> Result<CsgMdl> {
        let n = self.vertices.len();
        if let Some(t) = self.triangles.iter().flatten().find(|&&i| i as usize >= n) {
            return Err(invalid(format!("corner {t} of {n} vertices")));
        }
        let indices: Vec<u32> = self.triangles.iter().flatten().copied().collect();
        // Further ranges carried while the first one is still the triangles.
        let carried = self.carried_ranges(&indices);
        let body = match version {
            2 | 4 => {
                let reserved = self.stored.reserved.as_ref().filter(|r| r.len() == n);
                // Version 4 holds further ranges as its list of markers; version 2 has no
                // place for them.
                let (indices, extra) = match (version, carried) {
                    (4, Some((corners, markers))) => (
                        corners.clone(),
                        Some(self.stored.extra.clone().unwrap_or_else(|| markers.clone())),
                    ),
                    _ => (indices, self.stored.extra.clone()),
                };
                MdlBody::Plain(MeshV2 {
                    hash: self.stored.hash.unwrap_or([0; 32]),
                    vertex_size: 84,
                    vertices: self
                        .vertices
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            let (r1, r2) = reserved
                                .and_then(|r| r.get(i).copied())
                                .unwrap_or(([0; 16], [0; 16]));
                            MdlVertex {
                                position: v.position,
                                normal: v.normal,
                                color: v.color,
                                normal_id: v.normal_id,
                                uv: v.uv,
                                reserved1: r1,
                                tangent: v.tangent,
                                reserved2: r2,
                            }
                        })
                        .collect(),
                    indices: indices.into(),
                    extra: (version == 4).then(|| CountedU32 {
                        values: extra.unwrap_or_default().into(),
                    }),
                })
            }
            5 => {
                if u16::try_from(n).is_err() {
                    return Err(invalid(format!(
                        "{n} vertices: version 5 holds at most 65535"
                    )));
                }
                let normals: Vec<[f32; 3]> = self.vertices.iter().map(|v| v.normal).collect();
                let tangents: Vec<[f32; 3]> = self.vertices.iter().map(|v| v.tangent).collect();
                // The stored bytes while they still decode to the model's vectors.
                let keep = |stored: Option<&Quantized>, v: &[[f32; 3]]| match stored {
                    Some(q) if q.vectors().as_deref() == Some(v) => q.clone(),
                    _ => quantized_of(v),
                };
                let q = self.stored.quantized.as_ref();
                let normals = keep(q.map(|q| &q.0), &normals);
                let tangents = keep(q.map(|q| &q.1), &tangents);
                let (corners, ranges) = match carried {
                    Some((corners, ranges)) => (corners.clone(), ranges.clone()),
                    None => {
                        let end = u32::try_from(indices.len())
                            .map_err(|_| invalid("too many corners".into()))?;
                        (indices.clone(), vec![0, end])
                    }
                };
                let ids = self
                    .vertices
                    .iter()
                    .map(|v| {
                        u8::try_from(v.normal_id).map_err(|_| {
                            invalid(format!(
                                "NormalId {} does not fit version 5's byte",
                                v.normal_id
                            ))
                        })
                    })
                    .collect::<Result<Vec<u8>>>()?;
                MdlBody::Packed(MeshV5 {
                    positions: Attribute {
                        values: self.vertices.iter().map(|v| v.position).collect(),
                    },
                    normals,
                    colors: Attribute {
                        values: self.vertices.iter().map(|v| v.color).collect(),
                    },
                    normal_ids: Attribute { values: ids.into() },
                    uvs: Attribute {
                        values: self.vertices.iter().map(|v| v.uv).collect(),
                    },
                    tangents,
                    index_count: u32::try_from(corners.len())
                        .map_err(|_| invalid("too many corners".into()))?,
                    faces: encode_corners(&corners).map_err(invalid)?.into(),
                    ranges: ranges.into(),
                    tail: Vec::new(),
                })
            }
            v => return Err(invalid(format!("CSGMDL version {v}: 2, 4 or 5 expected"))),
        };
        Ok(CsgMdl {
            header: MdlHeader { version },
            body,
        })
    }

    /// The stored ranges while their first is still the triangles (`indices`) and the
    /// markers rise from 0 to the last corner.
    fn carried_ranges(&self, indices: &[u32]) -> Option<&(Vec<u32>, Vec<u32>)> {
        self.stored.ranges.as_ref().filter(|(corners, ranges)| {
            ranges.len() >= 2
                && ranges.first() == Some(&0)
                && corners.get(..indices.len()) == Some(indices)
                && ranges.get(1).map(|&r| r as usize) == Some(indices.len())
                && ranges.last().map(|&r| r as usize) == Some(corners.len())
                && ranges.windows(2).all(|w| matches!(w, [a, b] if a <= b))
        })
    }

    /// Converts to `version`, with the report of what the target loses: it is written,
    /// read back and compared with this mesh.
    pub fn convert(&self, version: u32) -> Result<(Vec<u8>, Vec<Loss>)> {
        let bytes = self.to_blob(version)?.write()?;
        let back = UnionMesh::read(&bytes)?;
        let mut losses = Vec::new();
        let mut lose = |kind: LossKind, detail: String| losses.push(Loss::new(kind, detail));
        let differ = |f: &dyn Fn(&UnionVertex, &UnionVertex) -> bool| {
            self.vertices
                .iter()
                .zip(&back.vertices)
                .filter(|(a, b)| f(a, b))
                .count()
        };
        let bits3 = |v: [f32; 3]| v.map(f32::to_bits);
        let normals = differ(&|a, b| bits3(a.normal) != bits3(b.normal));
        if normals > 0 {
            lose(
                LossKind::NormalPrecision,
                format!("{normals} normals quantized to 1/32767 (version 5 stores 16 bits)"),
            );
        }
        let tangents = differ(&|a, b| bits3(a.tangent) != bits3(b.tangent));
        if tangents > 0 {
            lose(
                LossKind::Tangents,
                format!("{tangents} tangents quantized to 1/32767 (version 5 stores 16 bits)"),
            );
        }
        let other = differ(&|a, b| {
            bits3(a.position) != bits3(b.position)
                || a.color != b.color
                || a.normal_id != b.normal_id
                || a.uv.map(f32::to_bits) != b.uv.map(f32::to_bits)
        });
        if other > 0
            || back.vertices.len() != self.vertices.len()
            || back.triangles != self.triangles
        {
            lose(
                LossKind::Values,
                format!("{other} vertices or the triangles change"),
            );
        }
        if self
            .stored
            .hash
            .is_some_and(|h| back.stored.hash != Some(h))
        {
            lose(
                LossKind::HeaderBytes,
                format!("the 32-byte hash (version {version} has none)"),
            );
        }
        if self.stored.hash.is_none() && back.stored.hash.is_some() {
            lose(
                LossKind::HeaderBytes,
                "the 32-byte hash is written as zeros: how Roblox computes it is unknown".into(),
            );
        }
        if self.stored.reserved.is_some() && back.stored.reserved != self.stored.reserved {
            lose(
                LossKind::Layout,
                "reserved vertex bytes that are not zero".into(),
            );
        }
        // A list that is the range markers goes with the ranges (reported below).
        let markers = self.stored.ranges.as_ref().map(|(_, r)| r);
        match (&self.stored.extra, &back.stored.extra) {
            (Some(e), _) if markers == Some(e) => {}
            (None, Some(b)) if markers == Some(b) => {}
            (Some(e), b) if b.as_ref() != Some(e) => lose(
                LossKind::Layout,
                format!("version 4's list after the mesh ({} values)", e.len()),
            ),
            (None, Some(_)) => lose(
                LossKind::Layout,
                "version 4's list after the mesh is written empty: its meaning is unknown".into(),
            ),
            _ => {}
        }
        if let Some((corners, ranges)) = &self.stored.ranges {
            let indices: Vec<u32> = self.triangles.iter().flatten().copied().collect();
            let trivial = *corners == indices && ranges[..] == [0, indices.len() as u32];
            if !trivial && back.stored.ranges.as_ref() != Some(&(corners.clone(), ranges.clone())) {
                lose(
                    LossKind::Lods,
                    format!(
                        "{} further index ranges after the mesh's own (coarser levels of detail; version {version} has no place for them)",
                        ranges.len().saturating_sub(2)
                    ),
                );
            }
        }
        Ok((bytes, losses))
    }
}

/// The Roblox NormalId of a direction: the axis its largest component lies on (Right
/// +X = 1, Top +Y = 2, Back +Z = 3, Left −X = 4, Bottom −Y = 5, Front −Z = 6, the
/// numbering of the real blobs). A union's NormalId names the face of the part a
/// triangle came from; for a mesh from elsewhere the vertex normal's direction is the
/// nearest stand-in, and the import report says so.
pub fn normal_id_of(n: [f32; 3]) -> u32 {
    let [x, y, z] = n.map(f32::abs);
    if x >= y && x >= z {
        if n[0] >= 0.0 {
            1
        } else {
            4
        }
    } else if y >= z {
        if n[1] >= 0.0 {
            2
        } else {
            5
        }
    } else if n[2] >= 0.0 {
        3
    } else {
        6
    }
}

impl UnionMesh {
    /// A union mesh from every primitive of a scene (their vertices one after another):
    /// positions, normals (+Y where absent), UVs, colours (white where absent),
    /// NormalIds from the normals ([`normal_id_of`]), zero tangents.
    pub fn from_scene(scene: &crate::scene::Scene) -> Result<UnionMesh> {
        let mut m = UnionMesh::default();
        for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
            p.check()?;
            let base = u32::try_from(m.vertices.len())
                .map_err(|_| invalid("more vertices than 32-bit indices reach".into()))?;
            for (i, &position) in p.positions.iter().enumerate() {
                let normal = p
                    .normals
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .copied()
                    .unwrap_or([0.0, 1.0, 0.0]);
                m.vertices.push(UnionVertex {
                    position,
                    normal,
                    color: p
                        .colors
                        .as_ref()
                        .and_then(|v| v.get(i))
                        .map_or([255; 4], |c| {
                            c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8)
                        }),
                    normal_id: normal_id_of(normal),
                    uv: p
                        .uvs
                        .as_ref()
                        .and_then(|v| v.get(i))
                        .copied()
                        .unwrap_or_default(),
                    tangent: [0.0; 3],
                });
            }
            for t in &p.triangles {
                let tri = t.map(|i| i.checked_add(base));
                let [Some(a), Some(b), Some(c)] = tri else {
                    return Err(invalid("more vertices than 32-bit indices reach".into()));
                };
                m.triangles.push([a, b, c]);
            }
        }
        Ok(m)
    }
}
