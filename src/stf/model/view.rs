//! One `stf.mesh` whose arrays lie in the container's buffers, resolved and checked
//! (`MeshView`): decoded into an [`StfMesh`], outlined for `info` and problems, or
//! encoded straight from the bytes as a [`MeshSource`] of the writer. Values are read
//! here (`float`, `uint`) for both ways, so they give the same numbers.

use serde_json::Value;

use super::outline::{BlendOutline, Ints, Outline};
use super::source::{encoded_len, push_float, push_uint, BlendHead, MeshSource, Prop};
use super::{StfBlendshape, StfMesh};

/// The bytes of a buffer (see `Buffers` in read.rs).
pub(super) enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Shared(std::rc::Rc<Vec<u8>>),
}

impl std::ops::Deref for Bytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(b) => b,
            Bytes::Shared(b) => b,
        }
    }
}
/// One array of a mesh as it lies in its buffer: elements of `n` values of `width`
/// bytes each (checked: a whole number of elements, `width * n` not zero), not decoded.
pub(super) struct Array<'a> {
    pub(super) bytes: Bytes<'a>,
    pub(super) width: usize,
    pub(super) n: usize,
}

impl Array<'_> {
    /// The number of elements.
    fn len(&self) -> usize {
        self.bytes
            .len()
            .checked_div(self.width * self.n)
            .unwrap_or(0)
    }

    /// Every value as an index, in order (elements one after the other).
    fn uints(&self) -> impl Iterator<Item = u64> + '_ {
        self.bytes.chunks_exact(self.width.max(1)).map(uint)
    }

    /// [`Array::uints`], and how many.
    fn ints(&self) -> Ints<'_> {
        Ints {
            len: self.len(),
            values: Box::new(self.uints()),
        }
    }

    /// The values as `width` bytes each, as decoding them and writing the model's
    /// values gives them: floats for a float array, else indices.
    fn encode(&self, float_values: bool, width: u64) -> Vec<u8> {
        let values = self.bytes.chunks_exact(self.width.max(1));
        let mut out = Vec::with_capacity(encoded_len(values.len(), width));
        for b in values {
            if float_values {
                push_float(&mut out, float(b), width);
            } else {
                push_uint(&mut out, uint(b), width);
            }
        }
        out
    }

    /// The elements as integers (an index array decoded).
    fn into_uints<const N: usize>(self) -> Vec<[u64; N]> {
        self.elements(uint)
    }

    /// The elements as floats.
    fn into_floats<const N: usize>(self) -> Vec<[f64; N]> {
        self.elements(float)
    }

    /// Each element's `N` values decoded by `value`.
    fn elements<T: Copy + Default, const N: usize>(&self, value: fn(&[u8]) -> T) -> Vec<[T; N]> {
        let width = self.width.max(1);
        self.bytes
            .chunks_exact(width * N)
            .map(|c| {
                let mut v = [T::default(); N];
                for (x, b) in v.iter_mut().zip(c.chunks_exact(width)) {
                    *x = value(b);
                }
                v
            })
            .collect()
    }
}

/// An `stf.mesh` resource with its arrays resolved and checked where they lie
/// (`MeshReader::read` in read.rs): what [`StfMesh`] decodes, and what `info` counts without
/// decoding.
pub(super) struct MeshView<'a> {
    pub(super) id: &'a str,
    pub(super) name: &'a str,
    pub(super) material_slots: Option<&'a Vec<Value>>,
    pub(super) float_width: u64,
    pub(super) indices_width: u64,
    pub(super) vertices: Array<'a>,
    pub(super) face_corners: Array<'a>,
    pub(super) splits: Array<'a>,
    pub(super) split_normals: Option<Array<'a>>,
    pub(super) split_colors: Option<Array<'a>>,
    pub(super) uvs: Vec<(&'a str, Array<'a>)>,
    pub(super) tris: Array<'a>,
    pub(super) faces: Array<'a>,
    pub(super) material_indices: Option<Array<'a>>,
    pub(super) blendshapes: Vec<BlendView<'a>>,
}

/// A blendshape of a [`MeshView`].
pub(super) struct BlendView<'a> {
    pub(super) name: &'a str,
    pub(super) default_value: f64,
    pub(super) limit_upper: f64,
    pub(super) limit_lower: f64,
    pub(super) indices: Option<Array<'a>>,
    pub(super) position_offsets: Array<'a>,
    pub(super) split_indices: Option<Array<'a>>,
    pub(super) split_normals: Option<Array<'a>>,
}

