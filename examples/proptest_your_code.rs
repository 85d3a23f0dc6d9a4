//! Property-test your own code with `meshcodec::strategy` (feature `proptest`): here
//! "your code" is a bounding-box function a level editor might have, tested on
//! generated files of every format and version. Written as a program so that CI runs
//! it; in your crate the same lines go in a `proptest!` test.
//!
//! ```sh
//! cargo run --example proptest_your_code --features proptest -- [CASES]
//! ```
//!
//! Prints the cases run and the (format, version) pairs they covered; the exit status
//! is 1 when a property fails (proptest prints the smallest failing file).

use std::collections::BTreeSet;
use std::sync::Mutex;

use meshcodec::scene::Scene;
use meshcodec::strategy;
use meshcodec::{open, Limits, MeshFile};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Your code: the bounds of a scene's finite positions, `None` when it has none.
fn bounding_box(scene: &Scene) -> Option<([f32; 3], [f32; 3])> {
    let mut points = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .flat_map(|p| &p.positions)
        .filter(|p| p.iter().all(|x| x.is_finite()));
    let first = *points.next()?;
    Some(points.fold((first, first), |(lo, hi), p| {
        (
            [lo[0].min(p[0]), lo[1].min(p[1]), lo[2].min(p[2])],
            [hi[0].max(p[0]), hi[1].max(p[1]), hi[2].max(p[2])],
        )
    }))
}

fn main() {
    let cases: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let seen = Mutex::new(BTreeSet::new());
    let config = Config {
        cases,
        // A program has no source file to save failing cases beside.
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);

    // Property 1: every generated file opens and is written back byte for byte, and
    // your function holds on whatever scene it gives.
    let result = runner.run(&strategy::any_file(), |bytes| {
        let file = open(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(file.write().unwrap(), bytes.clone());
        seen.lock()
            .unwrap()
            .insert((file.format().name(), file.version_name()));
        if let Ok(scene) = file.to_scene(&Default::default(), &Limits::default()) {
            if let Some((lo, hi)) = bounding_box(&scene) {
                prop_assert!((0..3).all(|k| lo[k] <= hi[k]), "{:?} {:?}", lo, hi);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        eprintln!("any_file: {e}");
        std::process::exit(1);
    }

    // Property 2: a 5.00 mesh scaled by 2 has a box twice as big (for your edit tool).
    let result = runner.run(&strategy::filemesh("5.00"), |bytes| {
        let file = open(&bytes).unwrap();
        let Ok(scene) = file.to_scene(&Default::default(), &Limits::default()) else {
            return Ok(()); // raw files may hold indices no scene can take
        };
        let Some((lo, hi)) = bounding_box(&scene) else {
            return Ok(());
        };
        let mut doubled = scene.clone();
        for p in doubled.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
            for v in &mut p.positions {
                *v = v.map(|x| x * 2.0);
            }
        }
        let (lo2, hi2) = bounding_box(&doubled).unwrap();
        for k in 0..3 {
            if (lo[k] * 2.0).is_finite() && (hi[k] * 2.0).is_finite() {
                prop_assert_eq!(lo2[k], lo[k] * 2.0);
                prop_assert_eq!(hi2[k], hi[k] * 2.0);
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        eprintln!("filemesh(\"5.00\"): {e}");
        std::process::exit(1);
    }

    let seen = seen.into_inner().unwrap();
    println!(
        "{} cases of any_file, {} cases of filemesh(\"5.00\"): {} (format, version) pairs",
        cases,
        cases,
        seen.len()
    );
    if seen.len() < 20 {
        eprintln!("only {} pairs: {seen:?}", seen.len());
        std::process::exit(1);
    }
}
