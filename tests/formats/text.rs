//! FileMesh 1.00/1.01 (text): corpus and fixture round trips, malformed input, truncation,
//! and properties of the format descriptor.

use crate::common;

use std::path::Path;

use meshcodec::filemesh::raw::text::{
    ExponentDigits, FileMeshV1, LineEnding, TextFormat, TokenOverride, VertexV1,
};
use meshcodec::filemesh::raw::Version;
use meshcodec::strategy::filemesh::{text_faces, text_format};
use meshcodec::strategy::Size;
use meshcodec::ErrorKind;
use proptest::prelude::*;

fn version_of(bytes: &[u8]) -> Version {
    Version::from_line(bytes.get(..12).expect("version line")).expect("known version")
}

fn read(bytes: &[u8]) -> meshcodec::Result<FileMeshV1> {
    FileMeshV1::read(bytes, version_of(bytes))
}

/// Reads, writes back and compares; returns the mesh.
fn assert_round_trip(name: &str, bytes: &[u8]) -> FileMeshV1 {
    let version = version_of(bytes);
    let mesh = FileMeshV1::read(bytes, version).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = mesh
        .write(version)
        .unwrap_or_else(|e| panic!("{name}: write: {e}"));
    if out != bytes {
        let at = out.iter().zip(bytes).position(|(a, b)| a != b);
        panic!(
            "{name}: written {} bytes differ from the {} read (first difference at {at:?})",
            out.len(),
            bytes.len()
        );
    }
    mesh
}

fn text_corpus_files(dir: &Path) -> Vec<std::path::PathBuf> {
    common::corpus_filemeshes(dir, &["1.00", "1.01"])
}

#[test]
fn corpus_files_round_trip_byte_exact() {
    let Some(dir) = common::corpus() else { return };
    let files = text_corpus_files(&dir);
    assert!(
        files.len() >= 5,
        "expected the 5 text corpus files, found {files:?}"
    );
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let mesh = assert_round_trip(&name, &bytes);
        let f = mesh.format;
        eprintln!(
            "{name}: {} faces, {:?}, final newline {}, precision {}, exponent {:?}, {} overrides",
            mesh.num_faces(),
            f.line_ending,
            f.final_newline,
            f.precision,
            f.exponent_digits,
            mesh.overrides().len()
        );
        // Line 2 says the face count; everything else is derived from the values.
        let line2 = bytes.split(|&b| b == b'\n').nth(1).unwrap();
        let count: usize = std::str::from_utf8(line2)
            .unwrap()
            .trim_end()
            .parse()
            .unwrap();
        assert_eq!(mesh.num_faces(), count, "{name}");
        assert_eq!(f.precision, 6, "{name}");
        assert!(!f.final_newline, "{name}: no real file ends with a newline");
        let known = [
            "v1.00-arrowhat.mesh",
            "v1.00-rbxmesh-158071912.mesh",
            "v1.00-sword.mesh",
            "v1.01-composit-tshirt.mesh",
            "v1.01-torso.mesh",
        ];
        if known.contains(&name.as_str()) {
            assert_eq!(mesh.overrides(), &[] as &[TokenOverride], "{name}");
        }
    }
}