impl MeshView<'_> {
    /// The mesh decoded, array by array, each array's bytes let go once it is decoded
    /// (a buffer taken from the container is dropped after its last use).
    pub(super) fn decode(self) -> StfMesh {
        let flat = |a: Array<'_>| a.uints().collect::<Vec<u64>>();
        let flat_opt = |a: Option<Array<'_>>| a.map(flat);
        StfMesh {
            id: self.id.to_string(),
            name: self.name.to_string(),
            float_width: self.float_width,
            indices_width: self.indices_width,
            vertices: self.vertices.into_floats(),
            face_corners: flat(self.face_corners),
            splits: flat(self.splits),
            split_normals: self.split_normals.map(Array::into_floats),
            split_colors: self.split_colors.map(Array::into_floats),
            uvs: self
                .uvs
                .into_iter()
                .map(|(name, uv)| (name.to_string(), uv.into_floats()))
                .collect(),
            tris: self.tris.into_uints(),
            faces: flat(self.faces),
            material_indices: flat_opt(self.material_indices),
            material_slots: slots(self.material_slots),
            blendshapes: self
                .blendshapes
                .into_iter()
                .map(|b| StfBlendshape {
                    name: b.name.to_string(),
                    default_value: b.default_value,
                    limit_upper: b.limit_upper,
                    limit_lower: b.limit_lower,
                    indices: flat_opt(b.indices),
                    position_offsets: b.position_offsets.into_floats(),
                    split_indices: flat_opt(b.split_indices),
                    split_normals: b.split_normals.map(Array::into_floats),
                })
                .collect(),
        }
    }

    /// What `info` and [`StfMesh::problems`] look at, read from the buffers.
    pub(super) fn outline(&self) -> Outline<'_> {
        Outline {
            id: self.id,
            name: self.name,
            vertices: self.vertices.len(),
            splits: self.splits.len(),
            face_corners: self.face_corners.len(),
            tris: self.tris.len(),
            faces: self.faces.len(),
            tri_corners: Box::new(self.tris.uints()),
            corner_splits: Box::new(self.face_corners.uints()),
            split_vertices: Box::new(self.splits.uints()),
            face_tris: Box::new(self.faces.uints()),
            uvs: self.uvs.iter().map(|(n, uv)| (*n, uv.len())).collect(),
            normals: self.split_normals.is_some(),
            colors: self.split_colors.is_some(),
            blendshapes: self
                .blendshapes
                .iter()
                .map(|b| BlendOutline {
                    name: b.name,
                    offsets: b.position_offsets.len(),
                    indices: b.indices.as_ref().map(Array::ints),
                    split_indices: b.split_indices.as_ref().map(Array::ints),
                    split_normals: b.split_normals.as_ref().map(Array::len),
                })
                .collect(),
        }
    }
}

/// A mesh's material slots as the model holds them (a slot that is not a string is
/// `None`).
fn slots(list: Option<&Vec<Value>>) -> Vec<Option<String>> {
    list.map(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

impl<'a> MeshView<'a> {
    /// Property `p`'s array, if the mesh has it.
    fn array(&self, p: Prop) -> Option<&Array<'a>> {
        let blend = |k: usize| self.blendshapes.get(k);
        match p {
            Prop::Vertices => Some(&self.vertices),
            Prop::FaceCorners => Some(&self.face_corners),
            Prop::Splits => Some(&self.splits),
            Prop::SplitNormals => self.split_normals.as_ref(),
            Prop::SplitColors => self.split_colors.as_ref(),
            Prop::Uv(k) => self.uvs.get(k).map(|(_, uv)| uv),
            Prop::Tris => Some(&self.tris),
            Prop::Faces => Some(&self.faces),
            Prop::MaterialIndices => self.material_indices.as_ref(),
            Prop::BlendIndices(k) => blend(k)?.indices.as_ref(),
            Prop::BlendOffsets(k) => blend(k).map(|b| &b.position_offsets),
            Prop::BlendSplitIndices(k) => blend(k)?.split_indices.as_ref(),
            Prop::BlendSplitNormals(k) => blend(k)?.split_normals.as_ref(),
        }
    }
}

/// A mesh where it lies: each array decoded as it is encoded, value by value, to what
/// [`MeshView::decode`] and writing its [`StfMesh`] give (the same `float`/`uint`, the
/// same [`push_float`]/[`push_uint`]).
impl MeshSource for MeshView<'_> {
    fn id(&self) -> &str {
        self.id
    }

    fn problems(&self) -> Vec<String> {
        self.outline().problems()
    }

    fn name(&self) -> &str {
        self.name
    }

    fn float_width(&self) -> u64 {
        self.float_width
    }

    fn indices_width(&self) -> u64 {
        self.indices_width
    }

    fn material_slots(&self) -> Vec<Option<String>> {
        slots(self.material_slots)
    }

    fn uv_names(&self) -> Vec<String> {
        self.uvs.iter().map(|(name, _)| name.to_string()).collect()
    }

    fn blendshapes(&self) -> Vec<BlendHead> {
        self.blendshapes
            .iter()
            .map(|b| BlendHead {
                name: b.name.to_string(),
                default_value: b.default_value,
                limit_upper: b.limit_upper,
                limit_lower: b.limit_lower,
            })
            .collect()
    }

    fn has(&self, p: Prop) -> bool {
        self.array(p).is_some()
    }

    fn max(&self, p: Prop) -> u64 {
        self.array(p).and_then(|a| a.uints().max()).unwrap_or(0)
    }

    fn encode(&self, p: Prop, width: u64) -> Vec<u8> {
        self.array(p)
            .map(|a| a.encode(p.is_float(), width))
            .unwrap_or_default()
    }

    /// The bytes are the container's, borrowed: nothing to let go.
    fn spend(&mut self, _: Prop) {}
}

/// A float of 8 bytes, or of 4 widened. A 4-byte NaN is made quiet first, as widening
/// does on the machines we run on (x86-64, AArch64): written back as 4 bytes, it is then
/// the same NaN whether the compiler keeps the widening and narrowing or folds them
/// away (so decoding into [`StfMesh`] and writing, and encoding straight from the bytes,
/// give the same bytes).
fn float(b: &[u8]) -> f64 {
    match b.len() {
        8 => f64::from_le_bytes(b.try_into().unwrap_or_default()),
        _ => {
            let v = f32::from_le_bytes(b.try_into().unwrap_or_default());
            f64::from(if v.is_nan() {
                f32::from_bits(v.to_bits() | QUIET_F32)
            } else {
                v
            })
        }
    }
}

/// The quiet bit of an `f32` NaN (the top bit of the fraction).
const QUIET_F32: u32 = 1 << 22;

fn uint(b: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    for (x, y) in v.iter_mut().zip(b) {
        *x = *y;
    }
    u64::from_le_bytes(v)
}
