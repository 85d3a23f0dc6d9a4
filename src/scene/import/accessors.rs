//! glTF accessors decoded to numbers: element type, component type, normalization,
//! stride and sparse parts checked against their buffer views and buffers, every value
//! charged to the import's decoding budget.

use serde_json::Value;

use super::json::{bad, entry, uint};
use crate::error::{Error, ErrorKind, Result};

/// The first `N` values of `v` as f32 (zeros where it is shorter).
pub(super) fn fixed<const N: usize>(v: &[f64]) -> [f32; N] {
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(v) {
        *o = *x as f32;
    }
    out
}

/// A decoded accessor: `count` elements of `n` components, flat.
pub(super) struct Accessor {
    pub(super) n: usize,
    pub(super) values: Vec<f64>,
}

impl Accessor {
    pub(super) fn count(&self) -> usize {
        self.values.len() / self.n.max(1)
    }

    pub(super) fn elements(&self) -> std::slice::ChunksExact<'_, f64> {
        self.values.chunks_exact(self.n.max(1))
    }
}

/// Charges `values` decoded numbers to the import's budget.
pub(super) fn charge(budget: &std::cell::Cell<u64>, values: usize, ctx: &str) -> Result<()> {
    let cost = (values as u64).saturating_mul(8);
    let left = budget.get();
    if cost > left {
        return Err(Error::new(
            "import",
            ErrorKind::LimitExceeded {
                what: "decoded glTF accessors (uses counted; the file's size sets the limit)",
                requested: cost,
                limit: left,
            },
        )
        .within(ctx));
    }
    budget.set(left - cost);
    Ok(())
}

/// Reads accessor `k` as numbers, element by element, checking what the glTF spec
/// constrains: the element type, the component type, the stride, and that every element
/// lies inside its buffer view and buffer. Normalized integers map to 0..=1 (unsigned) or
/// −1..=1 (signed). An accessor without a buffer view is zeros, and a sparse part
/// replaces the elements it lists (glTF 2.0, "Sparse Accessors").
pub(super) fn read_accessor(
    doc: &Value,
    k: usize,
    buffers: &[Vec<u8>],
    dims: &[usize],
    ctx: &str,
    budget: &std::cell::Cell<u64>,
) -> Result<Accessor> {
    let a = entry(doc, "accessors", k, ctx)?;
    let n = match a.get("type").and_then(Value::as_str) {
        Some("SCALAR") => 1,
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        Some("MAT4") => 16,
        t => return Err(bad(format!("{ctx}: accessor type {t:?}"))),
    };
    if !dims.contains(&n) {
        return Err(bad(format!("{ctx}: {n} components per element")));
    }
    let component_type = uint(a, "componentType", ctx)?.unwrap_or(0);
    let normalized = a
        .get("normalized")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let count = uint(a, "count", ctx)?.unwrap_or(0);
    charge(budget, count.saturating_mul(n), ctx)?;
    let layout = Layout {
        component_type,
        normalized,
        n,
    };
    // No buffer view: zeros (glTF 2.0, "Sparse Accessors"), which a sparse part may
    // replace.
    let mut values = match uint(a, "bufferView", ctx)? {
        Some(view) => {
            let offset = uint(a, "byteOffset", ctx)?.unwrap_or(0);
            read_elements(doc, buffers, view, offset, count, layout, true, ctx)?
        }
        None => vec![0.0; count * n],
    };
    if let Some(sparse) = a.get("sparse") {
        let sctx = format!("{ctx} sparse");
        let m = uint(sparse, "count", &sctx)?.unwrap_or(0);
        let part = |key: &str| {
            sparse
                .get(key)
                .ok_or_else(|| bad(format!("{sctx}: no {key}")))
        };
        let (ix, vx) = (part("indices")?, part("values")?);
        let index_layout = Layout {
            component_type: uint(ix, "componentType", &sctx)?.unwrap_or(0),
            normalized: false,
            n: 1,
        };
        if !matches!(index_layout.component_type, 5121 | 5123 | 5125) {
            return Err(bad(format!(
                "{sctx}: index componentType {}",
                index_layout.component_type
            )));
        }
        let view = |v: &Value| {
            uint(v, "bufferView", &sctx)?.ok_or_else(|| bad(format!("{sctx}: no buffer view")))
        };
        let indices = read_elements(
            doc,
            buffers,
            view(ix)?,
            uint(ix, "byteOffset", &sctx)?.unwrap_or(0),
            m,
            index_layout,
            false,
            &sctx,
        )?;
        let replaced = read_elements(
            doc,
            buffers,
            view(vx)?,
            uint(vx, "byteOffset", &sctx)?.unwrap_or(0),
            m,
            layout,
            false,
            &sctx,
        )?;
        for (&i, v) in indices.iter().zip(replaced.chunks_exact(n)) {
            let i = i as usize;
            let slot = values
                .get_mut(i * n..i * n + n)
                .ok_or_else(|| bad(format!("{sctx}: index {i} of {count} elements")))?;
            slot.copy_from_slice(v);
        }
    }
    Ok(Accessor { n, values })
}

