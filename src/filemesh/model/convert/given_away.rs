//! The Draco work of a conversion done with the mesh's vertex and face arrays given
//! away while `draco-core` runs, so they are not held beside the encoder and decoder
//! (README "Peak memory"): [`Mesh::draco_to_v7`] for a 7.00 target,
//! [`Mesh::draco_from_v7`] for a 7.00 source converted to another version. What they
//! find seeds the conversion's [`DracoMemo`](super::core_mesh::DracoMemo).

use super::core_mesh::{distinct_normals, hashes, Fingerprint, OwnedDraco, Reencoded};
use super::plan::{CoreMesh, WriteOptions};
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::model::stored::StoredCore;
use crate::filemesh::model::{Mesh, MeshVertex};
use crate::filemesh::raw::records::{Face, Vertex};
use crate::filemesh::raw::Version;

/// A digest of vertex and face arrays: their lengths and two keyed 64-bit SipHashes of
/// their bytes (random keys, so no input can be made to collide on purpose).
type Digest = (usize, usize, [u64; 2]);

fn digest(vertices: &[Vertex], faces: &[Face]) -> Digest {
    let parts = [bytemuck::cast_slice(vertices), bytemuck::cast_slice(faces)];
    (vertices.len(), faces.len(), hashes(&parts))
}

/// The error when Draco does not give back the arrays it was given.
fn not_given_back() -> Error {
    Error::new(
        crate::codec::draco::CONTEXT,
        ErrorKind::Inconsistent(
            "Draco did not give back the vertices and faces it was given".into(),
        ),
    )
}

impl Mesh {
    /// The Draco work writing this mesh as `target` will do, done with its vertex and
    /// face arrays given away while `draco-core`'s encoder runs and while its bitstream
    /// is decoded again (each needs about twice the arrays' size besides, so holding
    /// them too would add their size to the peak), for [`Mesh::convert_seeded`].
    ///
    /// Only where [`core_plan`] would encode the arrays and find that the bitstream
    /// decodes to them, so that the result is the one it would give: a 7.00 target, the
    /// automatic choice, no stored core mesh, face indices in range, arrays whose
    /// decoding fits the default limits, and finite normals on Draco's grid that come
    /// back bit for bit ([`draco::distinct_normals_survive`](crate::codec::draco::distinct_normals_survive),
    /// found from the normals' distinct values while the arrays are still held). `None` otherwise,
    /// and nothing is done.
    ///
    /// The arrays come back from the bitstream's decoding, checked against a digest of
    /// their bytes taken before (their lengths and two randomly keyed 64-bit hashes).
    /// Errors, the mesh then without vertices and faces, if the encoder refuses the mesh
    /// or its bitstream does not decode to them.
    ///
    /// [`core_plan`]: super::core_mesh::core_plan
    pub(crate) fn draco_to_v7(
        &mut self,
        target: Version,
        options: &WriteOptions,
    ) -> Result<Option<OwnedDraco>> {
        use crate::codec::draco;
        let limits = Limits::default();
        if target != Version::V7_00
            || options.core_mesh != CoreMesh::Auto
            || self.stored.core.is_some()
            || self.vertices.is_empty()
            || u32::try_from(self.vertices.len()).is_err()
            || !self.draco_within_default_limits()
            || self.check_indices().is_err()
        {
            return Ok(None);
        }
        let vertices = self.raw_vertex_slice();
        match distinct_normals(vertices) {
            Some(d) if draco::distinct_normals_survive(&d) => {}
            _ => return Ok(None),
        }
        let before = digest(vertices, bytemuck::cast_slice(&self.faces));
        let (vertices, faces) = take_arrays(&mut self.vertices, &mut self.faces);
        let bitstream = draco::encode(vertices, faces)?;
        let (vertices, faces) = draco::decode(&bitstream, &limits)?;
        if digest(&vertices, &faces) != before {
            return Err(not_given_back());
        }
        self.put_arrays(vertices, faces);
        Ok(Some(OwnedDraco::Decodes(bitstream)))
    }

    /// [`take_arrays`] undone.
    fn put_arrays(&mut self, vertices: Vec<Vertex>, faces: Vec<Face>) {
        self.vertices = bytemuck::allocation::cast_vec(vertices);
        self.faces = bytemuck::allocation::cast_vec(faces);
    }