#[test]
fn corpus_descriptors_and_values() {
    let Some(dir) = common::corpus() else { return };
    let load = |name: &str| {
        let bytes = std::fs::read(dir.join("roblox").join(name)).unwrap();
        read(&bytes).unwrap()
    };
    let m = load("v1.00-rbxmesh-158071912.mesh");
    assert_eq!(m.format.line_ending, LineEnding::CrLf);
    assert_eq!(m.format.exponent_digits, ExponentDigits::Three);
    assert_eq!(m.num_faces(), 1388);
    let v = m.faces[0][0];
    assert_eq!(v.position, [-0.968616, 0.320282, -3.52221]);
    assert_eq!(v.normal, [1.0, "1.50996e-007".parse::<f32>().unwrap(), 0.0]);

    let m = load("v1.00-sword.mesh");
    assert_eq!(m.format.line_ending, LineEnding::CrLf);
    assert_eq!(m.format.exponent_digits, ExponentDigits::Three);

    let m = load("v1.00-arrowhat.mesh");
    assert_eq!(m.format.line_ending, LineEnding::Lf);
    // No exponent in the file: nothing to learn, the canonical width is kept.
    assert_eq!(m.format.exponent_digits, ExponentDigits::Two);
    // Raw layer: 1.00 positions are not halved, normals of length 2 kept.
    assert_eq!(m.faces[0][0].position, [-5.79567, -0.179818, 0.0722833]);
    assert_eq!(m.faces[0][0].normal, [0.0, -0.00680995, 1.99999]);

    let m = load("v1.01-composit-tshirt.mesh");
    assert_eq!(m.num_faces(), 2);
    assert!(
        m.faces.iter().flatten().all(|v| v.uvw[2] == 0.5),
        "w = 0.5 kept"
    );
    assert_eq!(m.faces[0][1].uvw, [1.0, 0.0, 0.5], "V as in the file");
}

#[test]
fn fixtures_round_trip_and_match_expected() {
    let dir = common::fixture_dir("text");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let expected = expected.as_object().unwrap();
    assert_eq!(expected.len(), 3);
    for (name, exp) in expected {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let mesh = assert_round_trip(name, &bytes);
        assert_eq!(mesh.overrides(), &[] as &[TokenOverride], "{name}");
        let f = mesh.format;
        assert_eq!(exp["faces"].as_u64().unwrap() as usize, mesh.num_faces());
        assert_eq!(exp["final_newline"].as_bool().unwrap(), f.final_newline);
        let le = match f.line_ending {
            LineEnding::Lf => "LF",
            LineEnding::CrLf => "CRLF",
        };
        assert_eq!(exp["line_ending"], le, "{name}");
        let digits = match f.exponent_digits {
            ExponentDigits::Two => 2,
            ExponentDigits::Three => 3,
        };
        assert_eq!(exp["exponent_digits"].as_u64(), Some(digits), "{name}");
        let nonzero_w = mesh
            .faces
            .iter()
            .flatten()
            .filter(|v| v.uvw[2] != 0.0)
            .count();
        assert_eq!(
            exp["nonzero_w"].as_u64().unwrap() as usize,
            nonzero_w,
            "{name}"
        );
        let first = &mesh.faces[0][0];
        let want: Vec<Vec<f32>> = serde_json::from_value(exp["first_vertex"].clone()).unwrap();
        assert_eq!(
            want,
            [
                first.position.to_vec(),
                first.normal.to_vec(),
                first.uvw.to_vec()
            ]
        );
    }
}

#[test]
fn canonical_format_text() {
    assert_eq!(TextFormat::canonical(), TextFormat::default());
    let v = |p: [f32; 3], n: [f32; 3], t: [f32; 3]| VertexV1 {
        position: p,
        normal: n,
        uvw: t,
    };
    let mesh = FileMeshV1::new(vec![[
        v(
            [0.5, -1.0, 1.5e-7],
            [0.0, -0.0, 1.0],
            [0.25, 1.0 / 3.0, 0.0],
        ),
        v(
            [123456.0, 1234567.0, 1e-4],
            [1e-5, 100000.0, 1e6],
            [0.0, 0.0, 0.5],
        ),
        v(
            [f32::MAX, f32::MIN_POSITIVE, 1e-45],
            [2.5, 0.1, -0.1],
            [1.0, 0.0, 0.0],
        ),
    ]]);
    let text = mesh.write(Version::V1_01).unwrap();
    assert_eq!(
        std::str::from_utf8(&text).unwrap(),
        "version 1.01\n1\n\
         [0.5,-1,1.5e-07][0,-0,1][0.25,0.333333,0]\
         [123456,1.23457e+06,0.0001][1e-05,100000,1e+06][0,0,0.5]\
         [3.40282e+38,1.17549e-38,1.4013e-45][2.5,0.1,-0.1][1,0,0]"
    );
    assert_round_trip("canonical", &text);

    let crlf = FileMeshV1::with_format(
        mesh.faces.clone(),
        TextFormat {
            line_ending: LineEnding::CrLf,
            final_newline: true,
            exponent_digits: ExponentDigits::Three,
            ..TextFormat::canonical()
        },
    );
    let text = crlf.write(Version::V1_00).unwrap();
    let s = std::str::from_utf8(&text).unwrap();
    assert!(
        s.starts_with("version 1.00\r\n1\r\n[0.5,-1,1.5e-007]"),
        "{s}"
    );
    assert!(s.ends_with("[3.40282e+038,1.17549e-038,1.4013e-045][2.5,0.1,-0.1][1,0,0]\r\n"));
    let back = assert_round_trip("crlf", &text);
    assert_eq!(back.format, crlf.format);

    let mut number = String::new();
    TextFormat::canonical()
        .write_number(1048.625, &mut number)
        .unwrap();
    assert_eq!(number, "1048.62", "ties to even, like C's printf");
}

