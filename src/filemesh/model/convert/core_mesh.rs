//! Plan of a 6.00/7.00 target's COREMESH: v1 (uncompressed) or Draco ([`core_plan`]),
//! and the Draco work done once for it ([`DracoMemo`]): the loss report plans the
//! COREMESH of the source and of the target, whose arrays usually hold the same values,
//! and each plan would otherwise encode or decode the whole mesh.

use super::plan::{CoreMesh, WriteOptions};
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::model::stored::StoredCore;
use crate::filemesh::model::Mesh;
use crate::filemesh::raw::records::{Face, Vertex};
use crate::filemesh::raw::Version;

/// What a COREMESH is written from: [`core_plan`]'s choice, without the copy of the
/// arrays a COREMESH v1 takes.
#[derive(Clone, Debug)]
pub(crate) enum CorePlan<'a> {
    /// COREMESH v1, the vertices and faces as they are.
    Uncompressed,
    /// COREMESH v2, this Draco bitstream.
    Draco(Blob<'a>),
}

impl CorePlan<'_> {
    /// The same choice (the same bitstream, byte for byte).
    pub(crate) fn same(&self, other: &CorePlan<'_>) -> bool {
        match (self, other) {
            (CorePlan::Uncompressed, CorePlan::Uncompressed) => true,
            (CorePlan::Draco(a), CorePlan::Draco(b)) => a.same(b),
            _ => false,
        }
    }
}

/// A Draco bitstream: one a mesh stored, or one encoded.
#[derive(Clone, Debug)]
pub(crate) enum Blob<'a> {
    /// Borrowed from where it is kept.
    Stored(&'a [u8]),
    /// Encoded here (shared by the [`DracoMemo`] that made it).
    Encoded(std::rc::Rc<Vec<u8>>),
    /// No longer held ([`Mesh::draco_from_v7`]): known by its fingerprint, and
    /// by what the memo recorded of it.
    Gone(Fingerprint),
}

impl Blob<'_> {
    /// The bytes, unless the bitstream is gone.
    pub(crate) fn bytes(&self) -> Option<&[u8]> {
        match self {
            Blob::Stored(b) => Some(b),
            Blob::Encoded(b) => Some(b),
            Blob::Gone(_) => None,
        }
    }

    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Blob::Gone(f) => f.len,
            b => b.bytes().map_or(0, <[u8]>::len),
        }
    }

    /// Whether these are its bytes.
    pub(crate) fn is(&self, bytes: &[u8]) -> bool {
        match self {
            Blob::Gone(f) => f.matches(bytes),
            b => b.bytes() == Some(bytes),
        }
    }

    /// The same bitstream, byte for byte (one that is gone by its fingerprint).
    pub(crate) fn same(&self, other: &Blob<'_>) -> bool {
        match (self, other.bytes()) {
            (Blob::Gone(a), None) => matches!(other, Blob::Gone(b) if a == b),
            (a, Some(b)) => a.is(b),
            (a, None) => other.same(a),
        }
    }

    /// The same record of a stored bitstream: the same place, or the same fingerprint.
    fn identical(&self, other: &Blob<'_>) -> bool {
        match (self, other) {
            (Blob::Stored(a), Blob::Stored(b)) => std::ptr::eq(*a, *b),
            (Blob::Gone(a), Blob::Gone(b)) => a == b,
            _ => false,
        }
    }

    /// This bitstream, as one that does not borrow: a stored one is copied, one encoded
    /// here is shared.
    pub(crate) fn detached<'b>(&self) -> Blob<'b> {
        match self {
            Blob::Stored(b) => Blob::Encoded(std::rc::Rc::new(b.to_vec())),
            Blob::Encoded(b) => Blob::Encoded(b.clone()),
            Blob::Gone(f) => Blob::Gone(*f),
        }
    }
}

/// What is kept of a bitstream no longer held: its length, and two 64-bit SipHashes of
/// its bytes under keys drawn at random once per process (so no input can be made to
/// collide on purpose).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    len: usize,
    hashes: [u64; 2],
}

