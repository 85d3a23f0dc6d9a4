//! Thumbnails: a shaded picture of a [`Scene`]'s geometry, drawn in software (no GPU),
//! with [`tiny_skia`] filling the triangles.
//!
//! # The view
//!
//! Every file is drawn from the same direction, so that thumbnails compare at a glance:
//!
//! - **Upright.** The scene is taken +Y up; a +Z-up scene (UNIGINE) is turned as
//!   [`Scene::to_y_up`] turns it, so it stands the same way as its glTF export.
//! - **From the front, right and above.** Roblox models face −Z (as UNIGINE's forward
//!   +Y does once turned), so the camera sits on the −Z side, [`AZIMUTH_DEGREES`] round
//!   towards +X and [`ELEVATION_DEGREES`] above the horizon, looking at the model: a
//!   cube shows its top, its −Z face (on the right of the picture) and its +X face (on
//!   the left; a Roblox character's right hand side).
//! - **Orthographic and framed.** Parallel projection (no perspective, so no near plane
//!   to clip against and no distance to choose); the projected extent of the drawn
//!   triangles is centred and scaled so that its longer side spans the image less a
//!   margin of [`MARGIN`] of the side on each end.
//! - **Lit.** Flat shading: each triangle gets one colour, ambient light plus a Lambert
//!   term for a fixed directional light from above, in front and a little right
//!   ([`LIGHT`]), with the face normal of the triangle's winding. Lighting is two-sided
//!   (the normal is turned towards the camera), so inside-out meshes and open surfaces
//!   look the same from either side. Vertex normals are not used: a thumbnail should
//!   show the facets as they are.
//!
//! # Drawing
//!
//! Triangles are sorted by the depth of their centroids and painted back to front (the
//! painter's algorithm) without a depth buffer. It can get intersecting or cyclically
//! overlapping triangles wrong, which for a closed mesh hides only small slivers; at
//! thumbnail size that is not visible, and it lets a 2-D rasterizer do all the work.
//! Triangles are filled without anti-aliasing, so shared edges leave no hairline cracks
//! (anti-aliased edges would let the background show through between neighbours). To
//! smooth the edges anyway, an image up to 1024 pixels wide is drawn 2 to 4 times as
//! large (at most 2048 pixels) and averaged down; larger ones are drawn as they are.
//!
//! Triangles with an index out of range, a position that is not finite or no area are
//! left out; a scene with no triangle left is an error.
//!
//! # The work, and its budget
//!
//! The work is one pass over the triangles, a sort and one fill per triangle. The pass
//! and the sort cost about a microsecond a triangle (release build); a fill costs the
//! pixels it covers, and a little for each row it spans. Triangles that are each small
//! on screen, as in any real model, keep the fills cheap: a smooth mesh of two million
//! triangles takes about a second at any image size. But a triangle can cover much of
//! the picture, and a file of a few megabytes can hold millions of them (random ones,
//! or one repeated), which would take minutes at the largest sizes.
//!
//! So the fill work is estimated before anything is drawn, from the projected
//! triangles ([`Work`], also given by [`work`]): their area in pixels, plus
//! [`Work::PER_ROW`] pixels for each row each one spans. Overlaps count every time,
//! as they are painted every time. When the estimate for the supersampled drawing is
//! over [`RenderOptions::max_work`], the picture is drawn with less supersampling (one
//! step at a time, down to none: the first that fits; the edges are less smooth);
//! when even that is over, [`render`] fails with [`ErrorKind::WorkLimitExceeded`]
//! before drawing. The default, [`DEFAULT_MAX_WORK`], is a few seconds of filling, a
//! hundred times what a smooth mesh of two million triangles needs and thousands of
//! times what real files need, so their pictures do not change; raise it for trusted
//! input. Memory is the image (at most 2048 or 4096 pixels square) and 32 bytes a
//! triangle, whatever the coordinates.
//!
//! # Example
//!
//! ```
//! use meshcodec::render::{render_png, RenderOptions};
//! use meshcodec::{open, Limits, MeshFile};
//!
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/unigine/ms14-static-box.mesh"));
//! let scene = open(bytes)?.to_scene(&Default::default(), &Limits::default())?;
//! let png = render_png(&scene, &RenderOptions { size: 32, ..Default::default() })?;
//! assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
//! # Ok::<(), meshcodec::Error>(())
//! ```

