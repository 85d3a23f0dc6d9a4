//! Fuzz target: glTF and GLB import (no external files), then writing the scene as a
//! FileMesh and as CSGPHS: Ok or Err, never a panic; what is written opens again.
#![no_main]

use meshcodec::{import, open, scene::import::read_gltf, ConvertOptions, Target};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(scene) = read_gltf(data, None) else {
        return;
    };
    for t in [Target::FileMesh(meshcodec::filemesh::Version::V4_00), Target::Csgphs(7)] {
        if let Ok(c) = import(&scene, &t, &ConvertOptions::default()) {
            open(&c.bytes).expect("an imported file opens");
        }
    }
});