impl Fingerprint {
    /// The fingerprint of these bytes.
    pub(crate) fn of(bytes: &[u8]) -> Self {
        Fingerprint {
            len: bytes.len(),
            hashes: hashes(&[bytes]),
        }
    }

    /// The fingerprint of a bitstream that was never made: it matches no bytes. It
    /// stands for the bitstream encoding would give where that is known not to decode
    /// to the arrays without encoding them ([`Mesh::draco_from_v7`]).
    pub(crate) fn never_made() -> Self {
        Fingerprint {
            len: usize::MAX,
            hashes: [0; 2],
        }
    }

    /// Whether these are the bytes it was taken of.
    pub(crate) fn matches(&self, bytes: &[u8]) -> bool {
        bytes.len() == self.len && Fingerprint::of(bytes) == *self
    }
}

/// Two 64-bit SipHashes of the parts' bytes, in order, under the process's random keys.
pub(super) fn hashes(parts: &[&[u8]]) -> [u64; 2] {
    use std::hash::{BuildHasher, Hasher};
    static KEYS: std::sync::OnceLock<[std::hash::RandomState; 2]> = std::sync::OnceLock::new();
    let keys = KEYS.get_or_init(|| [(); 2].map(|()| std::hash::RandomState::new()));
    keys.each_ref().map(|k| {
        let mut h = k.build_hasher();
        for p in parts {
            h.write(p);
        }
        h.finish()
    })
}

