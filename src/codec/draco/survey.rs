//! [`survey`]: what `info` and `verify` ask of a bitstream (its counts, and which values
//! are not finite), with the verdict and error of [`decode`] but none of
//! its values kept: the walk of a Roblox stream where it lies (`survey/in_place.rs`), else
//! `draco-core`'s decoder, whose mesh is read where it lies.
//!
//! [`decode`]: super::decode()

mod in_place;

pub(in crate::codec::draco) use in_place::decode as decode_in_place;

use super::core::{attributes, decode_mesh, f32s, face_out_of_range, for_each_value};
use crate::error::{Limits, Result};
use crate::filemesh::raw::records::NonFiniteCounts;

/// What [`survey`] finds in a bitstream without copying its values out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Survey {
    /// Points (vertices) the bitstream decodes to.
    pub points: usize,
    /// Faces.
    pub faces: usize,
    /// Points whose position, normal or texture coordinate has a component that is not
    /// finite.
    pub non_finite: NonFiniteCounts,
}

/// Decodes a bitstream as [`decode`] does, with the same verdict and the same error,
/// but keeps none of its values: the counts, and which values are not finite. `info`
/// and `verify` use it.
///
/// A stream shaped as Roblox writes them is walked where it lies, its symbols drawn a
/// piece at a time from `draco-core`'s own rANS decoder, so nothing the size of the
/// mesh is held (`survey/in_place.rs`). Any other stream, and any stream that walk finds
/// wrong, goes through `draco-core`'s decoder, whose verdict and error it gets, and whose
/// mesh is then read where it lies.
///
/// # Errors
///
/// As [`decode`].
///
/// [`decode`]: super::decode()
pub fn survey(bitstream: &[u8], limits: &Limits) -> Result<Survey> {
    if let Some(survey) = in_place::survey(bitstream, limits) {
        return Ok(survey);
    }
    decoder_survey(bitstream, limits)
}

/// [`survey`]'s walk of the stream where it lies, without `draco-core`'s mesh: `None`
/// where it leaves the verdict to `draco-core` (any stream not shaped as Roblox writes
/// them, and any it finds wrong). For tests and fuzzing, which compare the two.
#[doc(hidden)]
pub fn survey_in_place(bitstream: &[u8], limits: &Limits) -> Option<Survey> {
    in_place::survey(bitstream, limits)
}

/// [`survey`] through `draco-core`'s decoder and the mesh it builds: for the streams
/// [`in_place`] leaves to it, and what gives every refusal its error.
fn decoder_survey(bitstream: &[u8], limits: &Limits) -> Result<Survey> {
    let (mesh, num_points) = decode_mesh(bitstream, limits)?;
    let faces = mesh.num_faces();
    // `decode` reports a face past the points after the attributes: found now, reported
    // in that order.
    let bad_face = mesh
        .faces()
        .iter()
        .position(|f| f.iter().any(|p| p.0 as usize >= num_points));
    let mesh = mesh.into_point_cloud();
    let [position, normal, uv, tangent, color] = attributes(&mesh)?;
    let mut non_finite = NonFiniteCounts::default();
    let bad = |xs: &[f32]| usize::from(xs.iter().any(|x| !x.is_finite()));
    for_each_value(&position, num_points, |_, b: &[u8; 12]| {
        non_finite.positions += bad(&f32s::<3>(b));
    })?;
    // Canonical normals differ from the decoded ones only in finite values.
    for_each_value(&normal, num_points, |_, b: &[u8; 12]| {
        non_finite.normals += bad(&f32s::<3>(b));
    })?;
    for_each_value(&uv, num_points, |_, b: &[u8; 8]| {
        non_finite.uvs += bad(&f32s::<2>(b));
    })?;
    for_each_value(&tangent, num_points, |_, _: &[u8; 4]| ())?;
    for_each_value(&color, num_points, |_, _: &[u8; 4]| ())?;
    if let Some(i) = bad_face {
        return Err(face_out_of_range(i, num_points));
    }
    Ok(Survey {
        points: num_points,
        faces,
        non_finite,
    })
}
