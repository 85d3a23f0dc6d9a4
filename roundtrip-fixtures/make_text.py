#!/usr/bin/env python3
"""Generate small synthetic Roblox FileMesh text fixtures (versions 1.00 and 1.01).

Written from the format write-up (shared/specs/roblox-filemesh-v1-v7.txt, "version 1.00 &
1.01") and the project's format notes (shared/design/FORMAT-NOTES.md, "1.00 / 1.01 (text)"),
independently of the meshcodec library: nothing here reads or imports the Rust code.

    python3 roundtrip-fixtures/make_text.py           # (re)write text/*.mesh + expected.json
    python3 roundtrip-fixtures/make_text.py --check   # verify the files on disk with a
                                                      # separate tiny reader

A text mesh is three lines: "version 1.0x", the face count, then faces * 9 bracketed
triples "[x,y,z]" concatenated, [position][normal][uvw] per vertex, three vertices per face.
Numbers are printed the way C++ iostream prints a float by default: the value rounded to
f32, then printf("%g") of it as a double (6 significant digits, ties to even, trailing zeros
dropped). Python's '%g' follows C printf; the old Microsoft runtime's three-digit exponents
("1.50996e-007") are produced explicitly by widening the exponent.

Files:
    text/v1.00-lf.mesh    LF, no final newline, two-digit exponents (1.50996e-07), a -0,
                          normals of length 2 (as in real 1.00 files), w = 0.25 somewhere
    text/v1.00-crlf.mesh  CRLF throughout (version line included) AND a final CRLF after the
                          data line, three-digit exponents (1.50996e-007, 3.40282e+038,
                          the smallest subnormal 1.4013e-045), w = 0.5 somewhere
    text/v1.01.mesh       LF, no final newline, three-digit exponents (1.19209e-007),
                          w = 0.5 on every vertex, %g's fixed/scientific switch points

Everything is deterministic (literal values, rounded to f32 by struct); standard library only.
"""

import json
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "text")
EXPECTED_NAME = "expected.json"


