//! FileMesh through the front door ([`MeshFile`]): info text, dump, check, conversion
//! between versions and import from a scene.

use std::fmt::Write as _;

use super::model::convert::{AsRead, Fingerprint, WriteOptions};
use super::model::stored::StoredCore;
use super::raw::chunks::{ChunkData, CoreMeshV1};
use super::raw::{Body, Info};
use super::{FileMesh, Mesh, Version};
use crate::codec::draco;
use crate::error::{Limits, Result};
use crate::file::contract::{
    to_json, usage, ConvertOptions, Converted, ExportOptions, Format, MeshFile, Prepared, Summary,
    Target, WriteLater,
};
use crate::loss::{Level, Loss, LossKind, VertexUse};
use crate::scene::carry::{Carries, Rig};
use crate::scene::Scene;

impl MeshFile for FileMesh {
    fn format(&self) -> Format {
        Format::FileMesh
    }

    fn version_name(&self) -> String {
        self.version.to_string()
    }

    fn write(&self) -> Result<Vec<u8>> {
        FileMesh::write(self)
    }

    fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        FileMesh::write_to(self, out)
    }

    fn summary(&self, limits: &Limits) -> Result<Summary> {
        let info = self.info_with_limits(limits)?;
        Summary::new(&info, text(&info, self.version))
    }

    fn dump(&self, _: &Limits) -> Result<serde_json::Value> {
        to_json(self)
    }

    fn check(&self, limits: &Limits) -> Result<()> {
        // What the model decodes: Draco, skinning through the subsets, FACS.
        Mesh::check_file(self, limits)
    }

    fn target(&self, to: &str) -> Result<Target> {
        to.parse::<Version>().map(Target::FileMesh).map_err(|_| {
            usage(format!(
                "--to {to}: this is a FileMesh; its versions are 1.00 to 7.00"
            ))
        })
    }

    /// The file copied, then converted as [`MeshFile::into_prepared`] converts it.
    fn convert(
        &self,
        target: &Target,
        options: &ConvertOptions,
        limits: &Limits,
    ) -> Result<Converted> {
        self.clone()
            .into_prepared(target, options, limits)?
            .into_converted()
    }

    /// The same version writes the file back byte for byte. Another goes through the
    /// model, the file dropped once its model is built (`model_and_fingerprint`), so
    /// the conversion never holds the source file, its model, the target and its
    /// read-back model at once; the target is written when asked (`convert_mesh`).
    fn into_prepared(
        self,
        target: &Target,
        options: &ConvertOptions,
        limits: &Limits,
    ) -> Result<Prepared> {
        let Target::FileMesh(v) = *target else {
            return Err(usage(format!(
                "--to {target}: this is a FileMesh; its versions are 1.00 to 7.00"
            )));
        };
        if v == self.version {
            // The raw layer writes the file back byte for byte.
            let info = self.info_with_limits(limits)?;
            let summary = line(v, info.vertices, info.faces);
            return Ok(Prepared::later(Box::new(self), Vec::new(), summary));
        }
        // Only a 7.00 target writes a stored Draco bitstream; the others' reports need
        // only its fingerprint.
        let bitstream = if v == Version::V7_00 {
            Bitstream::Keep
        } else {
            Bitstream::Fingerprint
        };
        let (mesh, dropped) = model_and_fingerprint(self, limits, bitstream)?;
        convert_mesh(mesh, v, options, AsRead::Decoded, dropped)
    }

    /// The file copied, then turned as [`MeshFile::into_scene`] turns it.
    fn to_scene(&self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        self.clone().into_scene(options, limits)
    }

    /// The file is dropped once its model is built (`model_of`), the model once the
    /// scene is built. A Draco bitstream is dropped once decoded: a scene has no use for
    /// it.
    fn into_scene(self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        scene_of(model_of(self, limits, Bitstream::Drop)?, options)
    }

    /// [`MeshFile::into_scene`], and what the scene leaves behind, found from the same
    /// model: the file is read, and a Draco core mesh decoded, once.
    fn into_scene_and_losses(
        self,
        options: &ExportOptions,
        limits: &Limits,
    ) -> Result<(Scene, Vec<crate::loss::Loss>)> {
        let m = model_of(self, limits, Bitstream::Drop)?;
        let losses = scene_losses_of(&m, options);
        let mut scene = scene_of(m, options)?;
        // The vertices left out are counted above, with the faces that use them.
        scene
            .notes
            .retain(|n| n.kind != crate::scene::NoteKind::UnusedVertices);
        Ok((scene, losses))
    }

    /// The scene holds LOD 0's geometry, the skeleton and the skins: what else the mesh
    /// holds stays behind (the other LODs, FACS, HSR flags, tangents, the LOD settings,
    /// and bytes the model keeps uninterpreted).
    fn scene_losses(&self, limits: &Limits) -> Result<Vec<crate::loss::Loss>> {
        Ok(scene_losses_of(
            &Mesh::from_file_with_limits(self, limits)?,
            &ExportOptions::default(),
        ))
    }
}

