//! FileMesh quantizers are exact inverses of their dequantizers, for every stored value:
//! FACS `QuantizedMatrix` version 2 (u16 over `[min, max]`), tangent bytes (bias 127),
//! and Draco's 11-bit normals.

mod common;

use meshcodec::roblox::draco::{decode, encode};
use meshcodec::roblox::facs::{dequantize_value, quantize_value};
use meshcodec::roblox::model::{Mesh, Tangent};
use meshcodec::roblox::{Face, Vertex};
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
        if let Some(meshcodec::roblox::stored::StoredFacs {
            facs: meshcodec::roblox::Facs::Data(d),
            ..
        }) = &mesh.stored.facs
        {
            for m in d.quantized_transforms.matrices() {
                if let meshcodec::roblox::MatrixData::Quantized { min, max, .. } = m.data {
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
