//! The animations embedded in an ms10–ms12 mesh as an11 files, for a conversion to ms13
//! or ms14, which embed none (`docs/unigine-anim.md`).
//!
//! Key for key, without resampling: an embedded key stores any of seven components
//! (translation x, y, z, the rotation, scale x, y, z), an an11 key whole vectors, so a
//! vector an embedded key stores in part is written whole, its other components what a
//! reader holds at that key (the previous key's, at the first frame the bone's bind
//! pose). Rotations are the stored i16 / 32767, as read. The an11 file has the mesh's
//! bones and bind pose.

use crate::unigine::raw::anim::{An11Animation, An11File, An11Key, EmbeddedAnimation};
use crate::unigine::raw::mesh::{ClassicMesh, Transform};
use crate::unigine::raw::quant::snorm16_to_f32;
use crate::unigine::UnigineAnim;

/// Each embedded animation of `body`, named, as an an11 file.
pub fn an11_files(body: &ClassicMesh) -> Vec<(String, UnigineAnim)> {
    body.animation_names
        .iter()
        .zip(&body.animations)
        .map(|(name, a)| {
            (
                name.text(),
                UnigineAnim::An11(An11File {
                    bones: body.bones.clone(),
                    bind_pose: body.bind_pose.clone(),
                    animation: an11_of(a, &body.bind_pose),
                }),
            )
        })
        .collect()
}

/// One embedded clip as an an11 clip (see the module docs).
pub fn an11_of(a: &EmbeddedAnimation, bind_pose: &[Transform]) -> An11Animation {
    let identity = Transform {
        position: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    };
    // What a reader holds for each animated slot.
    let mut state: Vec<Transform> = a
        .bones
        .iter()
        .map(|&b| {
            usize::try_from(b)
                .ok()
                .and_then(|b| bind_pose.get(b))
                .copied()
                .unwrap_or(identity)
        })
        .collect();
    let n = state.len().max(1);
    let keys = a
        .keys
        .iter()
        .enumerate()
        .map(|(k, key)| {
            let Some(s) = state.get_mut(k % n) else {
                return An11Key::default();
            };
            let m = key.mask;
            for ((v, x), on) in s
                .position
                .iter_mut()
                .zip(key.translation)
                .zip(m.translation())
            {
                if on {
                    *v = x;
                }
            }
            if m.rotation() {
                s.rotation = key.rotation.map(snorm16_to_f32);
            }
            for ((v, x), on) in s.scale.iter_mut().zip(key.scale).zip(m.scale()) {
                if on {
                    *v = x;
                }
            }
            let position = m.translation().contains(&true);
            let scale = m.scale().contains(&true);
            An11Key {
                mask: (if position { An11Key::POSITION } else { 0 })
                    | (if m.rotation() { An11Key::ROTATION } else { 0 })
                    | (if scale { An11Key::SCALE } else { 0 }),
                position: if position { s.position } else { [0.0; 3] },
                rotation: if m.rotation() { s.rotation } else { [0.0; 4] },
                scale: if scale { s.scale } else { [0.0; 3] },
            }
        })
        .collect();
    An11Animation {
        bones: a.bones.clone(),
        frame_count: a.frame_count,
        keys,
    }
}