use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Transform};

use crate::error::{Error, ErrorKind, Result};
use crate::scene::{Scene, UpAxis};

/// How far round from the −Z side towards +X the camera sits, in degrees.
pub const AZIMUTH_DEGREES: f64 = 35.0;
/// How far above the horizon the camera sits, in degrees.
pub const ELEVATION_DEGREES: f64 = 30.0;
/// The space left empty on each side of the framed model, as a fraction of the side.
pub const MARGIN: f64 = 0.06;
/// The direction towards the light (world space, +Y up; not normalised): above, in
/// front (−Z) and a little to the right (+X).
pub const LIGHT: [f64; 3] = [0.3, 0.9, -0.6];
/// The smallest image side accepted, in pixels.
pub const MIN_SIZE: u32 = 16;
/// The largest image side accepted, in pixels.
pub const MAX_SIZE: u32 = 4096;

/// The share of light every face gets, lit or not.
const AMBIENT: f64 = 0.3;
/// The model's colour (sRGB), before shading.
const BASE: [f64; 3] = [205.0, 212.0, 225.0];
/// The side, in pixels, up to which the image is drawn larger and averaged down.
const SUPERSAMPLED_SIDE: u32 = 2048;

/// What [`render`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Side of the square image, in pixels: [`MIN_SIZE`] to [`MAX_SIZE`]. Default 256.
    pub size: u32,
    /// Background colour, RGBA (not premultiplied). Default transparent.
    pub background: [u8; 4],
    /// The most fill work allowed, as [`Work::at`] estimates it (see the
    /// [module docs](self)): over it the picture is drawn with less supersampling, and
    /// if it is over even without, [`render`] fails. Default [`DEFAULT_MAX_WORK`].
    pub max_work: u64,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            size: 256,
            background: [0, 0, 0, 0],
            max_work: DEFAULT_MAX_WORK,
        }
    }
}

/// The fill work [`render`] allows by default (see [`RenderOptions::max_work`]): about
/// 2 to 3 seconds of filling on a slow, busy machine; the largest real file seen needs
/// a three-thousandth of it at 256 pixels, a smooth mesh of two million triangles a
/// hundredth.
pub const DEFAULT_MAX_WORK: u64 = 20_000_000_000;

/// What filling a scene's triangles costs, measured after projection and framing:
/// sums over the triangles that are drawn, in pixels of the image without
/// supersampling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    /// The triangles that are drawn.
    pub triangles: u64,
    /// The sum of their areas, in pixels.
    pub area: f64,
    /// The sum of their heights, in pixels.
    pub height: f64,
}

impl Work {
    /// What one row of a triangle costs beyond its pixels (finding the span and
    /// starting it), in pixels filled in the same time.
    pub const PER_ROW: u64 = 40;

    /// The estimated work of filling the triangles `supersample` times as large (1 to
    /// 4), in pixels: their area, plus the rows they span (each triangle at least
    /// one) at [`PER_ROW`](Self::PER_ROW) pixels a row.
    pub fn at(&self, supersample: u32) -> u64 {
        let k = f64::from(supersample);
        let rows = self.height * k + self.triangles as f64;
        // The sums are finite and not negative; the cast saturates.
        (self.area * k * k + rows * Self::PER_ROW as f64) as u64
    }
}

/// A rendered picture: square, RGBA.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pixmap: Pixmap,
}

