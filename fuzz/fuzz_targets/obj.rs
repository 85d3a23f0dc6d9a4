//! Fuzz target: OBJ import, then writing the scene as a FileMesh: Ok or Err, never a
//! panic; what is written opens again.
#![no_main]

use meshcodec::{import, open, scene::import::read_obj, ConvertOptions, Target};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(scene) = read_obj(text) else {
        return;
    };
    let t = Target::FileMesh(meshcodec::filemesh::Version::V4_00);
    if let Ok(c) = import(&scene, &t, &ConvertOptions::default()) {
        open(&c.bytes).expect("an imported file opens");
    }
});