/// What the scene of a model leaves behind ([`MeshFile::scene_losses`]), for a scene
/// made with `options` (the LOD exported, or every LOD). The vertices the scene leaves
/// out are counted here, with the faces that use them: the scene's own notes on unused
/// vertices (per exported level) are then not needed.
fn scene_losses_of(m: &Mesh, options: &ExportOptions) -> Vec<Loss> {
    let mut losses = Vec::new();
    let n = m.faces.len();
    let ranges = m.lod_ranges();
    let kept = if options.all_lods {
        0..n
    } else {
        ranges.get(options.lod).map_or(0..n, |&(a, b)| a..b)
    };
    let vertex_use = VertexUse::count(
        m.vertices.len(),
        m.faces
            .iter()
            .enumerate()
            .map(|(k, f)| (kept.contains(&k), f.as_slice())),
    );
    losses.extend(vertex_use.unused_loss("face"));
    if !options.all_lods && ranges.len() > 1 {
        let others: Vec<String> = (0..ranges.len())
            .filter(|&k| k != options.lod)
            .map(|k| k.to_string())
            .collect();
        let faces = n - kept.len();
        let only_others = vertex_use.only_left_out;
        losses.push(Loss::counted(
            LossKind::Lods,
            faces,
            format!(
                "{faces} face{} of LOD{} {} and the {only_others} vertices only they use \
                 (the scene holds LOD {}; export --lod all keeps every level)",
                if faces == 1 { "" } else { "s" },
                if others.len() == 1 { "" } else { "s" },
                others.join(", "),
                options.lod
            ),
        ));
    }
    if m.lods.lod_type != 0 || m.lods.num_high_quality_lods != 0 {
        // With one level of detail they describe nothing: how the header was filled in.
        let level = if ranges.len() > 1 {
            Level::Lost
        } else {
            Level::Relaid
        };
        losses.push(
            Loss::new(
                LossKind::LodInfo,
                format!(
                    "lodType {} and numHighQualityLODs {} (the scene has no place for them)",
                    m.lods.lod_type, m.lods.num_high_quality_lods
                ),
            )
            .at(level),
        );
    }
    if let Some(f) = &m.facs {
        losses.push(Loss::counted(
            LossKind::Facs,
            f.poses.len(),
            format!(
                "the FACS facial animation data ({} controls; the scene has no place for it)",
                f.poses.len()
            ),
        ));
    }
    if let Some(h) = &m.hsr_always_visible {
        losses.push(Loss::counted(
            LossKind::Hsr,
            h.len(),
            format!("the HSR flags of {} vertices", h.len()),
        ));
    }
    let tangents = m.vertices.iter().filter(|v| v.tangent().is_some()).count();
    if tangents > 0 {
        losses.push(Loss::counted(
            LossKind::Tangents,
            tangents,
            format!("the tangents of {tangents} vertices (the scene has no place for them)"),
        ));
    }
    if !m.stored.trailing.is_empty() {
        let b = m.stored.trailing.len();
        losses.push(Loss::counted(
            LossKind::TrailingBytes,
            b,
            format!("{b} bytes after the last structure"),
        ));
    }
    if let Some(t) = &m.stored.header_tail {
        losses.push(Loss::counted(
            LossKind::HeaderBytes,
            t.bytes.len(),
            format!("{} header bytes beyond the known fields", t.bytes.len()),
        ));
    }
    losses
}