#[test]
fn empty_mesh() {
    let mesh = assert_round_trip("empty", b"version 1.00\n0\n");
    assert_eq!(mesh.num_faces(), 0);
    assert!(!mesh.format.final_newline);
    let mesh = assert_round_trip("empty+nl", b"version 1.01\r\n0\r\n\r\n");
    assert!(mesh.format.final_newline);
    assert_eq!(
        FileMeshV1::new(vec![]).write(Version::V1_00).unwrap(),
        b"version 1.00\n0\n"
    );
}

fn face_text(tokens: &[&str]) -> String {
    assert_eq!(tokens.len(), 27);
    tokens
        .chunks(3)
        .map(|t| format!("[{}]", t.join(",")))
        .collect()
}

#[test]
fn odd_tokens_are_kept_as_overrides() {
    let mut tokens = vec!["0"; 27];
    tokens[0] = "1.0"; // trailing zero
    tokens[1] = "+2"; // plus sign
    tokens[2] = ".5"; // no leading zero
    tokens[3] = "1E5"; // capital E, not %g's choice
    tokens[4] = "0.1000000001"; // more digits than the precision
    tokens[5] = "1e-50"; // underflows to 0
    tokens[6] = "1.5e-07"; // fine: what %g prints
    tokens[7] = "-0.0"; // -0 printed as -0.0
    tokens[8] = "1.50996e-007"; // a lone three-digit exponent among two-digit ones
    tokens[9] = "2e-07";
    tokens[11] = "1e39"; // beyond f32::MAX: the nearest finite f32 is f32::MAX
    tokens[12] = "-3.403e+38"; // %.4g of -f32::MAX: no override needed at precision 4,
                               // but this file is precision 6
    tokens[10] = "3e-07";
    let text = format!("version 1.01\n1\n{}", face_text(&tokens));
    let mut mesh = assert_round_trip("odd", text.as_bytes());
    let kept: Vec<(usize, &str)> = mesh
        .overrides()
        .iter()
        .map(|o| (o.index, o.text.as_str()))
        .collect();
    assert_eq!(
        kept,
        [
            (0, "1.0"),
            (1, "+2"),
            (2, ".5"),
            (3, "1E5"),
            (4, "0.1000000001"),
            (5, "1e-50"),
            (7, "-0.0"),
            (8, "1.50996e-007"),
            (11, "1e39"),
            (12, "-3.403e+38"),
        ]
    );
    let v = mesh.faces[0][0];
    assert_eq!(v.position, [1.0, 2.0, 0.5]);
    assert_eq!(v.normal, [1e5, 0.1, 0.0]);
    assert_eq!(v.uvw[1].to_bits(), (-0.0f32).to_bits());
    assert_eq!(mesh.faces[0][1].position[2], f32::MAX);
    assert_eq!(mesh.faces[0][1].normal[0], -f32::MAX);
    assert_eq!(mesh.format.exponent_digits, ExponentDigits::Two);

    // An edited value prints in the file's style; untouched ones keep their text.
    mesh.faces[0][0].position[0] = 3.0;
    let out = String::from_utf8(mesh.write(Version::V1_01).unwrap()).unwrap();
    assert!(out.contains("\n[3,+2,.5][1E5,"), "{out}");
    mesh.clear_overrides();
    let out = String::from_utf8(mesh.write(Version::V1_01).unwrap()).unwrap();
    assert!(
        out.contains("\n[3,2,0.5][100000,0.1,0][1.5e-07,-0,1.50996e-07]"),
        "{out}"
    );
}

