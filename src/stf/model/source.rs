//! A mesh as the writer reads it ([`MeshSource`]): one array property ([`Prop`]) at a
//! time, each value encoded by [`push_float`] and [`push_uint`] whatever the source
//! (the decoded model here, a mesh where it lies in `view`, a scene mesh in
//! `stf::import`), so every way of writing a mesh gives the same bytes.

use std::borrow::Cow;

use super::StfMesh;

/// Floats of `width` bytes (4 or 8), little-endian.
pub(crate) fn float_bytes<'a>(values: impl IntoIterator<Item = &'a f64>, width: u64) -> Vec<u8> {
    let values = values.into_iter();
    let mut out = Vec::with_capacity(encoded_len(values.size_hint().0, width));
    for &v in values {
        push_float(&mut out, v, width);
    }
    out
}

/// Unsigned integers of `width` bytes (1, 2, 4 or 8), little-endian.
pub(crate) fn uint_bytes<'a>(values: impl IntoIterator<Item = &'a u64>, width: u64) -> Vec<u8> {
    let values = values.into_iter();
    let mut out = Vec::with_capacity(encoded_len(values.size_hint().0, width));
    for &v in values {
        push_uint(&mut out, v, width);
    }
    out
}

/// The bytes `count` values of `width` bytes take (no more than 8 bytes each, as
/// [`push_float`] and [`push_uint`] write them).
pub(crate) fn encoded_len(count: usize, width: u64) -> usize {
    count.saturating_mul(width.min(8) as usize)
}

/// A float as `width` bytes: 8 as it is, else as an `f32`. Both ways of writing a mesh
/// (from [`StfMesh`], and from its arrays where they lie) encode every value here.
pub(crate) fn push_float(out: &mut Vec<u8>, v: f64, width: u64) {
    if width == 8 {
        out.extend_from_slice(&v.to_le_bytes());
    } else {
        out.extend_from_slice(&(v as f32).to_le_bytes());
    }
}

/// An unsigned integer as its low `width` bytes (none for a width over 8).
pub(crate) fn push_uint(out: &mut Vec<u8>, v: u64, width: u64) {
    out.extend_from_slice(v.to_le_bytes().get(..width as usize).unwrap_or_default());
}

/// An array property of a mesh, as [`MeshSource`] gives it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Prop {
    Vertices,
    FaceCorners,
    Splits,
    SplitNormals,
    SplitColors,
    /// The UV set at this position.
    Uv(usize),
    Tris,
    Faces,
    MaterialIndices,
    /// `indices` of the blendshape at this position.
    BlendIndices(usize),
    /// `position_offsets` of the blendshape at this position.
    BlendOffsets(usize),
    /// `split_indices` of the blendshape at this position.
    BlendSplitIndices(usize),
    /// `split_normals` of the blendshape at this position.
    BlendSplitNormals(usize),
}

impl Prop {
    /// Whether the property holds floats (else indices).
    pub(crate) fn is_float(self) -> bool {
        matches!(
            self,
            Prop::Vertices
                | Prop::SplitNormals
                | Prop::SplitColors
                | Prop::Uv(_)
                | Prop::BlendOffsets(_)
                | Prop::BlendSplitNormals(_)
        )
    }
}

/// The values of a blendshape that are not arrays.
pub(crate) struct BlendHead {
    pub(crate) name: String,
    pub(crate) default_value: f64,
    pub(crate) limit_upper: f64,
    pub(crate) limit_lower: f64,
}

/// A mesh as `MeshWriter` (stf/write/mesh.rs) writes it: the decoded model ([`StfMesh`]), or a mesh's
/// arrays where they lie in the container (each decoded as it is encoded). Arrays are
/// asked for one at a time, so a source may hold only the one being written.
pub(crate) trait MeshSource {
    /// The resource id.
    fn id(&self) -> &str;
    /// [`StfMesh::problems`].
    fn problems(&self) -> Vec<String>;
    /// [`StfMesh::name`].
    fn name(&self) -> &str;
    /// [`StfMesh::float_width`].
    fn float_width(&self) -> u64;
    /// [`StfMesh::indices_width`].
    fn indices_width(&self) -> u64;
    /// [`StfMesh::material_slots`].
    fn material_slots(&self) -> Vec<Option<String>>;
    /// The UV sets' names, in order.
    fn uv_names(&self) -> Vec<String>;
    /// The blendshapes, in order.
    fn blendshapes(&self) -> Vec<BlendHead>;
    /// Whether the mesh has the property (required ones always).
    fn has(&self, p: Prop) -> bool;
    /// The largest value of an index property (0 when empty or absent).
    fn max(&self, p: Prop) -> u64;
    /// The property's values, in order, each as `width` bytes ([`push_float`],
    /// [`push_uint`]); empty when absent.
    fn encode(&self, p: Prop, width: u64) -> Vec<u8>;
    /// The property is written: what holds it may let it go.
    fn spend(&mut self, p: Prop);
}