impl Image {
    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.pixmap.width()
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.pixmap.height()
    }

    /// The pixel at column `x`, row `y` (row 0 at the top) as RGBA, not premultiplied;
    /// `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        // tiny-skia checks only the index, so x = width would be the next row's first.
        if x >= self.width() {
            return None;
        }
        let c = self.pixmap.pixel(x, y)?.demultiply();
        Some([c.red(), c.green(), c.blue(), c.alpha()])
    }

    /// The picture as a PNG file (8-bit RGBA).
    pub fn to_png(&self) -> Result<Vec<u8>> {
        self.pixmap.encode_png().map_err(|e| {
            Error::new(
                "render › PNG",
                ErrorKind::Io(std::io::Error::other(e.to_string())),
            )
        })
    }
}

/// Draws the scene's triangles (every mesh and primitive) as the [module docs](self)
/// describe.
///
/// Errors: [`ErrorKind::Invalid`] for a size outside [`MIN_SIZE`]..=[`MAX_SIZE`] or
/// no triangle to draw; [`ErrorKind::WorkLimitExceeded`] when the fill work, even
/// without supersampling, is over [`RenderOptions::max_work`].
pub fn render(scene: &Scene, options: &RenderOptions) -> Result<Image> {
    let size = options.size;
    check_size(size)?;
    let camera = Camera::new(scene.up);
    let Pass1 {
        mut faces,
        lo,
        hi,
        work,
    } = pass1(scene, &camera, size)?;

    // The most supersampling the budget allows, or none and an error.
    let most = (SUPERSAMPLED_SIDE / size).clamp(1, 4);
    let Some(k) = (1..=most).rev().find(|&k| work.at(k) <= options.max_work) else {
        return Err(Error::new(
            "render",
            ErrorKind::WorkLimitExceeded {
                what: "fill work (pixels, without supersampling)",
                estimated: work.at(1),
                limit: options.max_work,
            },
        ));
    };
    // Farthest first; equal depths keep the file's order.
    faces.sort_by(|a, b| a.depth.total_cmp(&b.depth));

    // Pass 2: frame and paint.
    let side = size * k;
    let mut pixmap = Pixmap::new(side, side).ok_or_else(|| invalid("image size".into()))?;
    let [r, g, b, a] = options.background;
    pixmap.fill(Color::from_rgba8(r, g, b, a));
    let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let half = f64::from(side) / 2.0;
    let scale = if extent > 0.0 && extent.is_finite() {
        f64::from(side) * (1.0 - 2.0 * MARGIN) / extent
    } else {
        1.0
    };
    let centre = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    let to_pixel = |s: [f64; 2]| {
        (
            (half + (s[0] - centre[0]) * scale) as f32,
            (half - (s[1] - centre[1]) * scale) as f32,
        )
    };
    let prims: Vec<_> = scene.meshes.iter().flat_map(|m| &m.primitives).collect();
    let mut paint = Paint {
        anti_alias: false,
        ..Paint::default()
    };
    let mut builder = PathBuilder::with_capacity(4, 3);
    for face in &faces {
        let Some(prim) = prims.get(face.prim) else {
            continue;
        };
        let Some(w) = prim
            .triangles
            .get(face.tri)
            .and_then(|tri| camera.triangle(&prim.positions, tri))
        else {
            continue;
        };
        let [p0, p1, p2] = w.map(|v| to_pixel(camera.project(&v)));
        builder.move_to(p0.0, p0.1);
        builder.line_to(p1.0, p1.1);
        builder.line_to(p2.0, p2.1);
        builder.close();
        let Some(path) = std::mem::take(&mut builder).finish() else {
            continue;
        };
        let [r, g, b] = BASE.map(|c| (c * face.shade).round().clamp(0.0, 255.0) as u8);
        paint.set_color_rgba8(r, g, b, 255);
        pixmap.fill_path(
            &path,
            &paint,
            FillRule::Winding,
            Transform::identity(),
            None,
        );
        builder = path.clear();
    }
    Ok(Image {
        pixmap: downsample(&pixmap, k)?,
    })
}