    /// Drops the stored Draco bitstream of a 7.00 mesh converted to `target`, which
    /// does not write it (any version but 7.00), or takes the fingerprint of one
    /// dropped as it was read (`dropped`), and does the Draco encode the loss
    /// report will ask for (would writing 7.00 again from the target give the same
    /// bitstream? [`Mesh::warm_draco`]) while neither the bitstream nor the mesh's
    /// vertex and face arrays are held, for [`Mesh::convert_seeded`]. `None`, and
    /// nothing done, for a 7.00 target or a mesh without a stored bitstream.
    ///
    /// A fingerprint stands in for the bitstream: the report needs only its length,
    /// whether another bitstream is the same, and what it decodes to, which is the
    /// mesh's arrays (the mesh must be as read, [`AsRead::Decoded`]).
    ///
    /// The encode is done only where the report would do it (see [`Mesh::warm_draco`]
    /// and [`core_plan`]; for a 2.00 target, which `warm_draco` leaves to the
    /// comparison, the comparison finds the work by the arrays' bytes), and only where
    /// it may give the arrays back: Draco quantizes the normals and keeps the rest as it
    /// is, so where the normals' own round trip says they would not come back
    /// ([`draco::distinct_normals_survive`](crate::codec::draco::distinct_normals_survive)),
    /// a new bitstream is neither the stored one nor one the report would use, and none
    /// is made ([`Fingerprint::never_made`]). Otherwise the arrays go to `draco-core`'s
    /// encoder and come back from the new bitstream's decoding, checked against a
    /// digest of their bytes taken before (their lengths and two randomly keyed 64-bit
    /// hashes).
    ///
    /// # Errors
    ///
    /// When the encoder refuses the mesh (the report's own encode would meet the same
    /// refusal), or the arrays do not come back; the mesh is then without its vertices
    /// and faces.
    ///
    /// [`AsRead::Decoded`]: super::core_mesh::AsRead::Decoded
    /// [`core_plan`]: super::core_mesh::core_plan
    pub(crate) fn draco_from_v7(
        &mut self,
        target: Version,
        dropped: Option<Fingerprint>,
    ) -> Result<Option<OwnedDraco>> {
        use crate::codec::draco;
        if self.stored.version != Some(Version::V7_00) || target == Version::V7_00 {
            return Ok(None);
        }
        let stored = match (&self.stored.core, dropped) {
            (Some(StoredCore::Draco(bitstream)), _) => Fingerprint::of(bitstream),
            (None, Some(fingerprint)) => fingerprint,
            _ => return Ok(None),
        };
        self.stored.core = None;
        let gone = |encode| Ok(Some(OwnedDraco::Gone { stored, encode }));
        if !self.target_holds_the_arrays(target) || !self.draco_within_default_limits() {
            return gone(Reencoded::NotDone);
        }
        let Some(distinct) = distinct_normals(self.raw_vertex_slice()) else {
            return gone(Reencoded::NotDone);
        };
        if !draco::distinct_normals_survive(&distinct) {
            // A new bitstream would not give these normals back, so it is not the
            // stored one (which does) and the report plans COREMESH v1 without it: the
            // encoder is not run.
            return gone(Reencoded::Other {
                bitstream: Fingerprint::never_made(),
                exact: false,
            });
        }
        let before = digest(self.raw_vertex_slice(), bytemuck::cast_slice(&self.faces));
        let (vertices, faces) = take_arrays(&mut self.vertices, &mut self.faces);
        let bitstream = draco::encode(vertices, faces)?;
        let encoded = Fingerprint::of(&bitstream);
        // The stored bitstream again decodes to the arrays as read.
        let same = encoded == stored;
        let (vertices, faces) = draco::decode(bitstream, &Limits::default())?;
        let exact = same || digest(&vertices, &faces) == before;
        if !exact {
            return Err(not_given_back());
        }
        self.put_arrays(vertices, faces);
        gone(if same {
            Reencoded::Stored
        } else {
            Reencoded::Other {
                bitstream: encoded,
                exact,
            }
        })
    }
}

/// A mesh's vertex and face arrays, moved out as a COREMESH's (the same bytes).
fn take_arrays(
    vertices: &mut Vec<MeshVertex>,
    faces: &mut Vec<[u32; 3]>,
) -> (Vec<Vertex>, Vec<Face>) {
    (
        bytemuck::allocation::cast_vec(std::mem::take(vertices)),
        bytemuck::allocation::cast_vec(std::mem::take(faces)),
    )
}
