//! Animations: a scene's animation sampled at UNIGINE's frames ([`FRAME_RATE`]), as an
//! animation embedded in an ms10–ms12 mesh or as an an11 file.

use super::refused;
use crate::error::Result;
use crate::scene::skin;
use crate::scene::{Animation, ChannelValues, Joint, FRAME_RATE};
use crate::unigine::raw::anim::{An11Animation, An11Key, EmbeddedAnimation, Key, KeyMask};
use crate::unigine::raw::quant;

/// A joint's translation, rotation and scale at one frame.
type Pose = ([f32; 3], [f32; 4], [f32; 3]);

/// An animation sampled at UNIGINE's frames: per animated joint (in joint order), its
/// translation, rotation and scale at every frame.
pub(super) struct Sampled {
    bones: Vec<i16>,
    frames: u32,
    /// `tracks[bone][frame]`.
    tracks: Vec<Vec<Pose>>,
}

/// The most keys (frames × animated bones) an animation is sampled to: beyond, the
/// animation is refused rather than filling memory (an hour at 30 frames a second of 100
/// bones is 10.8 million).
const MAX_KEYS: u64 = 1 << 27;

/// Samples `a` at frames `0 .. F` (`f / FRAME_RATE` seconds; F covering its last key).
/// A path a joint's channels leave out takes the joint's own transform. Counts in
/// `resampled` the channels with a key between frames whose values are not all equal.
pub(super) fn sample(a: &Animation, joints: &[Joint], resampled: &mut usize) -> Result<Sampled> {
    let end = a
        .channels
        .iter()
        .filter_map(|c| c.times.last())
        .fold(0.0f32, |m, &t| m.max(t));
    let last = (f64::from(end) * f64::from(FRAME_RATE)).round();
    if !(0.0..=f64::from(u32::MAX - 1)).contains(&last) {
        return Err(refused(format!(
            "animation {:?}: {end} seconds is too long for UNIGINE's frame counts",
            a.name
        )));
    }
    let frames = last as u32 + 1;
    for c in &a.channels {
        let off_grid = c.times.iter().any(|&t| {
            let f = f64::from(t) * f64::from(FRAME_RATE);
            (f - f.round()).abs() > 1e-3
        });
        let varies = match &c.values {
            ChannelValues::Translation(v) | ChannelValues::Scale(v) => {
                v.iter().any(|x| Some(x) != v.first())
            }
            ChannelValues::Rotation(v) => v.iter().any(|x| Some(x) != v.first()),
        };
        if off_grid && varies {
            *resampled += 1;
        }
    }
    let mut animated: Vec<usize> = a.channels.iter().map(|c| c.joint).collect();
    animated.sort_unstable();
    animated.dedup();
    let keys = u64::from(frames).saturating_mul(animated.len() as u64);
    if keys > MAX_KEYS {
        return Err(refused(format!(
            "animation {:?}: {frames} frames of {} bones are {keys} keys, more than {MAX_KEYS}",
            a.name,
            animated.len()
        )));
    }
    let mut bones = Vec::with_capacity(animated.len());
    let mut tracks = Vec::with_capacity(animated.len());
    for &j in &animated {
        let joint = joints
            .get(j)
            .ok_or_else(|| refused(format!("animation {:?}: joint {j} out of range", a.name)))?;
        bones.push(i16::try_from(j).map_err(|_| refused(format!("joint {j}: beyond i16")))?);
        let mut track = Vec::with_capacity(frames as usize);
        for f in 0..frames {
            let t = f as f32 / FRAME_RATE;
            let mut v = (joint.translation, joint.rotation, joint.scale);
            for c in a.channels.iter().filter(|c| c.joint == j) {
                match &c.values {
                    ChannelValues::Translation(x) => v.0 = lerp3(&c.times, x, t),
                    ChannelValues::Rotation(x) => v.1 = slerp(&c.times, x, t),
                    ChannelValues::Scale(x) => v.2 = lerp3(&c.times, x, t),
                }
            }
            track.push(v);
        }
        tracks.push(track);
    }
    Ok(Sampled {
        bones,
        frames,
        tracks,
    })
}

/// The key segment around `t`: `(k, s)` interpolates keys `k` and `k + 1` by `s`, or
/// `(k, 0)` stands for key `k` itself (before the first, after the last, or on a key).
fn segment(times: &[f32], t: f32) -> (usize, f64) {
    let close = |a: f32| (f64::from(a) - f64::from(t)).abs() <= 1e-6;
    if let Some(k) = times.iter().position(|&x| close(x)) {
        return (k, 0.0);
    }
    match times.iter().position(|&x| x > t) {
        None => (times.len().saturating_sub(1), 0.0),
        Some(0) => (0, 0.0),
        Some(k) => {
            let at = |i: usize| f64::from(times.get(i).copied().unwrap_or(t));
            let (a, b) = (at(k - 1), at(k));
            (k - 1, (f64::from(t) - a) / (b - a))
        }
    }
}