/// Draco work done once for the arrays it was done for: the loss report plans the
/// COREMESH of the source and of the target, whose arrays usually hold the same values,
/// and each plan encodes or decodes the whole mesh. Arrays are recognised by their
/// bytes (compared where they lie), so a result is reused exactly when the work would
/// give it again; a bitstream encoded equal to one already known is kept once.
#[derive(Default)]
pub(crate) struct DracoMemo<'a> {
    /// Work done before, looked up after this memo's own.
    parent: Option<&'a DracoMemo<'a>>,
    /// Bitstreams stored by the meshes planned ([`Blob::Stored`] or [`Blob::Gone`]).
    known: Vec<Blob<'a>>,
    /// (vertices, faces, their bitstream).
    encoded: Vec<(&'a [Vertex], &'a [Face], Blob<'a>)>,
    /// (bitstream, vertices, faces, whether it decodes to them).
    decoded: Vec<(Blob<'a>, &'a [Vertex], &'a [Face], bool)>,
    /// A mesh whose stored Draco bitstream was dropped during its conversion
    /// ([`Mesh::draco_from_v7`]), and the fingerprint that stands in for it.
    gone: Option<(&'a Mesh, Fingerprint)>,
}

/// Byte equality of two vertex arrays.
fn same_vertices(a: &[Vertex], b: &[Vertex]) -> bool {
    bytemuck::cast_slice::<Vertex, u8>(a) == bytemuck::cast_slice::<Vertex, u8>(b)
}

impl<'a> DracoMemo<'a> {
    /// A memo that also looks up the work `parent` holds.
    pub(crate) fn child(parent: &'a DracoMemo<'a>) -> Self {
        DracoMemo {
            parent: Some(parent),
            ..DracoMemo::default()
        }
    }

    /// The memos to look in: this one, then its parents.
    fn chain(&self) -> impl Iterator<Item = &DracoMemo<'a>> {
        std::iter::successors(Some(self), |m| m.parent)
    }

    /// Records the work [`Mesh::draco_to_v7`] or [`Mesh::draco_from_v7`] did for
    /// these arrays, of a mesh that stored the bitstream `stored`.
    fn seed(
        &mut self,
        vertices: &'a [Vertex],
        faces: &'a [Face],
        seed: OwnedDraco,
        stored: Option<Blob<'a>>,
    ) {
        match seed {
            OwnedDraco::Decodes(bitstream) => {
                let blob = Blob::Encoded(std::rc::Rc::new(bitstream));
                self.encoded.push((vertices, faces, blob.clone()));
                self.decoded.push((blob, vertices, faces, true));
            }
            OwnedDraco::Gone { encode, .. } => {
                let Some(stored) = stored else { return };
                self.know(stored.clone());
                match encode {
                    Reencoded::NotDone => {}
                    Reencoded::Stored => self.encoded.push((vertices, faces, stored)),
                    Reencoded::Other { bitstream, exact } => {
                        let blob = Blob::Gone(bitstream);
                        self.encoded.push((vertices, faces, blob.clone()));
                        self.decoded.push((blob, vertices, faces, exact));
                    }
                }
            }
        }
    }

    /// How `mesh` stored its core mesh, as this memo or a parent knows it: a stored
    /// bitstream dropped during the conversion by its fingerprint.
    pub(crate) fn core_stored<'m>(&self, mesh: &'m Mesh) -> CoreStored<'m> {
        let gone = self.chain().find_map(|m| m.gone);
        match gone {
            Some((m, f)) if std::ptr::eq(m, mesh) => CoreStored::Gone(f),
            _ => CoreStored::of(mesh.stored.core.as_ref()),
        }
    }

    /// The arrays `bitstream` is known to decode to exactly (with the default limits),
    /// if this memo or a parent checked that.
    pub(crate) fn decoded_exactly(&self, bitstream: &[u8]) -> Option<(&'a [Vertex], &'a [Face])> {
        self.exact_decoding(|b| b.is(bitstream))
    }

    /// The arrays a bitstream `which` picks is known to decode to exactly.
    fn exact_decoding(
        &self,
        which: impl Fn(&Blob<'a>) -> bool,
    ) -> Option<(&'a [Vertex], &'a [Face])> {
        self.chain().find_map(|m| {
            m.decoded
                .iter()
                .find(|(b, _, _, same)| *same && which(b))
                .map(|&(_, v, f, _)| (v, f))
        })
    }

    /// Notes a bitstream a mesh stored, so that one encoded equal to it is kept once.
    fn know(&mut self, blob: Blob<'a>) {
        if !self.known.iter().any(|k| k.identical(&blob)) {
            self.known.push(blob);
        }
    }

    /// [`draco::encode`](crate::codec::draco::encode) of the arrays.
    fn encode(&mut self, vertices: &'a [Vertex], faces: &'a [Face]) -> Result<Blob<'a>> {
        let found = self.chain().find_map(|m| {
            m.encoded
                .iter()
                .find(|(v, f, _)| *f == faces && same_vertices(v, vertices))
                .map(|(_, _, b)| b.clone())
        });
        if let Some(b) = found {
            return Ok(b);
        }
        let blob = crate::codec::draco::encode(vertices, faces)?;
        let known = self
            .chain()
            .find_map(|m| m.known.iter().find(|k| k.is(&blob)).cloned());
        let blob = known.unwrap_or_else(|| Blob::Encoded(std::rc::Rc::new(blob)));
        self.encoded.push((vertices, faces, blob.clone()));
        Ok(blob)
    }

    /// Whether the bitstream decodes to exactly these arrays.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Inconsistent`] for a bitstream no longer held whose exact decoding
    /// the memo does not know (it always does where one is dropped).
    fn decodes_to(
        &mut self,
        blob: &Blob<'a>,
        vertices: &'a [Vertex],
        faces: &'a [Face],
    ) -> Result<bool> {
        let found = self.chain().find_map(|m| {
            m.decoded
                .iter()
                .find(|(b, v, f, _)| b.same(blob) && *f == faces && same_vertices(v, vertices))
                .map(|&(_, _, _, same)| same)
        });
        if let Some(same) = found {
            return Ok(same);
        }
        let same = match blob.bytes() {
            Some(bytes) => crate::codec::draco::decode(bytes, &Limits::default())
                .is_ok_and(|(v, f)| same_vertices(&v, vertices) && f == faces),
            // The decoder is a function of the bytes: a bitstream known to decode to
            // other arrays exactly does not decode to these.
            None => {
                let Some((v, f)) = self.exact_decoding(|b| b.same(blob)) else {
                    return Err(Error::new(
                        crate::codec::draco::CONTEXT,
                        ErrorKind::Inconsistent(
                            "a Draco bitstream dropped to save memory was to be decoded".into(),
                        ),
                    ));
                };
                same_vertices(v, vertices) && f == faces
            }
        };
        self.decoded.push((blob.clone(), vertices, faces, same));
        Ok(same)
    }
}

