// Shared by the binary-format targets (included, not a module of its own).
//
// Properties checked on every input:
// - reading never panics, and never allocates past the limits (libFuzzer's
//   -rss_limit_mb and -malloc_limit_mb catch that);
// - reading from a reader accepts and refuses what reading the bytes does;
// - an accepted file writes back byte for byte;
// - `check` (every payload decoded) and the summary are Ok or Err, never a panic;
// - every conversion the format offers to its own versions, and through the scene to
//   the other formats, either fails cleanly or writes a file that opens again, whose
//   second write is identical (stable). The conversion is the one the command-line tool
//   runs (`convert_prepared`: the file given away, arrays moved, Draco work done with
//   them given away); `convert_to` copies the file first.

use meshcodec::{convert_to, open_with_limits, ConvertOptions, Limits, MeshFile};

const LIMITS: Limits = Limits {
    max_input_bytes: 1 << 20,
    max_decoded_bytes: 16 << 20,
};

const TARGETS: &[&str] = &[
    "1.00", "1.01", "2.00", "3.00", "3.01", "4.00", "4.01", "5.00", "6.00", "7.00", "0", "2",
    "3", "4", "5", "6", "7", "8", "ms10", "ms11", "ms12", "ms13", "ms14", "filemesh:4.00",
    "filemesh:7.00", "csgphs:7", "csgmdl:5", "stf",
];

/// Checks the properties above on one input.
pub fn check(data: &[u8]) {
    // An STF file records the time it was written: fixed, two conversions of one input
    // give the same bytes even when a second passes between them.
    static FIXED_TIME: std::sync::Once = std::sync::Once::new();
    FIXED_TIME.call_once(|| std::env::set_var("SOURCE_DATE_EPOCH", "0"));
    let opened = open_with_limits(data, &LIMITS);
    // Read from a reader (what the command-line tool does: FileMesh, UNIGINE and STF
    // straight into place, text in pieces), the file is accepted or refused alike, and
    // writes back the same.
    let from_reader = meshcodec::open_reader(std::io::Cursor::new(data), &LIMITS);
    match (&opened, &from_reader) {
        (Ok(a), Ok(b)) => assert!(
            a.write().ok() == b.write().ok(),
            "the file read from a reader writes the same"
        ),
        (Err(_), Err(_)) => {}
        (a, b) => panic!(
            "read whole: {:?}; from a reader: {:?}",
            a.as_ref().map(|f| f.version_name()),
            b.as_ref().map(|f| f.version_name())
        ),
    }
    let Ok(file) = opened else {
        return;
    };
    let written = file.write().expect("an accepted file writes back");
    assert_eq!(written, data, "read then write is byte-exact");
    let _ = file.check(&LIMITS);
    let _ = file.summary(&LIMITS);
    let _ = file.to_scene(&Default::default(), &LIMITS);
    for t in TARGETS {
        let borrowed = convert_to(&file, t, &ConvertOptions::default(), &LIMITS);
        let Ok(c) = borrowed else {
            continue;
        };
        let again = open_with_limits(&c.bytes, &meshcodec::Limits::default())
            .expect("a converted file opens again");
        assert_eq!(again.write().expect("writes"), c.bytes, "stable after conversion");
    }
}
