//! Exact quantizers: wherever a value is dequantized on read, quantizing it again gives
//! back the stored integer, for every integer the field can hold (exhaustive where the
//! field has at most 65,536 values, property tests over the boxes of an10 files).
//!
//! Organised by format: one module each.

use crate::common;

/// UNIGINE `.mesh` / `.anim` (`meshcodec::unigine::raw::quant`, `QuantBox`).
mod unigine {
    use meshcodec::unigine::raw::anim::{QuantBox, UnigineAnim};
    use meshcodec::unigine::raw::quant::{
        snorm16, snorm16_to_f32, snorm8, snorm8_to_f32, tangent_w_to_byte, tangent_w_to_short,
        unorm16, unorm16_to_f32, unorm8, unorm8_to_f32,
    };
    use proptest::prelude::*;

    /// ms11+ tangent quaternions, ms10 tangent x, y, z, key rotations: every i16.
    #[test]
    fn snorm16_gives_every_i16_back() {
        for q in i16::MIN..=i16::MAX {
            let x = snorm16_to_f32(q);
            assert_eq!(snorm16(x), q, "{q} → {x}");
        }
        assert_eq!(snorm16_to_f32(32767), 1.0);
        assert_eq!(snorm16_to_f32(-32767), -1.0);
        // Beyond the range and NaN: the nearest end, and 0.
        assert_eq!(snorm16(2.0), 32767);
        assert_eq!(snorm16(-2.0), -32768);
        assert_eq!(snorm16(f32::NAN), 0);
    }

    /// UNIGINE's writer truncates (`(int)(x * 32767)`, `(int)((v − min) / size · 65535)`).
    /// For `q / 32767` and `q / 65535` in `f32` that happens to give every integer back
    /// too; for an an10 box it does not, which is why the quantizers round (the box one
    /// searches).
    #[test]
    fn truncation_is_exact_for_the_scales_but_not_for_a_box() {
        assert!((i16::MIN..=i16::MAX).all(|q| (snorm16_to_f32(q) * 32767.0) as i32 == i32::from(q)));
        assert!((0..=u16::MAX).all(|q| (unorm16_to_f32(q) * 65535.0) as i32 == i32::from(q)));
        let b = QuantBox {
            min: [-6.241_2, -3.148_7, -20.618],
            size: [41.371_58, 41.443, 25.996],
        };
        let truncated = (0..=u16::MAX)
            .filter(|&q| {
                let v = b.decode(0, q);
                ((v - b.min[0]) / b.size[0] * 65535.0) as i32 != i32::from(q)
            })
            .count();
        eprintln!("truncation misses {truncated} of 65536 integers of a real translation box");
        assert!(truncated > 0);
    }

    /// ms10 tangent w: every byte.
    #[test]
    fn snorm8_gives_every_i8_back() {
        for q in i8::MIN..=i8::MAX {
            assert_eq!(snorm8(snorm8_to_f32(q)), q, "{q}");
        }
    }

    /// Skin weights: every u16.
    #[test]
    fn unorm16_gives_every_u16_back() {
        for q in 0..=u16::MAX {
            assert_eq!(unorm16(unorm16_to_f32(q)), q, "{q}");
        }
        assert_eq!(unorm16(-1.0), 0);
        assert_eq!(unorm16(2.0), u16::MAX);
    }

    /// Colours: every byte.
    #[test]
    fn unorm8_gives_every_u8_back() {
        for q in 0..=u8::MAX {
            assert_eq!(unorm8(unorm8_to_f32(q)), q, "{q}");
        }
    }

    /// ms10 → ms11+ → ms10 keeps every tangent w byte but −128, which is −1.0079: the
    /// i16 scale ends at −1.0000305, and the nearest there is −32768, which comes back
    /// as −127. Every i16 goes to the nearest byte.
    #[test]
    fn tangent_w_between_ms10_and_later() {
        for w in -127i8..=127 {
            assert_eq!(tangent_w_to_byte(tangent_w_to_short(w)), w, "{w}");
            // The value is kept to within half an i16 step.
            let (a, b) = (snorm8_to_f32(w), snorm16_to_f32(tangent_w_to_short(w)));
            assert!((a - b).abs() <= 0.5 / 32767.0 + 1e-7, "{w}: {a} vs {b}");
        }
        assert_eq!(tangent_w_to_short(-128), -32768);
        assert_eq!(tangent_w_to_byte(-32768), -127);
        for q in i16::MIN..=i16::MAX {
            let b = tangent_w_to_byte(q);
            let (x, y) = (snorm16_to_f32(q), snorm8_to_f32(b));
            assert!((x - y).abs() <= 0.5 / 127.0 + 1e-6, "{q} → {b}");
        }
    }