/// The scene of a model, as [`MeshFile::into_scene`] gives it: one LOD, the model taken
/// apart as the scene is built, or every LOD (which reads the model whole).
fn scene_of(m: Mesh, options: &ExportOptions) -> Result<Scene> {
    if options.all_lods {
        return super::scene::to_scene_all_lods(&m, &options.name);
    }
    super::scene::to_scene(m, &options.name, options.lod)
}

/// What [`model_of`] does with a Draco core mesh's bitstream once it is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bitstream {
    /// Moved into the model's record of what was stored, for writing a FileMesh again.
    Keep,
    /// Dropped at once (the model goes to a scene); the model then records no Draco
    /// choice.
    Drop,
    /// Dropped once the decoder has read it, its fingerprint kept in its place (a
    /// conversion to another version than 7.00, whose loss report needs only that:
    /// [`Mesh::draco_from_v7`]).
    Fingerprint,
}

/// [`Mesh::from_file_with_limits`] of a file the caller no longer needs, dropped once
/// the model is built. A Draco core mesh in the first chunk (where Roblox puts it) is
/// decoded first, as reading the chunks in order would, and its bitstream moves into
/// the model's record of what was stored instead of being copied (or is dropped, as
/// `bitstream` says).
pub(crate) fn model_of(f: FileMesh, limits: &Limits, bitstream: Bitstream) -> Result<Mesh> {
    model_and_fingerprint(f, limits, bitstream).map(|(m, _)| m)
}