impl Mesh {
    /// The Draco work known before a conversion: the seed [`Mesh::draco_to_v7`] gave,
    /// and (`as_read`) that the stored bitstream decodes to these arrays.
    pub(super) fn warm_memo(&self, seed: Option<OwnedDraco>, as_read: AsRead) -> DracoMemo<'_> {
        let mut warm = DracoMemo::default();
        let (vertices, faces) = (self.raw_vertex_slice(), bytemuck::cast_slice(&self.faces));
        if let Some(OwnedDraco::Gone { stored, .. }) = &seed {
            warm.gone = Some((self, *stored));
        }
        let stored = warm.core_stored(self).blob();
        if let (AsRead::Decoded, Some(b)) = (as_read, &stored) {
            // The stored bitstream decoded to these arrays when the file was read: it is
            // not decoded again to learn that.
            warm.decoded.push((b.clone(), vertices, faces, true));
        }
        if let Some(seed) = seed {
            warm.seed(vertices, faces, seed, stored);
        }
        warm
    }

    /// The Draco work the loss report of converting this mesh to `target` will ask for,
    /// done before the target is built, while less is held: the COREMESH writing the
    /// source's version again would give, from this mesh and from a target that holds
    /// the same arrays but no COREMESH choice (any version but 7.00 and text). Nothing
    /// is done for a source that is not chunked or a target that would not hold the
    /// same arrays (2.00, whose vertices may be 36 bytes, and a target without LODs
    /// for a mesh with several). A failure is not kept: the comparison meets it again.
    /// Done into `memo`, which may know some of it already.
    pub(crate) fn warm_draco<'a>(&'a self, target: Version, memo: &mut DracoMemo<'a>) {
        let Some(source) = self.stored.version.filter(|v| v.is_chunked()) else {
            return;
        };
        if !self.target_holds_the_arrays(target) || target == Version::V2_00 {
            return;
        }
        let (vertices, faces) = (self.raw_vertex_slice(), bytemuck::cast_slice(&self.faces));
        let options = WriteOptions::default();
        let stored = memo.core_stored(self);
        for stored in [stored, CoreStored::None] {
            if core_plan(vertices, faces, stored, source, &options, memo).is_err() {
                break;
            }
        }
    }

    /// Whether `target` holds this mesh's vertex and face arrays as they are, with no
    /// COREMESH choice of its own: any version but 7.00 and text, and all the faces
    /// (a target without LODs holds LOD 0's). 2.00 may hold its vertices in 36 bytes.
    pub(super) fn target_holds_the_arrays(&self, target: Version) -> bool {
        !target.is_text()
            && target != Version::V7_00
            && (target.has_lods() || self.lod0_faces().len() == self.faces.len())
    }

    /// Whether decoding a Draco bitstream of this mesh stays within the default
    /// [`Limits`] (the memo's work uses them).
    pub(super) fn draco_within_default_limits(&self) -> bool {
        let counts = crate::codec::draco::Counts {
            faces: self.faces.len() as u64,
            points: self.vertices.len() as u64,
        };
        counts.decoded_bytes() <= Limits::default().max_decoded_bytes
    }
}

/// What a conversion knows of the mesh's arrays ([`Mesh::convert_seeded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AsRead {
    /// Nothing: the mesh may have been edited since it was read.
    Unknown,
    /// They are what the stored Draco bitstream (if the mesh has one) decoded to when
    /// the mesh was read, unedited.
    Decoded,
}