    /// Checks an an10 box on one axis for all 65,536 integers: the integer back where no
    /// smaller one decodes to the same value, the value back always. Returns how many
    /// integers share their value with a smaller one.
    fn check_box_axis(b: &QuantBox, axis: usize) -> usize {
        let mut shared = 0;
        let mut prev: Option<f32> = None;
        for q in 0..=u16::MAX {
            let v = b.decode(axis, q);
            let e = b.encode(axis, v);
            assert_eq!(
                b.decode(axis, e).to_bits(),
                v.to_bits(),
                "{b:?} axis {axis}: q {q} → {v} → {e}"
            );
            if prev == Some(v) {
                shared += 1;
                assert!(e < q, "{b:?} axis {axis}: q {q} → {v} → {e}");
            } else {
                assert_eq!(e, q, "{b:?} axis {axis}: {v}");
            }
            prev = Some(v);
        }
        shared
    }

    /// The boxes of every an10 clip in the corpus and the fixtures: every integer back.
    #[test]
    fn an10_boxes_of_real_files_and_fixtures() {
        let mut files = vec![super::common::fixture_dir("unigine").join("an10-two-clips.anim")];
        if let Some(dir) = super::common::corpus() {
            files.push(dir.join("unigine/an10-arm.anim"));
        }
        let mut boxes = 0;
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let UnigineAnim::An10(f) = UnigineAnim::read(&bytes).unwrap() else {
                panic!("{}: an10 expected", path.display())
            };
            for a in &f.animations {
                for b in [&a.translation_box, &a.scale_box] {
                    for axis in 0..3 {
                        let shared = check_box_axis(b, axis);
                        // The real scale box is 1.0000029 wide at 0.999998: its steps
                        // are 15 times wider than an f32's spacing there.
                        assert_eq!(shared, 0, "{}: {b:?} axis {axis}", path.display());
                    }
                    boxes += 1;
                }
                // Every key of the file: its integer back.
                for k in &a.keys {
                    for axis in 0..3 {
                        for (b, q) in [
                            (&a.translation_box, k.translation[axis]),
                            (&a.scale_box, k.scale[axis]),
                        ] {
                            assert_eq!(b.encode(axis, b.decode(axis, q)), q);
                        }
                    }
                }
            }
        }
        assert!(boxes >= 4, "{boxes}");
    }

    /// A box so narrow (or so far from 0) that several integers decode to one `f32`:
    /// the value comes back, and the integer is the smallest of those that give it.
    #[test]
    fn an10_box_narrower_than_its_steps() {
        let b = QuantBox {
            min: [1000.0, -1.0e-3, 7.0],
            size: [1.0e-3, 1.0e-30, 0.0],
        };
        assert!(check_box_axis(&b, 0) > 60_000);
        assert_eq!(check_box_axis(&b, 1), 65_535);
        assert_eq!(check_box_axis(&b, 2), 65_535);
        // Values off the grid go to the nearest step; outside the box to its ends.
        let b = QuantBox {
            min: [0.0; 3],
            size: [65535.0, 1.0, 1.0],
        };
        assert_eq!(b.encode(0, 10.4), 10);
        assert_eq!(b.encode(0, 10.6), 11);
        assert_eq!(b.encode(0, -5.0), 0);
        assert_eq!(b.encode(0, 1.0e9), u16::MAX);
        assert_eq!(b.encode(0, f32::NAN), 0);
        // A negative size: decode falls as q rises.
        let b = QuantBox {
            min: [5.0; 3],
            size: [-2.0; 3],
        };
        assert_eq!(check_box_axis(&b, 0), 0);
        // A box that is not finite still gives an integer.
        let b = QuantBox {
            min: [f32::NAN, f32::INFINITY, 0.0],
            size: [1.0, 1.0, f32::INFINITY],
        };
        for axis in 0..3 {
            let _ = b.encode(axis, 0.5);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Arbitrary finite boxes (as UNIGINE's writer makes them, `size = max − min + 1`,
        /// and any others): every integer, or where integers share a value, the value.
        #[test]
        fn an10_boxes_give_every_integer_back(
            min in prop_oneof![-1.0e4f32..1.0e4, -1.0e30f32..1.0e30, Just(0.0f32)],
            size in prop_oneof![0.5f32..200.0, -1.0e3f32..1.0e3, 1.0e-12f32..1.0e-3, 1.0e30f32..3.0e38],
        ) {
            let b = QuantBox { min: [min; 3], size: [size; 3] };
            check_box_axis(&b, 0);
        }
    }
}

/// Roblox FileMesh: FACS `QuantizedMatrix` version 2 (u16 over `[min, max]`), tangent
/// bytes (bias 127), Draco's 11-bit normals.
mod filemesh {
    use super::common;
    use meshcodec::codec::draco::{decode, encode};
    use meshcodec::filemesh::model::{Mesh, Tangent};
    use meshcodec::filemesh::raw::facs::{dequantize_value, quantize_value};
    use meshcodec::filemesh::raw::{Face, Vertex};
    use meshcodec::Limits;

    /// Every u16 of a range: quantizing the dequantized value gives the stored integer back
    /// wherever no other integer has the same value, and the same value everywhere.
    fn check_facs_range(min: f32, max: f32) -> usize {
        let mut recoverable = 0;
        for q in 0..=u16::MAX {
            let v = dequantize_value(min, max, q);
            let back = quantize_value(min, max, v);
            assert_eq!(
                dequantize_value(min, max, back).to_bits(),
                v.to_bits(),
                "[{min}, {max}] q {q}: value {v} comes back as step {back}"
            );
            let shared = [q.checked_sub(1), q.checked_add(1)]
                .into_iter()
                .flatten()
                .any(|n| dequantize_value(min, max, n).to_bits() == v.to_bits());
            if !shared {
                assert_eq!(back, q, "[{min}, {max}]: value {v}");
                recoverable += 1;
            }
        }
        recoverable
    }

    #[test]
    fn facs_quantizer_is_exact_for_every_stored_value() {
        let mut ranges: Vec<(f32, f32)> = vec![
            (-1.0, 1.0),
            (0.0, 1.0e-3),
            (-1000.0, 5000.0),
            (-0.0, 0.0),
            (5.0, 5.0),
            (1000.0, 1000.001),
            (-180.0, 180.0),
            (0.1, 0.3),
        ];
        // The ranges of every real FACS matrix (the corpus's 5.00 files, and the fixtures).
        for path in common::fixtures_and_corpus_filemeshes() {
            let Ok(mesh) = Mesh::read(&std::fs::read(&path).unwrap()) else {
                continue;
            };
            if let Some(meshcodec::filemesh::model::stored::StoredFacs {
                facs: meshcodec::filemesh::raw::Facs::Data(d),
                ..
            }) = &mesh.stored.facs
            {
                for m in d.quantized_transforms.matrices() {
                    if let meshcodec::filemesh::raw::MatrixData::Quantized { min, max, .. } = m.data
                    {
                        ranges.push((min, max));
                    }
                }
            }
        }
        let mut total = 0;
        for (min, max) in &ranges {
            total += check_facs_range(*min, *max);
        }
        // Well-conditioned ranges recover every integer.
        assert_eq!(check_facs_range(-1.0, 1.0), 65536);
        eprintln!(
            "{} ranges, {total} integers recovered exactly",
            ranges.len()
        );
    }

    #[test]
    fn tangent_bytes_decode_and_encode_back_for_every_byte() {
        for position in 0..4 {
            for b in 0..=255u8 {
                let mut bytes = [0x7f, 0x7f, 0x7f, 0xfe];
                bytes[position] = b;
                let t = Tangent::from_bytes(bytes);
                assert_eq!(Tangent::to_bytes(t), bytes, "{bytes:02x?}");
            }
        }
        assert_eq!(Tangent::from_bytes(Tangent::ABSENT_BYTES), None);
        assert_eq!(Tangent::to_bytes(None), Tangent::ABSENT_BYTES);
    }

    /// Draco's normals: a mesh whose normals take every one of the 2,048 values of the 11-bit
    /// grid (per component, over ranges like the real files'), decoded and encoded again,
    /// gives the same bitstream — the quantized integers come back exactly.
    #[test]
    fn draco_normals_requantize_to_the_same_integers() {
        for (lo, hi) in [(-1.0f32, 1.0f32), (-0.7, 0.9), (0.0, 1.0), (-1.0, 0.25)] {
            let n = 2048usize;
            let vertices: Vec<Vertex> = (0..n)
                .map(|i| {
                    let t = |k: usize| lo + (hi - lo) * ((i * (k + 1)) % n) as f32 / (n - 1) as f32;
                    Vertex {
                        position: [i as f32, 0.0, 0.0],
                        normal: [t(0), t(1), t(2)],
                        ..Vertex::default()
                    }
                })
                .collect();
            let faces: Vec<Face> = (0..n as u32 - 2)
                .step_by(3)
                .map(|i| Face {
                    indices: [i, i + 1, i + 2],
                })
                .collect();
            let blob = encode(&vertices, &faces).unwrap();
            let (decoded, f) = decode(&blob, &Limits::default()).unwrap();
            assert_eq!(f, faces);
            let again = encode(&decoded, &f).unwrap();
            assert!(
                again == blob,
                "[{lo}, {hi}]: the re-encoded bitstream differs"
            );
            // And decoding that gives the same floats, bit for bit.
            let (twice, _) = decode(&again, &Limits::default()).unwrap();
            assert!(decoded
                .iter()
                .zip(&twice)
                .all(|(a, b)| a.normal.map(f32::to_bits) == b.normal.map(f32::to_bits)));
            // The distinct quantized values per component cover the grid.
            let mut xs: Vec<u32> = decoded.iter().map(|v| v.normal[0].to_bits()).collect();
            xs.sort();
            xs.dedup();
            assert!(
                xs.len() >= 2000,
                "[{lo}, {hi}]: {} distinct values",
                xs.len()
            );
        }
    }
}

/// CSGMDL 5 normals and tangents: every stored 16-bit value but 0xffff (which reads as
/// −32768/32767, outside the range a writer produces) dequantizes and re-quantizes to
/// itself.
mod csgmdl {
    use meshcodec::csg::mdl::model::quantize;
    use meshcodec::csg::mdl::raw::dequantize;

    #[test]
    fn every_value_requantizes_exactly() {
        for q in 0..=0xfffeu16 {
            let [x, _, _] = dequantize([q, 0x7fff, 0x7fff]);
            assert_eq!(quantize(x), q, "{q}");
        }
    }
}