/// The values of one property of an [`StfMesh`], flat.
enum Values<'m> {
    Floats(&'m [f64]),
    Uints(&'m [u64]),
}

/// Property `p` of `m`.
fn values(m: &StfMesh, p: Prop) -> Option<Values<'_>> {
    let blend = |k: usize| m.blendshapes.get(k);
    Some(match p {
        Prop::Vertices => Values::Floats(m.vertices.as_flattened()),
        Prop::FaceCorners => Values::Uints(&m.face_corners),
        Prop::Splits => Values::Uints(&m.splits),
        Prop::SplitNormals => Values::Floats(m.split_normals.as_ref()?.as_flattened()),
        Prop::SplitColors => Values::Floats(m.split_colors.as_ref()?.as_flattened()),
        Prop::Uv(k) => Values::Floats(m.uvs.get(k)?.1.as_flattened()),
        Prop::Tris => Values::Uints(m.tris.as_flattened()),
        Prop::Faces => Values::Uints(&m.faces),
        Prop::MaterialIndices => Values::Uints(m.material_indices.as_ref()?),
        Prop::BlendIndices(k) => Values::Uints(blend(k)?.indices.as_ref()?),
        Prop::BlendOffsets(k) => Values::Floats(blend(k)?.position_offsets.as_flattened()),
        Prop::BlendSplitIndices(k) => Values::Uints(blend(k)?.split_indices.as_ref()?),
        Prop::BlendSplitNormals(k) => {
            Values::Floats(blend(k)?.split_normals.as_ref()?.as_flattened())
        }
    })
}

/// The decoded model; an owned one gives up each array once it is written, so the
/// model and the new buffers are not held whole together.
impl MeshSource for Cow<'_, StfMesh> {
    fn id(&self) -> &str {
        &self.id
    }

    fn problems(&self) -> Vec<String> {
        StfMesh::problems(self)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn float_width(&self) -> u64 {
        self.float_width
    }

    fn indices_width(&self) -> u64 {
        self.indices_width
    }

    fn material_slots(&self) -> Vec<Option<String>> {
        self.material_slots.clone()
    }

    fn uv_names(&self) -> Vec<String> {
        self.uvs.iter().map(|(name, _)| name.clone()).collect()
    }

    fn blendshapes(&self) -> Vec<BlendHead> {
        self.blendshapes
            .iter()
            .map(|b| BlendHead {
                name: b.name.clone(),
                default_value: b.default_value,
                limit_upper: b.limit_upper,
                limit_lower: b.limit_lower,
            })
            .collect()
    }

    fn has(&self, p: Prop) -> bool {
        values(self, p).is_some()
    }

    fn max(&self, p: Prop) -> u64 {
        match values(self, p) {
            Some(Values::Uints(v)) => v.iter().copied().max().unwrap_or(0),
            _ => 0,
        }
    }

    fn encode(&self, p: Prop, width: u64) -> Vec<u8> {
        match values(self, p) {
            Some(Values::Floats(v)) => float_bytes(v, width),
            Some(Values::Uints(v)) => uint_bytes(v, width),
            None => Vec::new(),
        }
    }

    fn spend(&mut self, p: Prop) {
        fn clear<T>(v: &mut Option<Vec<T>>) {
            if let Some(v) = v {
                *v = Vec::new();
            }
        }
        let Cow::Owned(m) = self else {
            return;
        };
        let blend = m.blendshapes.get_mut(match p {
            Prop::BlendIndices(k)
            | Prop::BlendOffsets(k)
            | Prop::BlendSplitIndices(k)
            | Prop::BlendSplitNormals(k) => k,
            _ => usize::MAX,
        });
        match (p, blend) {
            (Prop::Vertices, _) => m.vertices = Vec::new(),
            (Prop::FaceCorners, _) => m.face_corners = Vec::new(),
            (Prop::Splits, _) => m.splits = Vec::new(),
            (Prop::SplitNormals, _) => clear(&mut m.split_normals),
            (Prop::SplitColors, _) => clear(&mut m.split_colors),
            (Prop::Uv(k), _) => {
                if let Some((_, uv)) = m.uvs.get_mut(k) {
                    *uv = Vec::new();
                }
            }
            (Prop::Tris, _) => m.tris = Vec::new(),
            (Prop::Faces, _) => m.faces = Vec::new(),
            (Prop::MaterialIndices, _) => clear(&mut m.material_indices),
            (Prop::BlendIndices(_), Some(b)) => clear(&mut b.indices),
            (Prop::BlendOffsets(_), Some(b)) => b.position_offsets = Vec::new(),
            (Prop::BlendSplitIndices(_), Some(b)) => clear(&mut b.split_indices),
            (Prop::BlendSplitNormals(_), Some(b)) => clear(&mut b.split_normals),
            (_, None) => {}
        }
    }
}