/// Draco work done on a mesh's arrays while they were given away: what
/// [`draco::encode`](crate::codec::draco::encode) of them gives.
#[derive(Debug)]
pub(crate) enum OwnedDraco {
    /// [`Mesh::draco_to_v7`]: this bitstream, which decodes to them exactly.
    Decodes(Vec<u8>),
    /// [`Mesh::draco_from_v7`]: the mesh's stored bitstream was dropped; `stored`
    /// is its fingerprint, and `encode` what encoding the arrays gave.
    Gone {
        stored: Fingerprint,
        encode: Reencoded,
    },
}

/// What [`Mesh::draco_from_v7`] found encoding a mesh's arrays again.
#[derive(Debug)]
pub(crate) enum Reencoded {
    /// Not encoded (the report would not ask, or asks for other arrays).
    NotDone,
    /// The stored bitstream.
    Stored,
    /// Another bitstream, by its fingerprint, and whether it decodes to the arrays.
    Other { bitstream: Fingerprint, exact: bool },
}

/// How the source stored its core mesh ([`StoredCore`], borrowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CoreStored<'a> {
    /// Not recorded (the source had no choice to make).
    None,
    /// COREMESH v1.
    Uncompressed,
    /// COREMESH v2, this Draco bitstream.
    Draco(&'a [u8]),
    /// COREMESH v2, a Draco bitstream dropped during the conversion
    /// ([`DracoMemo::core_stored`]).
    Gone(Fingerprint),
}

impl<'a> CoreStored<'a> {
    pub(crate) fn of(stored: Option<&'a StoredCore>) -> Self {
        match stored {
            None => CoreStored::None,
            Some(StoredCore::Uncompressed) => CoreStored::Uncompressed,
            Some(StoredCore::Draco(b)) => CoreStored::Draco(b),
        }
    }

    /// The Draco bitstream, if it is one.
    pub(crate) fn blob(self) -> Option<Blob<'a>> {
        match self {
            CoreStored::Draco(b) => Some(Blob::Stored(b)),
            CoreStored::Gone(f) => Some(Blob::Gone(f)),
            CoreStored::None | CoreStored::Uncompressed => None,
        }
    }
}

/// The COREMESH of a chunked target for these arrays, given how the source stored its
/// core mesh (see the module docs): [`Mesh::core_for`] builds it, the loss report
/// compares it.
pub(crate) fn core_plan<'a>(
    vertices: &'a [Vertex],
    faces: &'a [Face],
    stored: CoreStored<'a>,
    target: Version,
    options: &WriteOptions,
    memo: &mut DracoMemo<'a>,
) -> Result<CorePlan<'a>> {
    let stored_blob = stored.blob();
    if let Some(b) = &stored_blob {
        memo.know(b.clone());
    }
    let reuse = |memo: &mut DracoMemo<'a>| -> Result<Option<Blob<'a>>> {
        match &stored_blob {
            Some(b) if memo.decodes_to(b, vertices, faces)? => Ok(Some(b.clone())),
            _ => Ok(None),
        }
    };
    match (options.core_mesh, target) {
        (CoreMesh::Uncompressed, _) | (CoreMesh::Auto, Version::V6_00) => {
            return Ok(CorePlan::Uncompressed)
        }
        (CoreMesh::Draco, _) => {
            if let Some(b) = reuse(memo)? {
                return Ok(CorePlan::Draco(b));
            }
            let blob = if vertices
                .iter()
                .all(|v| v.normal.iter().all(|x| x.is_finite()))
            {
                crate::codec::draco::encode(vertices, faces)?
            } else {
                let mut vertices = vertices.to_vec();
                for v in &mut vertices {
                    for x in &mut v.normal {
                        if !x.is_finite() {
                            *x = 0.0;
                        }
                    }
                }
                crate::codec::draco::encode(&vertices, faces)?
            };
            return Ok(CorePlan::Draco(Blob::Encoded(std::rc::Rc::new(blob))));
        }
        (CoreMesh::Auto, _) => {}
    }
    if let Some(b) = reuse(memo)? {
        return Ok(CorePlan::Draco(b));
    }
    if stored == CoreStored::Uncompressed {
        return Ok(CorePlan::Uncompressed);
    }
    // Draco only where it keeps every value (a normal that is not finite, or off the
    // 11-bit grid, keeps the mesh uncompressed).
    if normals_can_be_exact(vertices) {
        let blob = memo.encode(vertices, faces)?;
        let exact = memo.decodes_to(&blob, vertices, faces)?;
        let v1_size = 8 + vertices.len() * 40 + faces.len() * 12;
        if exact && (stored_blob.is_some() || 4 + blob.len() < v1_size) {
            return Ok(CorePlan::Draco(blob));
        }
    }
    Ok(CorePlan::Uncompressed)
}

