//! Fuzz target: a Draco bitstream (or a 7.00 FileMesh, whose COREMESH v2 bitstream is
//! taken out), walked where it lies (`draco::survey_in_place`, what `info` and `verify`
//! use) and decoded by `draco-core`. Where the walk answers, the decoder accepts the
//! stream with the same counts and the same points whose values are not finite.
#![no_main]

use meshcodec::codec::draco;
use meshcodec::Limits;

const LIMITS: Limits = Limits {
    max_input_bytes: 1 << 20,
    max_decoded_bytes: 16 << 20,
};

/// The bitstream in `data`: from `DRACO` on, as long as the `u32` before it says when
/// that fits (a COREMESH v2 payload), else to the end.
fn bitstream(data: &[u8]) -> &[u8] {
    let Some(at) = data.windows(5).position(|w| w == b"DRACO") else {
        return data;
    };
    let len = at
        .checked_sub(4)
        .and_then(|l| data.get(l..at))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    match len {
        Some(len) if at + len <= data.len() => &data[at..at + len],
        _ => &data[at..],
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let blob = bitstream(data);
    let Some(walked) = draco::survey_in_place(blob, &LIMITS) else {
        return;
    };
    let (vertices, faces) = match draco::decode(blob, &LIMITS) {
        Ok(decoded) => decoded,
        Err(e) => panic!("the walk answered {walked:?}, draco-core refused: {e}"),
    };
    let bad = |xs: &[f32]| xs.iter().any(|x| !x.is_finite());
    let count = |f: &dyn Fn(&meshcodec::filemesh::raw::Vertex) -> bool| {
        vertices.iter().filter(|v| f(v)).count()
    };
    assert_eq!(walked.points, vertices.len());
    assert_eq!(walked.faces, faces.len());
    assert_eq!(walked.non_finite.positions, count(&|v| bad(&v.position)));
    assert_eq!(walked.non_finite.normals, count(&|v| bad(&v.normal)));
    assert_eq!(walked.non_finite.uvs, count(&|v| bad(&v.uv)));
});