/// How an accessor's elements are stored: component type, normalization, components.
#[derive(Clone, Copy)]
struct Layout {
    component_type: usize,
    normalized: bool,
    n: usize,
}

/// `count` elements of `layout` from buffer view `view_index` at `offset`, as f64
/// (normalized integers scaled to [0, 1] or [−1, 1]); `strided` honours the view's
/// `byteStride` (sparse parts are always tightly packed).
#[allow(clippy::too_many_arguments)]
fn read_elements(
    doc: &Value,
    buffers: &[Vec<u8>],
    view_index: usize,
    offset: usize,
    count: usize,
    layout: Layout,
    strided: bool,
    ctx: &str,
) -> Result<Vec<f64>> {
    let Layout {
        component_type,
        normalized,
        n,
    } = layout;
    let size = match component_type {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        t => return Err(bad(format!("{ctx}: componentType {t}"))),
    };
    let view = entry(doc, "bufferViews", view_index, ctx)?;
    let buffer = buffers
        .get(uint(view, "buffer", ctx)?.unwrap_or(usize::MAX))
        .ok_or_else(|| bad(format!("{ctx}: its buffer view names no buffer")))?;
    let view_offset = uint(view, "byteOffset", ctx)?.unwrap_or(0);
    let view_len = uint(view, "byteLength", ctx)?.unwrap_or(0);
    let view_bytes = buffer
        .get(view_offset..view_offset.saturating_add(view_len))
        .ok_or_else(|| bad(format!("{ctx}: buffer view outside its buffer")))?;
    let elem = size * n;
    let stride = match uint(view, "byteStride", ctx)?.filter(|_| strided) {
        None | Some(0) => elem,
        Some(s) if s >= elem => s,
        Some(s) => return Err(bad(format!("{ctx}: stride {s} below element size {elem}"))),
    };
    if count > 0 {
        let end = (count - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(offset))
            .and_then(|x| x.checked_add(elem));
        if end.is_none_or(|e| e > view_bytes.len()) {
            return Err(bad(format!(
                "{ctx}: {count} elements do not fit their {}-byte buffer view",
                view_bytes.len()
            )));
        }
    }
    let component = |b: &[u8]| -> f64 {
        let get = |i: usize| b.get(i).copied().unwrap_or(0);
        let unit = |v: f64, max: f64| if normalized { (v / max).max(-1.0) } else { v };
        match component_type {
            5126 => f64::from(f32::from_le_bytes([get(0), get(1), get(2), get(3)])),
            5125 => f64::from(u32::from_le_bytes([get(0), get(1), get(2), get(3)])),
            5123 => unit(f64::from(u16::from_le_bytes([get(0), get(1)])), 65535.0),
            5122 => unit(f64::from(i16::from_le_bytes([get(0), get(1)])), 32767.0),
            5121 => unit(f64::from(get(0)), 255.0),
            _ => unit(f64::from(get(0) as i8), 127.0),
        }
    };
    let mut values = Vec::with_capacity(count * n);
    for i in 0..count {
        let start = offset + i * stride;
        let e = view_bytes.get(start..start + elem).unwrap_or_default();
        values.extend(e.chunks_exact(size).map(component));
    }
    Ok(values)
}