#[test]
fn other_precisions_are_detected() {
    // A file printed with 9 significant digits: no override needed once detected.
    let values: Vec<f32> = (0..27).map(|i| 0.1 + i as f32 / 7.0).collect();
    let format = TextFormat {
        precision: 9,
        ..TextFormat::canonical()
    };
    let tokens: Vec<String> = values
        .iter()
        .map(|&v| {
            let mut s = String::new();
            format.write_number(v, &mut s).unwrap();
            s
        })
        .collect();
    let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let text = format!("version 1.00\n1\n{}", face_text(&refs));
    let mesh = assert_round_trip("p9", text.as_bytes());
    assert_eq!(mesh.format.precision, 9);
    assert!(mesh.overrides().is_empty());
}

/// Asserts an error whose message names `line L, column C` and contains `what`.
#[track_caller]
fn assert_error(input: &[u8], line: usize, column: usize, what: &str) {
    let err = match read(input) {
        Ok(m) => panic!(
            "{:?}: read as {} faces",
            String::from_utf8_lossy(input),
            m.num_faces()
        ),
        Err(e) => e,
    };
    let msg = match err.kind() {
        ErrorKind::Invalid(m) => m.clone(),
        other => panic!("not Invalid: {other:?}"),
    };
    let at = format!("line {line}, column {column}: ");
    assert!(
        msg.starts_with(&at) && msg.contains(what),
        "{:?}: got {msg:?}, wanted {at:?} … {what:?}",
        String::from_utf8_lossy(input)
    );
    // The offset is that of line/column.
    let offset = err.offset().expect("offset") as usize;
    let before = &input[..offset];
    assert_eq!(before.iter().filter(|&&b| b == b'\n').count() + 1, line);
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    assert_eq!(offset - line_start + 1, column);
    assert!(err.to_string().contains(&at), "{err}");
}

