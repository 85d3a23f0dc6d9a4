//! What `info` and [`StfMesh::problems`](super::StfMesh::problems) look at of a mesh,
//! decoded or where it lies (`Outline`): array lengths, and the index arrays as values
//! looked through once.

/// Index values, one pass, and how many there are.
pub(crate) struct Ints<'m> {
    pub(crate) len: usize,
    pub(crate) values: Box<dyn Iterator<Item = u64> + 'm>,
}

impl<'m> Ints<'m> {
    /// The values of a decoded index array.
    pub(crate) fn of(values: &'m [u64]) -> Self {
        Ints {
            len: values.len(),
            values: Box::new(values.iter().copied()),
        }
    }
}

/// What [`StfMesh::problems`](super::StfMesh::problems) and `info` look at of a mesh,
/// decoded ([`StfMesh`](super::StfMesh)) or in its buffers
/// ([`MeshView`](super::view::MeshView)): array lengths, and the index arrays as values to look
/// through once.
pub(crate) struct Outline<'m> {
    pub(crate) id: &'m str,
    pub(crate) name: &'m str,
    pub(crate) vertices: usize,
    pub(crate) splits: usize,
    pub(crate) face_corners: usize,
    pub(crate) tris: usize,
    pub(crate) faces: usize,
    /// The triangles' face corners, three per triangle.
    pub(crate) tri_corners: Box<dyn Iterator<Item = u64> + 'm>,
    /// Per face corner, its split.
    pub(crate) corner_splits: Box<dyn Iterator<Item = u64> + 'm>,
    /// Per split, its vertex.
    pub(crate) split_vertices: Box<dyn Iterator<Item = u64> + 'm>,
    /// Per face, its number of triangles.
    pub(crate) face_tris: Box<dyn Iterator<Item = u64> + 'm>,
    /// UV sets: name and length.
    pub(crate) uvs: Vec<(&'m str, usize)>,
    pub(crate) normals: bool,
    pub(crate) colors: bool,
    pub(crate) blendshapes: Vec<BlendOutline<'m>>,
}

/// A blendshape of an [`Outline`].
pub(crate) struct BlendOutline<'m> {
    pub(crate) name: &'m str,
    /// Position offsets.
    pub(crate) offsets: usize,
    pub(crate) indices: Option<Ints<'m>>,
    pub(crate) split_indices: Option<Ints<'m>>,
    /// Split normals, if any.
    pub(crate) split_normals: Option<usize>,
}

impl Outline<'_> {
    /// [`StfMesh::problems`](super::StfMesh::problems) of the mesh.
    pub(crate) fn problems(self) -> Vec<String> {
        let mut out = Vec::new();
        let beyond = |values: Box<dyn Iterator<Item = u64> + '_>, len: usize| {
            values.map(|v| (v, len)).find(|&(v, len)| v >= len as u64)
        };
        let bad = [
            (
                "triangle corner",
                beyond(self.tri_corners, self.face_corners),
            ),
            ("face corner split", beyond(self.corner_splits, self.splits)),
            ("split vertex", beyond(self.split_vertices, self.vertices)),
        ];
        for (what, bad) in bad {
            if let Some((bad, len)) = bad {
                out.push(format!("{what} {bad} is out of range (of {len})"));
            }
        }
        // Wrapping, as an unchecked sum has always added them.
        let total = self.face_tris.fold(0u64, u64::wrapping_add);
        if total != self.tris as u64 {
            out.push(format!(
                "faces hold {total} triangles, but there are {}",
                self.tris
            ));
        }
        for (name, uv) in &self.uvs {
            if *uv != self.splits {
                out.push(format!(
                    "UV set {name:?} has {uv} entries for {} splits",
                    self.splits
                ));
            }
        }
        let (nv, ns) = (self.vertices, self.splits);
        for b in self.blendshapes {
            let name = b.name;
            let offsets = b.offsets;
            let (count, of) = match &b.indices {
                Some(i) => (i.len, "indices"),
                None => (nv, "vertices"),
            };
            if offsets != count {
                out.push(format!(
                    "blendshape {name:?} has {offsets} position offsets for {count} {of}"
                ));
            }
            let split_count = b.split_indices.as_ref().map(|i| i.len);
            if let Some(bad) = b
                .indices
                .and_then(|i| i.values.into_iter().find(|&i| i >= nv as u64))
            {
                out.push(format!(
                    "blendshape {name:?}: vertex index {bad} is out of range (of {nv})"
                ));
            }
            if let Some(bad) = b
                .split_indices
                .and_then(|i| i.values.into_iter().find(|&i| i >= ns as u64))
            {
                out.push(format!(
                    "blendshape {name:?}: split index {bad} is out of range (of {ns})"
                ));
            }
            if let Some(normals) = b.split_normals {
                let (count, of) = match split_count {
                    Some(n) => (n, "split indices"),
                    None => (ns, "splits"),
                };
                if normals != count {
                    out.push(format!(
                        "blendshape {name:?} has {normals} split normals for {count} {of}"
                    ));
                }
            }
        }
        out
    }

    /// What `meshcodec info` reports of the mesh.
    pub(crate) fn info(self) -> crate::stf::StfMeshInfo {
        crate::stf::StfMeshInfo {
            id: self.id.to_string(),
            name: self.name.to_string(),
            vertices: self.vertices,
            splits: self.splits,
            face_corners: self.face_corners,
            faces: self.tris,
            polygons: self.faces,
            uv_sets: self.uvs.iter().map(|(n, _)| n.to_string()).collect(),
            normals: self.normals,
            colors: self.colors,
            blendshapes: self
                .blendshapes
                .iter()
                .map(|b| b.name.to_string())
                .collect(),
            problems: self.problems(),
        }
    }
}
