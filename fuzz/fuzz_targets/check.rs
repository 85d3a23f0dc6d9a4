// Shared by the binary-format targets (included, not a module of its own).
//
// Properties checked on every input:
// - reading never panics, and never allocates past the limits (libFuzzer's
//   -rss_limit_mb and -malloc_limit_mb catch that);
// - an accepted file writes back byte for byte;
// - `check` (every payload decoded) and the summary are Ok or Err, never a panic;
// - every conversion the format offers to its own versions, and through the scene to
//   the other formats, either fails cleanly or writes a file that opens again, whose
//   second write is identical (stable).

use meshcodec::{convert_to, open_with_limits, ConvertOptions, Limits, MeshFile};

const LIMITS: Limits = Limits {
    max_input_bytes: 1 << 20,
    max_decoded_bytes: 16 << 20,
};

const TARGETS: &[&str] = &[
    "1.00", "1.01", "2.00", "3.00", "3.01", "4.00", "4.01", "5.00", "6.00", "7.00", "0", "2",
    "3", "4", "5", "6", "7", "8", "ms10", "ms11", "ms12", "ms13", "ms14", "filemesh:4.00",
    "filemesh:7.00", "csgphs:7", "csgmdl:5",
];

/// Checks the properties above on one input.
pub fn check(data: &[u8]) {
    let Ok(file) = open_with_limits(data, &LIMITS) else {
        return;
    };
    let written = file.write().expect("an accepted file writes back");
    assert_eq!(written, data, "read then write is byte-exact");
    let _ = file.check(&LIMITS);
    let _ = file.summary(&LIMITS);
    let _ = file.to_scene(&Default::default(), &LIMITS);
    for t in TARGETS {
        let Ok(c) = convert_to(&file, t, &ConvertOptions::default(), &LIMITS) else {
            continue;
        };
        let again = open_with_limits(&c.bytes, &meshcodec::Limits::default())
            .expect("a converted file opens again");
        assert_eq!(again.write().expect("writes"), c.bytes, "stable after conversion");
    }
}