/// Whether Draco could hold every normal exactly: all finite, and on few enough values
/// for its 11-bit grid ([`distinct_normals`]). Only then is a core mesh encoded to see
/// whether it comes back.
fn normals_can_be_exact(vertices: &[Vertex]) -> bool {
    distinct_normals(vertices).is_some()
}

/// Each normal component's distinct values (by their bits), in the order they first
/// appear, when every normal is finite and no component has more distinct values than
/// the quantization has steps (twice that, a margin: each component decodes to one value
/// per step, and canonicalization only maps values to values); `None` otherwise, as the
/// normals cannot all come back from Draco's 11-bit quantization. Checked before
/// encoding, so a mesh Draco could not hold exactly is not encoded and decoded in vain
/// (the decode check decides the rest); the values also tell
/// [`draco::distinct_normals_survive`](crate::codec::draco::distinct_normals_survive).
pub(super) fn distinct_normals(vertices: &[Vertex]) -> Option<[Vec<f32>; 3]> {
    if !vertices
        .iter()
        .all(|v| v.normal.iter().all(|x| x.is_finite()))
    {
        return None;
    }
    let limit = 2usize << crate::codec::draco::NORMAL_QUANTIZATION_BITS;
    let mut distinct: [Vec<f32>; 3] = Default::default();
    for (c, values) in distinct.iter_mut().enumerate() {
        let mut seen = std::collections::HashSet::new();
        for v in vertices {
            if let Some(&x) = v.normal.get(c) {
                if seen.insert(x.to_bits()) {
                    if values.len() == limit {
                        return None;
                    }
                    values.push(x);
                }
            }
        }
    }
    Some(distinct)
}

#[cfg(test)]
mod tests {
    use super::{distinct_normals, normals_can_be_exact, same_vertices, Mesh};
    use crate::codec::draco;
    use crate::error::Limits;
    use crate::filemesh::raw::chunks::ChunkData;
    use crate::filemesh::raw::records::{Face, Vertex};
    use crate::filemesh::raw::Body;
    use std::path::Path;