#[test]
fn malformed_inputs_name_line_and_column() {
    let face = face_text(&["0"; 27]); // 63 bytes
    let ok = format!("version 1.00\n1\n{face}");
    assert!(read(ok.as_bytes()).is_ok());

    let cases: Vec<(String, usize, usize, &str)> = vec![
        // Version line and its ending.
        ("version 1.00".into(), 1, 13, "expected a line ending"),
        ("version 1.00\r".into(), 1, 13, "expected a line ending"),
        ("version 1.00 \n1\n".into(), 1, 13, "expected a line ending"),
        // Face count.
        ("version 1.00\n".into(), 2, 1, "expected the face count"),
        ("version 1.00\nx\n".into(), 2, 1, "expected the face count"),
        ("version 1.00\n-1\n".into(), 2, 1, "expected the face count"),
        (
            "version 1.00\n1".into(),
            2,
            2,
            "expected a line ending after the face count",
        ),
        (
            "version 1.00\n1 \n".into(),
            2,
            2,
            "expected a line ending after the face count",
        ),
        ("version 1.00\n01\n".into(), 2, 1, "leading zero"),
        (
            "version 1.00\n99999999999999999999999\n".into(),
            2,
            1,
            "too large",
        ),
        (
            format!("version 1.00\n4294967295\n{face}"),
            2,
            1,
            "faces need at least",
        ),
        (
            format!("version 1.00\n2\n{face}"),
            2,
            1,
            "2 faces need at least 126 bytes",
        ),
        // Mixed line endings.
        (
            format!("version 1.00\r\n1\n{face}"),
            2,
            2,
            "mixed line endings",
        ),
        (
            format!("version 1.00\n1\r\n{face}"),
            2,
            2,
            "mixed line endings",
        ),
        (
            format!("version 1.00\n1\n{face}\r\n"),
            3,
            64,
            "mixed line endings",
        ),
        // Wrong face count (too small / too large).
        (
            format!("version 1.00\n1\n{face}{face}"),
            3,
            64,
            "more data after the 1 faces",
        ),
        (
            format!("version 1.00\n2\n{}", face_text(&["1000"; 27])),
            3,
            145,
            "line 2 says 2 faces but the data ends after 1 (found the end of the data)",
        ),
        (
            format!("version 1.00\n2\n{}\n", face_text(&["1000"; 27])),
            3,
            145,
            "the data ends after 1 (found a line ending)",
        ),
        (
            format!("version 1.00\n2\n{face}{}", " ".repeat(70)),
            3,
            64,
            "expected '[' to open a triple, found ' '",
        ),
        // Missing bracket, non-numbers, too few/many numbers.
        (
            ok.replacen("[0,0,0][0", "00,0,0][0", 1),
            3,
            1,
            "expected '[' to open a triple, found '0'",
        ),
        (
            ok.replacen("0][0", "0[[0", 1),
            3,
            7,
            "expected ']' after the third number, found '['",
        ),
        (
            ok.replacen("[0,0,0]", "[0,x,0]", 1),
            3,
            4,
            "expected a number, found 'x'",
        ),
        (
            ok.replacen("[0,0,0]", "[0,1.2.3,0]", 1),
            3,
            4,
            "\"1.2.3\" is not a number",
        ),
        (
            ok.replacen("[0,0,0]", "[0,1e,0]", 1),
            3,
            4,
            "\"1e\" is not a number",
        ),
        (
            ok.replacen("[0,0,0]", "[0,-,0]", 1),
            3,
            4,
            "\"-\" is not a number",
        ),
        (
            ok.replacen("[0,0,0]", "[0,nan,0]", 1),
            3,
            4,
            "expected a number, found 'n'",
        ),
        (
            ok.replacen("[0,0,0]", "[0,0 ,0]", 1),
            3,
            5,
            "expected ',' after a number, found ' '",
        ),
        (
            ok.replacen("[0,0,0]", "[0,0]", 1)
                .replacen("[0,0,0]", "[0,0,0,0]", 1),
            3,
            5,
            "expected ',' after a number, found ']'",
        ),
        (
            ok.replacen("[0,0,0]", "[0,0,0,0]", 1),
            3,
            7,
            "expected ']' after the third number, found ','",
        ),
        (
            ok.replacen("[0,0,0]", "[,00,0]", 1),
            3,
            2,
            "expected a number, found ','",
        ),
        // Trailing garbage.
        (
            format!("{ok}x"),
            3,
            64,
            "unexpected 'x' after the last face",
        ),
        (
            format!("{ok}\nx"),
            4,
            1,
            "1 unexpected bytes after the last line",
        ),
        (
            format!("{ok}\n\n"),
            4,
            1,
            "1 unexpected bytes after the last line",
        ),
        (format!("{ok}\0"), 3, 64, "byte 0x00"),
        // Truncated data.
        (
            ok.replacen("[0,0,0]", "[00,0,0]", 1)[..ok.len()].to_string(),
            3,
            64,
            "expected ']' after the third number, found the end of the data",
        ),
    ];
    for (input, line, column, what) in &cases {
        assert_error(input.as_bytes(), *line, *column, what);
    }
}