/// [`model_of`], and the fingerprint of the Draco bitstream it dropped
/// ([`Bitstream::Fingerprint`]).
pub(crate) fn model_and_fingerprint(
    mut f: FileMesh,
    limits: &Limits,
    bitstream: Bitstream,
) -> Result<(Mesh, Option<Fingerprint>)> {
    let draco = match &mut f.body {
        Body::V6(b) => match b.chunks.first_mut() {
            Some(c) if matches!(c.data, ChunkData::CoreMeshV2(_)) => {
                // An empty COREMESH v1 stands in while the rest is read.
                let empty = ChunkData::CoreMeshV1(CoreMeshV1::default());
                match std::mem::replace(&mut c.data, empty) {
                    ChunkData::CoreMeshV2(cm) => Some(cm),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    };
    let Some(cm) = draco else {
        let mut m = Mesh::from_file_with_limits(&f, limits)?;
        // A Draco core mesh after another chunk was copied into the model as it was read.
        if bitstream == Bitstream::Drop && matches!(m.stored.core, Some(StoredCore::Draco(_))) {
            m.stored.core = None;
        }
        return Ok((m, None));
    };
    // A bitstream not kept is dropped once the decoder has read it.
    let fingerprint = (bitstream == Bitstream::Fingerprint).then(|| Fingerprint::of(&cm.draco));
    let ((vertices, faces), kept) = match bitstream {
        Bitstream::Keep => (draco::decode(&cm.draco[..], limits)?, Some(cm.draco)),
        Bitstream::Drop | Bitstream::Fingerprint => {
            (draco::decode(cm.draco.into_vec(), limits)?, None)
        }
    };
    let mut m = Mesh::from_file_with_limits(&f, limits)?;
    drop(f);
    m.vertices = bytemuck::allocation::cast_vec(vertices);
    m.faces = bytemuck::allocation::cast_vec(faces);
    // Without the bitstream, no choice is recorded (the stand-in COREMESH v1 was not
    // the file's).
    m.stored.core = kept.map(|b| StoredCore::Draco(b.into_vec()));
    Ok((m, fingerprint))
}

/// What a FileMesh import keeps of a scene: the skeleton as bones (a position and a
/// rotation each; what version `v` cannot hold of them, its conversion reports), one UV
/// set, colours as bytes, coarser levels of detail from 3.00 on; no morph targets, no
/// animations.
pub(crate) fn carries(v: Version) -> Carries {
    Carries {
        format: "FileMesh",
        rig: Rig::PositionRotation,
        morph_targets: false,
        animations: false,
        lods: v.has_lods(),
        extra_uv_sets: false,
        attributes: true,
        byte_colors: true,
    }
}

/// A scene as a FileMesh of version `v`, for [`crate::import_scene`]: the scene is
/// dropped once the model is built.
pub(crate) fn import(scene: Scene, v: Version, options: &ConvertOptions) -> Result<Prepared> {
    let mesh = super::scene::from_scene(&scene)?;
    drop(scene);
    convert_mesh(mesh, v, options, AsRead::Unknown, None)
}

/// A model converted to version `v`, the mesh given away: it is dropped once the target
/// is built and compared, before the target is written, so the written bytes are never
/// held beside it.
///
/// A 7.00 target's Draco encoding is done with the mesh's arrays given away
/// ([`Mesh::draco_to_v7`]), so they are not held beside the encoder. `as_read` says
/// whether the mesh is as [`model_of`] read it: its stored Draco bitstream is then
/// known to decode to its arrays without decoding it again, and the encoding the loss
/// report asks for is also done with the arrays given away
/// ([`Mesh::draco_from_v7`]).
///
/// `dropped` is the fingerprint of the mesh's stored Draco bitstream where
/// [`model_and_fingerprint`] dropped it (the mesh then records none).
///
/// A text target is not built: its report is worked out number by number, and the
/// mesh is kept to print it when the [`Prepared`] is written.
pub(crate) fn convert_mesh(
    mut mesh: Mesh,
    v: Version,
    options: &ConvertOptions,
    as_read: AsRead,
    dropped: Option<Fingerprint>,
) -> Result<Prepared> {
    let options = WriteOptions {
        core_mesh: options.core_mesh,
    };
    let seed = match mesh.draco_to_v7(v, &options)? {
        None if as_read == AsRead::Decoded => mesh.draco_from_v7(v, dropped)?,
        seed => seed,
    };
    let summary = line(v, mesh.vertices.len(), mesh.faces.len());
    if v.is_text() {
        let losses = mesh.text_losses_seeded(v, seed, as_read)?;
        return Ok(Prepared::later(
            Box::new(TextTarget { mesh, v }),
            losses,
            summary,
        ));
    }
    let c = mesh.convert_seeded(v, &options, seed, as_read)?;
    drop(mesh);
    Ok(Prepared::later(Box::new(c.file), c.losses, summary))
}

/// A text (1.00/1.01) target: about six times its binary size, so it is printed from the
/// model in pieces when written, never held whole.
struct TextTarget {
    mesh: Mesh,
    v: Version,
}

impl WriteLater for TextTarget {
    fn write_later(&self, out: &mut dyn std::io::Write) -> Result<()> {
        self.mesh.write_text_to(self.v, out)
    }
    fn describe(&self) -> String {
        format!("FileMesh {} (text, printed when written)", self.v)
    }
}

fn line(v: Version, vertices: usize, faces: usize) -> String {
    format!("FileMesh {v}, {vertices} vertices, {faces} faces")
}

/// `meshcodec info`'s lines for a FileMesh.
fn text(info: &Info, version: Version) -> String {
    let mut t = String::new();
    // Writing to a String cannot fail.
    let mut put = |s: String| {
        let _ = writeln!(t, "{s}");
    };
    put(format!("format:     FileMesh {}", info.version));
    if let Some(h) = info.header_size {
        let vs = match info.vertex_size {
            Some(v) if !version.has_skinning() => format!(", {v}-byte vertices"),
            _ => String::new(),
        };
        put(format!("header:     {h} bytes{vs}"));
    }
    if let Some(chunks) = &info.chunks {
        let list: Vec<String> = chunks
            .iter()
            .map(|c| {
                let kept = if c.kind == "unknown" {
                    ", kept as bytes"
                } else {
                    ""
                };
                format!("{} v{} ({} bytes{kept})", c.name, c.version, c.size)
            })
            .collect();
        put(format!("chunks:     {}", list.join(", ")));
    }
    put(format!("vertices:   {}", info.vertices));
    put(format!("faces:      {} (all LODs)", info.faces));
    if version.has_lods() {
        put(format!("lods:       {:?}", info.lod_offsets));
    }
    if let (Some(t), Some(hq)) = (info.lod_type, info.num_high_quality_lods) {
        let pad = info
            .padding
            .map(|p| format!(", padding byte: {p}"))
            .unwrap_or_default();
        put(format!("lod type:   {t}, high-quality LODs: {hq}{pad}"));
    }
    if version.has_skinning() {
        let names = if info.bone_names.is_empty() {
            String::new()
        } else {
            format!(" ({})", info.bone_names.join(", "))
        };
        put(format!("bones:      {}{names}", info.bones));
        put(format!("subsets:    {}", info.subsets));
        put(format!("envelopes:  {}", info.envelopes));
    }
    if let Some(f) = &info.facs {
        let opaque = if f.parsed || f.size == 0 {
            ""
        } else {
            " (kept as opaque bytes)"
        };
        put(format!(
            "facs:       format {}, {} bytes{opaque}, {} face bones, {} controls, {} + {} \
             correctives, matrix versions {:?}",
            f.format,
            f.size,
            f.face_bone_names.len(),
            f.face_control_names.len(),
            f.two_pose_correctives,
            f.three_pose_correctives,
            f.matrix_versions
        ));
    }
    if let Some(n) = info.hsr_flags {
        put(format!("hsr flags:  {n}"));
    }
    if info.trailing_bytes > 0 {
        put(format!(
            "trailing:   {} bytes after the last structure",
            info.trailing_bytes
        ));
    }
    let n = info.non_finite;
    if !n.is_empty() {
        put(format!(
            "not finite: {} positions, {} normals, {} UVs hold NaN or infinity (kept as read)",
            n.positions, n.normals, n.uvs
        ));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::{convert_mesh, line, model_of, Bitstream, FileMesh, Mesh, Prepared};
    use crate::error::{Limits, Result};
    use crate::file::{ConvertOptions, Converted};
    use crate::filemesh::model::convert::{AsRead, WriteOptions};
    use crate::filemesh::Version;

    /// The model's own conversion ([`Mesh::convert_with`]), the borrowed mesh kept: the
    /// oracle the front door's conversion (the mesh given away, its Draco work seeded)
    /// is checked against.
    fn convert_model(mesh: &Mesh, v: Version, options: &ConvertOptions) -> Result<Converted> {
        let c = mesh.convert_with(
            v,
            &WriteOptions {
                core_mesh: options.core_mesh,
            },
        )?;
        Ok(Converted {
            bytes: c.file.write()?,
            losses: c.losses,
            summary: line(v, mesh.vertices.len(), mesh.faces.len()),
        })
    }

    /// A 7.00 conversion of a mesh given away, whose Draco work is done with its arrays
    /// given away ([`Mesh::draco_to_v7`]), is the conversion: the same bytes, losses and
    /// summary (or error). The meshes are every chunked fixture and corpus file, and each
    /// one's 4.01 conversion (a 7.00 file's normals are on Draco's grid, so those take
    /// the path given away).
    #[test]
    fn owned_draco_conversion_is_the_conversion() {
        let (mut checked, mut owned) = (0, 0);
        for (path, f) in crate::test_filemeshes(&["chunked"]) {
            let limits = Limits::default();
            let Ok(m) = Mesh::from_file_with_limits(&f, &limits) else {
                continue;
            };
            let options = ConvertOptions::default();
            let mut sources = vec![m.clone()];
            if let Ok(c) = convert_model(&m, Version::V4_01, &options) {
                let back = FileMesh::read(&c.bytes).expect("a 4.01 conversion reads");
                sources.push(Mesh::from_file(&back).expect("its model"));
            }
            for m in sources {
                let mut given = m.clone();
                if given
                    .draco_to_v7(Version::V7_00, &WriteOptions::default())
                    .is_ok_and(|d| d.is_some())
                {
                    owned += 1;
                }
                let a = convert_model(&m, Version::V7_00, &options);
                let b = convert_mesh(m, Version::V7_00, &options, AsRead::Unknown, None)
                    .and_then(Prepared::into_converted);
                match (a, b) {
                    (Ok(a), Ok(b)) => {
                        assert!(a.bytes == b.bytes, "{}", path.display());
                        assert_eq!(a.losses, b.losses, "{}", path.display());
                        assert_eq!(a.summary, b.summary);
                    }
                    (a, b) => assert_eq!(
                        a.map(|c| c.summary).map_err(|e| e.to_string()),
                        b.map(|c| c.summary).map_err(|e| e.to_string()),
                        "{}",
                        path.display()
                    ),
                }
                checked += 1;
            }
        }
        // Only real (Roblox-encoded) Draco files take the path given away; the fixtures'
        // bitstreams were made with other settings, so they need the corpus.
        let corpus = crate::test_corpus_roblox().is_dir();
        assert!(
            checked >= 10 && (owned >= 1 || !corpus),
            "{checked} meshes, {owned} given away"
        );
    }

    /// A conversion of a file as read, which does not decode its Draco bitstream again
    /// to learn that it decodes to the model's arrays, is the conversion of the model
    /// read from it: the same bytes, losses and summary (or error), for every chunked
    /// fixture and corpus file to every version.
    #[test]
    fn conversion_as_read_is_the_conversion() {
        let mut draco = 0;
        for (path, f) in crate::test_filemeshes(&["chunked"]) {
            let limits = Limits::default();
            let Ok(m) = Mesh::from_file_with_limits(&f, &limits) else {
                continue;
            };
            if matches!(
                m.stored.core,
                Some(crate::filemesh::model::stored::StoredCore::Draco(_))
            ) {
                draco += 1;
            }
            let options = ConvertOptions::default();
            for v in Version::ALL {
                let a = convert_model(&m, v, &options);
                let read = model_of(f.clone(), &limits, Bitstream::Keep).expect("read");
                let b = convert_mesh(read, v, &options, AsRead::Decoded, None)
                    .and_then(Prepared::into_converted);
                let what = format!("{} to {v}", path.display());
                match (a, b) {
                    (Ok(a), Ok(b)) => {
                        assert!(a.bytes == b.bytes, "{what}");
                        assert_eq!(a.losses, b.losses, "{what}");
                        assert_eq!(a.summary, b.summary, "{what}");
                    }
                    (a, b) => assert_eq!(
                        a.map(|c| c.summary).map_err(|e| e.to_string()),
                        b.map(|c| c.summary).map_err(|e| e.to_string()),
                        "{what}"
                    ),
                }
            }
        }
        // The fixtures have three Draco files; the corpus adds two.
        assert!(draco >= 3, "{draco}");
    }

    /// `Mesh::draco_from_v7` drops the stored bitstream and gives the arrays back
    /// bit for bit, with the stored bitstream's fingerprint and, when the encode gave
    /// another bitstream, that one's fingerprint and whether it decodes to the arrays,
    /// for every chunked fixture and corpus file with a Draco core mesh, to every target.
    #[test]
    fn draco_from_v7_gives_the_arrays_back() {
        use crate::codec::draco;
        use crate::filemesh::model::convert::{Blob, Fingerprint, OwnedDraco, Reencoded};
        use crate::filemesh::model::stored::StoredCore;
        let limits = Limits::default();
        let bytes = |m: &Mesh| {
            let v: &[u8] = bytemuck::cast_slice(&m.vertices);
            let f: &[u8] = bytemuck::cast_slice(&m.faces);
            [v, f].concat()
        };
        let (mut same, mut other, mut restored, mut not_done) = (0, 0, 0, 0);
        for (path, f) in crate::test_filemeshes(&["chunked"]) {
            let Ok(m) = model_of(f, &limits, Bitstream::Keep) else {
                continue;
            };
            let Some(StoredCore::Draco(stored)) = m.stored.core.clone() else {
                continue;
            };
            let faces = bytemuck::cast_slice(&m.faces);
            let again = draco::encode(m.raw_vertex_slice(), faces);
            for v in Version::ALL {
                let what = format!("{} to {v}", path.display());
                let mut given = m.clone();
                let Some(seed) = given.draco_from_v7(v, None).expect(&what) else {
                    // 7.00 writes the stored bitstream: it is kept.
                    assert_eq!(v, Version::V7_00, "{what}");
                    assert!(given.stored.core == m.stored.core, "{what}");
                    continue;
                };
                assert!(given.stored.core.is_none(), "{what}");
                assert!(bytes(&given) == bytes(&m), "{what}");
                let OwnedDraco::Gone { stored: s, encode } = seed else {
                    panic!("{what}: {seed:?}");
                };
                let again = again.as_ref().expect("the encoder took it");
                assert!(s.matches(&stored), "{what}");
                assert!(Blob::Gone(s).same(&Blob::Stored(&stored)), "{what}");
                let mut changed = stored.clone();
                if let Some(b) = changed.last_mut() {
                    *b ^= 1;
                }
                assert!(!s.matches(&changed), "{what}");
                match encode {
                    Reencoded::NotDone => {
                        // Only for a target that does not hold the arrays as they are.
                        assert!(v.is_text() || !v.has_lods(), "{what}");
                        not_done += 1;
                    }
                    Reencoded::Stored => {
                        assert!(*again == stored, "{what}");
                        same += 1;
                    }
                    Reencoded::Other {
                        bitstream: e,
                        exact,
                    } if e == Fingerprint::never_made() => {
                        // Not encoded: the normals were known not to come back.
                        assert!(!exact && *again != stored, "{what}");
                        let back = draco::decode(again, &limits).expect(&what).0;
                        let normals = |v: &[crate::filemesh::raw::Vertex]| -> Vec<[u32; 3]> {
                            v.iter().map(|v| v.normal.map(f32::to_bits)).collect()
                        };
                        assert!(normals(&back) != normals(m.raw_vertex_slice()), "{what}");
                        other += 1;
                        restored += 1;
                    }
                    Reencoded::Other {
                        bitstream: e,
                        exact,
                    } => {
                        assert!(e.matches(again) && *again != stored, "{what}");
                        assert!(!Blob::Gone(e).same(&Blob::Gone(s)), "{what}");
                        let back = draco::decode(again, &limits);
                        let decodes = back.is_ok_and(|(bv, bf)| {
                            bytemuck::cast_slice::<_, u8>(&bv)
                                == bytemuck::cast_slice::<_, u8>(&m.vertices)
                                && bytemuck::cast_slice::<_, u32>(&bf)
                                    == bytemuck::cast_slice::<_, u32>(&m.faces)
                        });
                        assert_eq!(exact, decodes, "{what}");
                        other += 1;
                        restored += usize::from(!exact);
                    }
                }
            }
        }
        // The fixtures' bitstreams were made with other settings: a new bitstream would
        // be another, whose normals differ (so none is made). Roblox's files in the
        // corpus give their own bitstream again.
        assert!(
            other >= 1 && restored >= 1 && not_done >= 1,
            "{other} other, {restored} restored, {not_done} not encoded"
        );
        assert!(
            same >= 1 || !crate::test_corpus_roblox().is_dir(),
            "{same} the same"
        );
    }

    /// The model of a file given away (its Draco bitstream moved, not copied) is the
    /// model read from it, or the same error, for every chunked fixture and corpus file.
    #[test]
    fn owned_model_is_the_model() {
        let mut checked = 0;
        for (path, f) in crate::test_filemeshes(&["chunked", "filemesh"]) {
            let limits = Limits::default();
            let read = Mesh::from_file_with_limits(&f, &limits).map_err(|e| e.to_string());
            let owned = model_of(f, &limits, Bitstream::Keep).map_err(|e| e.to_string());
            assert_eq!(owned, read, "{}", path.display());
            checked += 1;
        }
        // The fixtures alone are 19 files; the corpus adds more when it is there.
        assert!(checked >= 19, "{checked}");
    }
}