    /// Every Draco mesh of the fixtures and the corpus passes the normal check that
    /// lets a mesh be tried as Draco; normals off the grid do not.
    #[test]
    fn decoded_draco_normals_fit_the_grid() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut blobs = Vec::new();
        for (_, f) in crate::test_filemeshes(&["chunked"]) {
            if let Body::V6(b) = f.body {
                for c in b.chunks {
                    if let ChunkData::CoreMeshV2(d) = c.data {
                        blobs.push(d.draco.into_vec());
                    }
                }
            }
        }
        for e in std::fs::read_dir(root.join("roundtrip-fixtures/draco"))
            .into_iter()
            .flatten()
            .flatten()
        {
            blobs.push(std::fs::read(e.path()).unwrap_or_default());
        }
        let mut checked = 0;
        for blob in blobs {
            if let Ok((vertices, _)) = draco::decode(&blob, &Limits::default()) {
                assert!(normals_can_be_exact(&vertices));
                checked += 1;
            }
        }
        assert!(checked > 3, "{checked}");
        let many: Vec<Vertex> = (0..10_000)
            .map(|i| Vertex {
                normal: [i as f32 / 10_000.0, 0.0, 1.0],
                ..Vertex::default()
            })
            .collect();
        assert!(!normals_can_be_exact(&many));
        assert!(normals_can_be_exact(many.get(..1000).unwrap_or_default()));
        // 4,096 distinct values a component are the most.
        assert!(normals_can_be_exact(many.get(..4096).unwrap_or_default()));
        assert!(!normals_can_be_exact(many.get(..4097).unwrap_or_default()));
    }

    /// The round trip of the normals alone says what the whole round trip does: on the
    /// decoded Draco meshes (whose normals come back), and on the same meshes with their
    /// normals moved off the grid, or on a grid of their own (a few values, not Draco's).
    #[test]
    fn normals_alone_tell_whether_they_come_back() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut meshes = Vec::new();
        for (path, f) in crate::test_filemeshes(&["chunked"]) {
            if let Ok(m) = Mesh::from_file(&f) {
                meshes.push((path, m.raw_vertices(), m.faces.clone()));
            }
        }
        for e in std::fs::read_dir(root.join("roundtrip-fixtures/draco"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let blob = std::fs::read(e.path()).unwrap_or_default();
            if let Ok((v, f)) = draco::decode(&blob, &Limits::default()) {
                let faces = f.iter().map(|f| f.indices).collect();
                meshes.push((e.path(), v, faces));
            }
        }
        let (mut same, mut changed) = (0, 0);
        for (path, vertices, faces) in meshes {
            let faces: &[Face] = bytemuck::cast_slice(&faces);
            let nudged: Vec<Vertex> = vertices
                .iter()
                .enumerate()
                .map(|(i, v)| Vertex {
                    normal: v.normal.map(|x| x + (i % 3) as f32 * 1e-3),
                    ..*v
                })
                .collect();
            let few: Vec<Vertex> = vertices
                .iter()
                .enumerate()
                .map(|(i, v)| Vertex {
                    normal: [0.1 * (i % 7) as f32, 0.3, -0.7],
                    ..*v
                })
                .collect();
            // Zeros of both signs, −0 first and +0 first, at the bounds of a component.
            let zeros = |first: f32| -> Vec<Vertex> {
                vertices
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Vertex {
                        normal: match i % 4 {
                            0 => [first, 0.5, 1.0],
                            1 => [-first, -0.0, 0.25],
                            2 => [0.75, 0.0, -0.0],
                            _ => v.normal.map(f32::abs),
                        },
                        ..*v
                    })
                    .collect()
            };
            for v in [vertices.clone(), nudged, few, zeros(-0.0), zeros(0.0)] {
                let Ok(blob) = draco::encode(&v, faces) else {
                    continue;
                };
                let Ok((back, _)) = draco::decode(&blob, &Limits::default()) else {
                    continue;
                };
                let whole = same_vertices(&back, &v);
                assert_eq!(draco::normals_survive(&v), whole, "{}", path.display());
                // The distinct values give the same answer, and so do the decoded normals.
                for v in [&v, &back] {
                    let survive = draco::normals_survive(v);
                    match distinct_normals(v) {
                        Some(d) => assert_eq!(
                            draco::distinct_normals_survive(&d),
                            survive,
                            "{}",
                            path.display()
                        ),
                        None => assert!(!survive, "{}", path.display()),
                    }
                }
                if whole {
                    same += 1;
                } else {
                    changed += 1;
                }
            }
        }
        // The fixtures' bitstreams were made with other settings than Roblox's, so
        // normals that come back need the corpus's real files.
        let corpus = crate::test_corpus_roblox().is_dir();
        assert!(
            (same >= 1 || !corpus) && changed >= 1,
            "{same} kept, {changed} changed"
        );
    }
}