#[test]
fn wrong_version_arguments() {
    let text = b"version 1.00\n0\n";
    let e = FileMeshV1::read(text, Version::V1_01).unwrap_err();
    assert!(e.to_string().contains("line 1, column 12"), "{e}");
    let e = FileMeshV1::read(text, Version::V2_00).unwrap_err();
    assert!(e.to_string().contains("not a text version"), "{e}");
    assert!(FileMeshV1::new(vec![]).write(Version::V4_01).is_err());
    let bad = FileMeshV1::with_format(
        vec![],
        TextFormat {
            precision: 0,
            ..TextFormat::canonical()
        },
    );
    assert!(bad.write(Version::V1_00).is_err());
    let nan = FileMeshV1::new(vec![
        [VertexV1 {
            position: [f32::NAN, 0.0, 0.0],
            ..VertexV1::default()
        }; 3],
    ]);
    let e = nan.write(Version::V1_00).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Inconsistent(_)), "{e}");
}

/// Every text file we have: the corpus's (when present) and the fixtures.
fn all_text_files() -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    if let Some(dir) = common::corpus() {
        paths.extend(text_corpus_files(&dir));
    }
    let fixtures = common::fixture_dir("text");
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "mesh") {
            paths.push(p);
        }
    }
    paths
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

/// The file cut down to its first `faces` faces, in its own style (so that damaging it
/// at every offset stays fast in debug builds).
fn head(bytes: &[u8], faces: usize) -> Vec<u8> {
    let nl: &[u8] = if bytes.get(12) == Some(&b'\r') {
        b"\r\n"
    } else {
        b"\n"
    };
    let line2 = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let data = line2 + bytes[line2..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let count: usize = std::str::from_utf8(&bytes[line2..data])
        .unwrap()
        .trim_end()
        .parse()
        .unwrap();
    if count <= faces {
        return bytes.to_vec();
    }
    let end = bytes[data..]
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b']')
        .nth(faces * 9 - 1)
        .unwrap()
        .0;
    let mut out = bytes[..line2].to_vec();
    out.extend_from_slice(faces.to_string().as_bytes());
    out.extend_from_slice(nl);
    out.extend_from_slice(&bytes[data..data + end + 1]);
    if bytes.ends_with(nl) {
        out.extend_from_slice(nl);
    }
    out
}

/// Reads `input` (which must not panic); a result must write back exactly.
fn read_must_not_panic(name: &str, input: &[u8], version: Version) -> bool {
    let result = std::panic::catch_unwind(|| {
        FileMeshV1::read(input, version)
            .map(|m| assert_eq!(m.write(version).unwrap(), input, "{name}"))
            .is_ok()
    });
    result.unwrap_or_else(|_| panic!("{name}: panic on {} bytes", input.len()))
}

#[test]
fn truncations_never_panic() {
    for (name, bytes) in all_text_files() {
        let version = version_of(&bytes);
        // The first 12 faces (the whole file for the small ones): every offset.
        let small = head(&bytes, 12);
        assert_round_trip(&name, &small);
        for cut in 0..small.len() {
            if read_must_not_panic(&name, &small[..cut], version) {
                // The only complete prefix is the file without its final line ending.
                let rest = &small[cut..];
                assert!(rest == b"\n" || rest == b"\r\n", "{name}: {cut} bytes read");
            }
        }
        // The whole file: near the end, and 40 offsets spread over it.
        let n = bytes.len();
        let offsets = (n.saturating_sub(40)..n).chain((0..n).step_by((n / 40).max(1)));
        for cut in offsets {
            if read_must_not_panic(&name, &bytes[..cut], version) {
                let rest = &bytes[cut..];
                assert!(rest == b"\n" || rest == b"\r\n", "{name}: {cut} bytes read");
            }
        }
    }
}