/// The fill work of drawing `scene` at `size` pixels (before supersampling), as
/// [`render`] estimates it to choose its supersampling or refuse; the same errors for
/// a bad size or nothing to draw.
pub fn work(scene: &Scene, size: u32) -> Result<Work> {
    check_size(size)?;
    Ok(pass1(scene, &Camera::new(scene.up), size)?.work)
}

fn check_size(size: u32) -> Result<()> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
        return Err(invalid(format!(
            "image size {size}: must be {MIN_SIZE} to {MAX_SIZE} pixels"
        )));
    }
    Ok(())
}

/// What the first pass over the triangles finds.
struct Pass1 {
    /// The triangles that can be drawn, in the file's order.
    faces: Vec<Face>,
    /// The lower corner of the projected extent (screen units).
    lo: [f64; 2],
    /// The upper corner of the projected extent.
    hi: [f64; 2],
    /// Their fill work at `size`.
    work: Work,
}

/// Pass 1: the triangles that can be drawn, their depth and shade, the extent, and the
/// work of filling them in an image `size` pixels wide.
fn pass1(scene: &Scene, camera: &Camera, size: u32) -> Result<Pass1> {
    let mut faces = Vec::new();
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    // In screen units, scaled to pixels once the extent is known.
    let (mut area, mut height) = (0.0f64, 0.0f64);
    for (p, prim) in scene.meshes.iter().flat_map(|m| &m.primitives).enumerate() {
        for (t, tri) in prim.triangles.iter().enumerate() {
            let Some(w) = camera.triangle(&prim.positions, tri) else {
                continue;
            };
            let Some(shade) = camera.shade(&w) else {
                continue;
            };
            let s = w.map(|v| camera.project(&v));
            for v in &s {
                for ((l, h), &x) in lo.iter_mut().zip(&mut hi).zip(v) {
                    *l = l.min(x);
                    *h = h.max(x);
                }
            }
            let [a, b, c] = s;
            area += ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])).abs() / 2.0;
            height += a[1].max(b[1]).max(c[1]) - a[1].min(b[1]).min(c[1]);
            let depth = w.iter().map(|v| dot(v, &camera.toward)).sum::<f64>();
            faces.push(Face {
                depth,
                shade,
                prim: p,
                tri: t,
            });
        }
    }
    if faces.is_empty() {
        return Err(invalid(
            "nothing to draw: no triangle with positions that are finite and in range".into(),
        ));
    }
    let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let scale = if extent > 0.0 && extent.is_finite() {
        f64::from(size) * (1.0 - 2.0 * MARGIN) / extent
    } else {
        0.0
    };
    let work = Work {
        triangles: faces.len() as u64,
        area: finite_or_max(area * scale * scale),
        height: finite_or_max(height * scale),
    };
    Ok(Pass1 {
        faces,
        lo,
        hi,
        work,
    })
}

/// `x`, or the largest `f64` when it overflowed (a sum over huge coordinates).
fn finite_or_max(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        f64::MAX
    }
}

/// [`render`], encoded as PNG.
pub fn render_png(scene: &Scene, options: &RenderOptions) -> Result<Vec<u8>> {
    render(scene, options)?.to_png()
}

/// A triangle to paint: where it is in the scene, its depth (larger is nearer) and
/// shade.
struct Face {
    depth: f64,
    shade: f64,
    prim: usize,
    tri: usize,
}

/// The fixed view: the camera's axes in +Y-up world space, the light, and the scene's
/// up axis.
struct Camera {
    up: UpAxis,
    /// Towards the camera (the view direction reversed).
    toward: [f64; 3],
    /// Screen right.
    right: [f64; 3],
    /// Screen up.
    screen_up: [f64; 3],
    /// Towards the light, unit length.
    light: [f64; 3],
}