def f32(x):
    """Round a Python float to the nearest f32 (returned as a float)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fmt_number(x, exp_digits):
    """C++ iostream default for a float: %g with 6 significant digits of the f32 value."""
    s = "%.6g" % f32(x)
    if exp_digits == 3:
        # Old MSVC runtimes print at least three exponent digits.
        s = re.sub(r"e([+-])(\d+)$", lambda m: "e%s%03d" % (m.group(1), int(m.group(2))), s)
    return s


def build(version, faces, newline, final_newline, exp_digits):
    """faces: list of 3 vertices, each (position, normal, uvw) of 3 floats."""
    parts = []
    for face in faces:
        assert len(face) == 3
        for vertex in face:
            assert len(vertex) == 3
            for triple in vertex:
                assert len(triple) == 3
                parts.append("[" + ",".join(fmt_number(c, exp_digits) for c in triple) + "]")
    text = "version " + version + newline + str(len(faces)) + newline + "".join(parts)
    if final_newline:
        text += newline
    data = text.encode("ascii")
    first = faces[0][0] if faces else None
    expected = {
        "version": version,
        "line_ending": "CRLF" if newline == "\r\n" else "LF",
        "final_newline": final_newline,
        "exponent_digits": exp_digits,
        "faces": len(faces),
        "numbers": len(faces) * 27,
        "nonzero_w": sum(1 for face in faces for v in face if f32(v[2][2]) != 0.0),
        # The f32 a reader must find (the nearest f32 of the printed text).
        "first_vertex": [[f32(float(fmt_number(c, exp_digits))) for c in t] for t in first] if first else None,
        "file_size": len(data),
    }
    return data, expected


def fixtures():
    files = {}

    # 1.00, LF. Positions at 1.00 scale (twice the model size); normals of length 2.
    lf_faces = [
        [
            ((-5.79567, -0.179818, 0.0722833), (0.0, -0.0068099, 1.99999), (0.727617, 0.142919, 0.0)),
            ((-6.49987, -1.48357, 0.0678441), (-0.0, 1.50996e-07, 2.0), (0.781981, 0.243569, 0.25)),
            ((-5.02916, -1.48357, 0.0678441), (1.0, 1.0, 1.41421), (0.619106, 0.121659, 0.0)),
        ],
        [
            ((1234567.0, 0.0001, 0.00001), (0.0, 0.0, -2.0), (1.0 / 3.0, 2.0 / 3.0, 0.0)),
            ((2.5e12, -3e-20, 100000.0), (0.6, 0.8, 0.0), (0.001953125, 0.4453125, 0.0)),
            ((999999.5, -999999.4, 0.5), (0.0, 2.0, 0.0), (0.0, 1.0, 0.0)),
        ],
    ]
    files["v1.00-lf.mesh"] = build("1.00", lf_faces, "\n", False, 2)

    # 1.00, CRLF throughout, with a final CRLF; three-digit exponents.
    crlf_faces = [
        [
            ((-0.968616, 0.320282, -3.52221), (1.0, 1.50996e-07, 0.0), (0.530481, 0.38697, 0.0)),
            ((-0.968616, 0.726954, -3.25828), (1.0, 1.50996e-07, 0.0), (0.481251, 0.415823, 0.5)),
            ((-0.968616, 0.320238, -1.64349), (1.0, 1.50996e-07, 0.0), (0.711383, 0.439542, 0.0)),
        ],
        [
            ((3.4028234663852886e38, -1.1754943508222875e-38, 1.401298464324817e-45), (0.0, 0.0, -1.0), (0.0, 0.0, 0.0)),
            ((-2.5e-5, 7.0e10, -0.0), (0.0, -1.0, 0.0), (0.5, 0.5, 0.0)),
            ((0.00302071, -0.235497, -3.95942), (0.0, 0.0, -1.0), (0.51759, 0.228315, 0.0)),
        ],
    ]
    files["v1.00-crlf.mesh"] = build("1.00", crlf_faces, "\r\n", True, 3)

    # 1.01, LF, no final newline; w = 0.5 on every vertex (as in a real 1.01 file).
    v101_faces = [
        [
            ((74.0, 226.0, 3.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.5)),
            ((202.0, 226.0, 3.0), (0.0, 0.0, 1.0), (1.0, 0.0, 0.5)),
            ((202.0, 354.0, 3.0), (0.0, 0.0, 1.0), (1.0, 1.0, 0.5)),
        ],
        [
            ((-0.935, 0.935, 0.5), (1.1920929e-07, 0.0, 1.0), (0.261719, 0.6875, 0.5)),
            ((0.0001, 0.00009999, 123456.0), (0.0, 0.0, 1.0), (0.01171875, 1e-4, 0.5)),
            ((1e6, 999999.0, -1e-5), (0.0, 0.0, 1.0), (0.1, 0.9, 0.5)),
        ],
    ]
    files["v1.01.mesh"] = build("1.01", v101_faces, "\n", False, 3)
    return files


def expected_json_text(files):
    doc = {name: files[name][1] for name in sorted(files)}
    return json.dumps(doc, indent=2) + "\n"


# ---------------------------------------------------------------------------
# Independent tiny reader for --check (shares no code with the builders above)
# ---------------------------------------------------------------------------


class Fail(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Fail(msg)


def read_text_mesh(data):
    m = re.fullmatch(rb"version (1\.0[01])(\r?\n)(\d+)(\r?\n)((?:\[[^\[\],]+,[^\[\],]+,[^\[\],]+\])*)(\r?\n)?", data)
    need(m is not None, "not three lines of version / count / bracketed triples")
    version, nl1, count, nl2, body, nl3 = m.groups()
    need(nl1 == nl2 and (nl3 is None or nl3 == nl1), "mixed line endings")
    tokens = re.findall(rb"[^\[\],]+", body)
    faces = int(count)
    need(len(tokens) == faces * 27, "%d numbers for %d faces" % (len(tokens), faces))
    widths = {len(e) for e in re.findall(rb"e[+-](\d+)", body)}
    need(len(widths) <= 1, "mixed exponent widths %r" % widths)
    exp_digits = widths.pop() if widths else None
    values = []
    for t in tokens:
        need(re.fullmatch(rb"-?\d+(\.\d+)?(e[+-]\d+)?", t) is not None, "bad number %r" % t)
        v = struct.unpack("<f", struct.pack("<f", float(t)))[0]
        # The text must be exactly what %g of the nearest f32 prints.
        again = "%.6g" % v
        if exp_digits == 3:
            again = re.sub(r"e([+-])(\d\d)$", r"e\g<1>0\2", again)
        need(again.encode() == t, "%r does not print back (%r)" % (t, again))
        values.append(v)
    return {
        "version": version.decode(),
        "line_ending": "CRLF" if nl1 == b"\r\n" else "LF",
        "final_newline": nl3 is not None,
        "exponent_digits": exp_digits,
        "faces": faces,
        "numbers": len(tokens),
        "nonzero_w": sum(1 for i in range(8, len(values), 9) if values[i] != 0.0),
        "first_vertex": [values[0:3], values[3:6], values[6:9]] if values else None,
        "file_size": len(data),
    }


def check():
    files = fixtures()
    ok = True
    with open(os.path.join(OUT_DIR, EXPECTED_NAME), "r", encoding="utf-8") as fh:
        exp_text = fh.read()
    expected = json.loads(exp_text)
    if exp_text != expected_json_text(files):
        print("FAIL expected.json differs from what the generator writes (stale? run without --check)")
        ok = False
    on_disk = sorted(n for n in os.listdir(OUT_DIR) if n.endswith(".mesh"))
    if on_disk != sorted(files):
        print("FAIL file set differs: on disk %s, generator %s" % (on_disk, sorted(files)))
        ok = False
    for name in sorted(expected):
        try:
            with open(os.path.join(OUT_DIR, name), "rb") as fh:
                data = fh.read()
            need(name in files and data == files[name][0], "bytes differ from a fresh generation")
            got = read_text_mesh(data)
            if got != expected[name]:
                diff = {k: (got.get(k), expected[name].get(k))
                        for k in set(got) | set(expected[name]) if got.get(k) != expected[name].get(k)}
                raise Fail("observed != expected: %r" % diff)
            print("ok   %-20s %5d bytes" % (name, len(data)))
        except (Fail, OSError, ValueError) as e:
            print("FAIL %-20s %s" % (name, e))
            ok = False
    return ok


def write():
    files = fixtures()
    os.makedirs(OUT_DIR, exist_ok=True)
    for name in sorted(files):
        with open(os.path.join(OUT_DIR, name), "wb") as fh:
            fh.write(files[name][0])
    with open(os.path.join(OUT_DIR, EXPECTED_NAME), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(expected_json_text(files))
    for name in sorted(files):
        print("wrote %-20s %5d bytes" % (name, len(files[name][0])))


def main(argv):
    if argv[1:] == ["--check"]:
        return 0 if check() else 1
    if argv[1:]:
        print(__doc__)
        return 2
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