#[test]
fn damaged_bytes_never_panic() {
    let replacements = [
        b'[', b']', b',', b'\n', b'\r', b'9', b'-', b'+', b'e', b'.', b' ', 0, 0xff,
    ];
    for (name, bytes) in all_text_files() {
        let version = version_of(&bytes);
        let small = head(&bytes, 5);
        let mut damaged = small.clone();
        for at in 0..small.len() {
            for &r in &replacements {
                damaged[at] = r;
                read_must_not_panic(&name, &damaged, version);
            }
            damaged[at] = small[at];
        }
    }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

// From `meshcodec::strategy::filemesh`, the generators downstream crates use.
fn faces() -> impl Strategy<Value = Vec<[VertexV1; 3]>> {
    text_faces(Size::default())
}

/// The numbers of a written data line, as text.
fn tokens(text: &[u8]) -> Vec<String> {
    let data = text.splitn(3, |&b| b == b'\n').nth(2).unwrap_or_default();
    data.split(|&b| matches!(b, b'[' | b']' | b',' | b'\r' | b'\n'))
        .filter(|t| !t.is_empty())
        .map(|t| String::from_utf8(t.to_vec()).unwrap())
        .collect()
}

/// True when `v` is a nearest f32 to the decimal `text`, checked with f64 arithmetic
/// (independent of the crate's parser).
fn is_nearest_f32(text: &str, v: f32) -> bool {
    let d: f64 = text.parse().unwrap();
    let dist = |x: f32| (f64::from(x) - d).abs();
    let slack = d.abs() * 1e-15;
    let up = f32::from_bits(if v >= 0.0 {
        v.to_bits() + 1
    } else {
        v.to_bits() - 1
    });
    let down = if v == 0.0 {
        -f32::from_bits(1)
    } else if v > 0.0 {
        f32::from_bits(v.to_bits() - 1)
    } else {
        f32::from_bits(v.to_bits() + 1)
    };
    [up, down]
        .into_iter()
        .filter(|n| n.is_finite())
        .all(|n| dist(v) <= dist(n) + slack)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn canonical_write_read_write_is_identical(faces in faces(), v101 in any::<bool>()) {
        let version = if v101 { Version::V1_01 } else { Version::V1_00 };
        let first = FileMeshV1::new(faces).write(version).unwrap();
        let back = FileMeshV1::read(&first, version).unwrap();
        prop_assert!(back.overrides().is_empty(), "{:?}", back.overrides());
        prop_assert_eq!(back.format, TextFormat::canonical());
        let second = back.write(version).unwrap();
        prop_assert_eq!(&second, &first);
        // Every value read is the nearest f32 of its printed decimal.
        let values: Vec<f32> = back
            .faces
            .iter()
            .flatten()
            .flat_map(|v| [v.position, v.normal, v.uvw])
            .flatten()
            .collect();
        let toks = tokens(&first);
        prop_assert_eq!(toks.len(), values.len());
        for (t, &v) in toks.iter().zip(&values) {
            prop_assert!(is_nearest_f32(t, v), "{} read as {:e}", t, v);
            prop_assert_eq!(t.parse::<f32>().unwrap().to_bits(), v.to_bits());
        }
    }

    #[test]
    fn any_format_write_read_write_is_identical(faces in faces(), format in text_format()) {
        let first = FileMeshV1::with_format(faces, format).write(Version::V1_00).unwrap();
        let back = FileMeshV1::read(&first, Version::V1_00).unwrap();
        prop_assert_eq!(back.format.line_ending, format.line_ending);
        prop_assert_eq!(back.format.final_newline, format.final_newline);
        prop_assert_eq!(back.write(Version::V1_00).unwrap(), first);
    }

    #[test]
    fn reading_arbitrary_text_never_panics(
        body in prop::collection::vec(
            prop_oneof![
                Just(b'['), Just(b']'), Just(b','), Just(b'0'), Just(b'1'), Just(b'.'),
                Just(b'-'), Just(b'e'), Just(b'\n'), Just(b'\r'), any::<u8>()
            ],
            0..200,
        ),
        count in prop_oneof![0u64..4, any::<u64>()],
    ) {
        let mut input = format!("version 1.00\n{count}\n").into_bytes();
        input.extend_from_slice(&body);
        if let Ok(m) = FileMeshV1::read(&input, Version::V1_00) {
            prop_assert_eq!(m.write(Version::V1_00).unwrap(), input);
        }
    }
}