impl Camera {
    fn new(up: UpAxis) -> Self {
        let (az, el) = (AZIMUTH_DEGREES.to_radians(), ELEVATION_DEGREES.to_radians());
        let toward = [el.cos() * az.sin(), el.sin(), -el.cos() * az.cos()];
        // Looking along −toward with +Y up: right = forward × Y, up = right × forward.
        let forward = toward.map(|x| -x);
        let right = normalize(cross(&forward, &[0.0, 1.0, 0.0])).unwrap_or([1.0, 0.0, 0.0]);
        let screen_up = cross(&right, &forward);
        let light = normalize(LIGHT).unwrap_or([0.0, 1.0, 0.0]);
        Camera {
            up,
            toward,
            right,
            screen_up,
            light,
        }
    }

    /// The triangle's corners in +Y-up world space, or `None` when an index is out of
    /// range or a coordinate is not finite.
    fn triangle(&self, positions: &[[f32; 3]], tri: &[u32; 3]) -> Option<[[f64; 3]; 3]> {
        let corner = |i: u32| -> Option<[f64; 3]> {
            let p = positions.get(usize::try_from(i).ok()?)?;
            if !p.iter().all(|x| x.is_finite()) {
                return None;
            }
            let [x, y, z] = p.map(f64::from);
            // The turn of `Scene::to_y_up`: (x, y, z) → (x, z, −y).
            Some(match self.up {
                UpAxis::Y => [x, y, z],
                UpAxis::Z => [x, z, -y],
            })
        };
        Some([corner(tri[0])?, corner(tri[1])?, corner(tri[2])?])
    }

    /// Brightness 0..=1 of a triangle with these corners, `None` for one without area.
    fn shade(&self, [a, b, c]: &[[f64; 3]; 3]) -> Option<f64> {
        let n = normalize(cross(&sub(b, a), &sub(c, a)))?;
        // Two-sided: the side facing the camera is the one lit.
        let n = if dot(&n, &self.toward) < 0.0 {
            n.map(|x| -x)
        } else {
            n
        };
        Some(AMBIENT + (1.0 - AMBIENT) * dot(&n, &self.light).max(0.0))
    }

    /// Screen coordinates (right, up) of a world point, in world units.
    fn project(&self, v: &[f64; 3]) -> [f64; 2] {
        [dot(v, &self.right), dot(v, &self.screen_up)]
    }
}

/// Averages each `k`×`k` block of pixels into one (premultiplied, so edges blend
/// correctly with a transparent background).
fn downsample(big: &Pixmap, k: u32) -> Result<Pixmap> {
    if k == 1 {
        return Ok(big.clone());
    }
    let side = big.width() / k;
    let (k, n) = (k as usize, side as usize);
    let mut sums = vec![0u32; n * n * 4];
    for (y, row) in big.data().chunks_exact(n * k * 4).enumerate() {
        let out_row = (y / k) * n;
        for (x, px) in row.chunks_exact(4).enumerate() {
            let at = (out_row + x / k) * 4;
            if let Some(acc) = sums.get_mut(at..at + 4) {
                for (s, &c) in acc.iter_mut().zip(px) {
                    *s += u32::from(c);
                }
            }
        }
    }
    let count = (k * k) as u32;
    // Rounding every channel alike keeps colour ≤ alpha, as premultiplied data must.
    let data = sums
        .iter()
        .map(|&s| ((s + count / 2) / count) as u8)
        .collect();
    tiny_skia::IntSize::from_wh(side, side)
        .and_then(|s| Pixmap::from_vec(data, s))
        .ok_or_else(|| invalid("image size".into()))
}

fn invalid(what: String) -> Error {
    Error::new("render", ErrorKind::Invalid(what))
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `v` scaled to unit length; `None` when it has no (finite, non-zero) length.
fn normalize(v: [f64; 3]) -> Option<[f64; 3]> {
    let len = dot(&v, &v).sqrt();
    (len > 0.0 && len.is_finite()).then(|| v.map(|x| x / len))
}