fn lerp3(times: &[f32], v: &[[f32; 3]], t: f32) -> [f32; 3] {
    let (k, s) = segment(times, t);
    let a = v.get(k).copied().unwrap_or_default();
    if s == 0.0 {
        return a;
    }
    let b = v.get(k + 1).copied().unwrap_or(a);
    let mut out = a;
    for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(&b)) {
        *o = (f64::from(*x) + (f64::from(*y) - f64::from(*x)) * s) as f32;
    }
    out
}

fn slerp(times: &[f32], v: &[[f32; 4]], t: f32) -> [f32; 4] {
    let (k, s) = segment(times, t);
    let a = v.get(k).copied().unwrap_or([0.0, 0.0, 0.0, 1.0]);
    if s == 0.0 {
        return a;
    }
    let a64 = a.map(f64::from);
    let mut b = v.get(k + 1).copied().unwrap_or(a).map(f64::from);
    let mut d: f64 = a64.iter().zip(&b).map(|(x, y)| x * y).sum();
    if d < 0.0 {
        b = b.map(|x| -x);
        d = -d;
    }
    let (wa, wb) = if d > 0.9995 {
        (1.0 - s, s)
    } else {
        let th = d.min(1.0).acos();
        let sin = th.sin();
        (((1.0 - s) * th).sin() / sin, (s * th).sin() / sin)
    };
    let mut q = a64;
    for (o, (x, y)) in q.iter_mut().zip(a64.iter().zip(&b)) {
        *o = x * wa + y * wb;
    }
    skin::normalize_quat(q).map(|x| x as f32)
}

impl Sampled {
    /// As an animation embedded in an ms10–ms12 mesh: frame 0 stores every component, a
    /// later frame the components that changed (rotations compared as stored, i16).
    pub(super) fn embedded(&self) -> EmbeddedAnimation {
        let n = self.bones.len();
        let mut keys = Vec::with_capacity(n * self.frames as usize);
        let mut prev: Vec<Option<Key<f32>>> = vec![None; n];
        for f in 0..self.frames as usize {
            for (b, track) in self.tracks.iter().enumerate() {
                let Some(&(t, r, s)) = track.get(f) else {
                    continue;
                };
                let full = Key {
                    mask: KeyMask::from_bytes([KeyMask::ALL]),
                    translation: t,
                    rotation: r.map(quant::snorm16),
                    scale: s,
                };
                let key = match prev.get(b).copied().flatten() {
                    None => full,
                    Some(p) => {
                        let mut bits = 0u8;
                        for (k, (a, b)) in p.translation.iter().zip(&t).enumerate() {
                            if a != b {
                                bits |= 1 << k;
                            }
                        }
                        for (k, (a, b)) in p.scale.iter().zip(&s).enumerate() {
                            if a != b {
                                bits |= 1 << (4 + k);
                            }
                        }
                        if p.rotation != full.rotation {
                            bits |= 1 << 3;
                        }
                        let mask = KeyMask::from_bytes([bits]);
                        let pick = |on: [bool; 3], mut v: [f32; 3]| {
                            for (x, on) in v.iter_mut().zip(on) {
                                if !on {
                                    *x = 0.0;
                                }
                            }
                            v
                        };
                        Key {
                            mask,
                            translation: pick(mask.translation(), t),
                            rotation: if mask.rotation() {
                                full.rotation
                            } else {
                                [0; 4]
                            },
                            scale: pick(mask.scale(), s),
                        }
                    }
                };
                // What a reader holds for this bone after this key.
                if let Some(slot) = prev.get_mut(b) {
                    *slot = Some(full);
                }
                keys.push(key);
            }
        }
        EmbeddedAnimation {
            bones: self.bones.clone().into(),
            flag: KeyMask::ALL,
            frame_count: self.frames,
            keys,
        }
    }

    /// As the clip of an an11 file: frame 0 stores every vector, a later frame those
    /// that changed.
    pub(super) fn an11(&self) -> An11Animation {
        let n = self.bones.len();
        let mut keys = Vec::with_capacity(n * self.frames as usize);
        let mut prev: Vec<Option<Pose>> = vec![None; n];
        for f in 0..self.frames as usize {
            for (b, track) in self.tracks.iter().enumerate() {
                let Some(&(t, r, s)) = track.get(f) else {
                    continue;
                };
                let mask = match prev.get(b).copied().flatten() {
                    None => An11Key::POSITION | An11Key::ROTATION | An11Key::SCALE,
                    Some((pt, pr, ps)) => {
                        (if pt != t { An11Key::POSITION } else { 0 })
                            | (if pr != r { An11Key::ROTATION } else { 0 })
                            | (if ps != s { An11Key::SCALE } else { 0 })
                    }
                };
                if let Some(slot) = prev.get_mut(b) {
                    *slot = Some((t, r, s));
                }
                keys.push(An11Key {
                    mask,
                    position: if mask & An11Key::POSITION != 0 {
                        t
                    } else {
                        [0.0; 3]
                    },
                    rotation: if mask & An11Key::ROTATION != 0 {
                        r
                    } else {
                        [0.0; 4]
                    },
                    scale: if mask & An11Key::SCALE != 0 {
                        s
                    } else {
                        [0.0; 3]
                    },
                });
            }
        }
        An11Animation {
            bones: self.bones.clone().into(),
            frame_count: self.frames,
            keys,
        }
    }
}
