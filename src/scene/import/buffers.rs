//! Where a glTF document's bytes come from: the JSON and BIN chunks of a `.glb`, base64
//! `data:` URIs, and external files confined to the resource folder.

use std::path::Path;

use super::json::bad;
use crate::error::Result;

/// Decodes standard base64 (padding optional, no whitespace).
pub(super) fn base64_decode(text: &str) -> Result<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3 + 3);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            let v = value(c).ok_or_else(|| bad(format!("base64: byte {c:#04x} in a data URI")))?;
            n |= v << (18 - 6 * k);
        }
        let got = chunk.len() * 6 / 8;
        out.extend(n.to_be_bytes().get(1..1 + got).unwrap_or_default());
    }
    Ok(out)
}

/// Splits a GLB into its JSON and BIN chunks; a `.gltf` is all JSON.
pub(super) fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    if !bytes.starts_with(b"glTF") {
        return Ok((bytes, None));
    }
    let u32_at = |o: usize| -> Result<u32> {
        bytes
            .get(o..o + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| bad(format!("GLB: cut short at byte {o}")))
    };
    if u32_at(4)? != 2 {
        return Err(bad(format!("GLB: version {} (2 expected)", u32_at(4)?)));
    }
    let total = (u32_at(8)? as usize).min(bytes.len());
    let (mut at, mut json, mut bin) = (12usize, None, None);
    while at + 8 <= total {
        let (len, kind) = (u32_at(at)? as usize, u32_at(at + 4)?);
        let data = bytes
            .get(at + 8..(at + 8).saturating_add(len))
            .ok_or_else(|| bad(format!("GLB: chunk at byte {at} overruns the file")))?;
        match kind {
            0x4E4F_534A if json.is_none() => json = Some(data),
            0x004E_4942 if bin.is_none() => bin = Some(data),
            _ => {}
        }
        at = at + 8 + len;
    }
    Ok((json.ok_or_else(|| bad("GLB: no JSON chunk"))?, bin))
}

/// Reads an external buffer: `uri` percent-decoded, resolved in `dir`, and required to
/// be a regular file inside `root` no smaller than `declared` (of which that many bytes
/// are read).
pub(super) fn read_external(
    dir: &Path,
    root: &Path,
    uri: &str,
    declared: usize,
    ctx: &str,
) -> Result<Vec<u8>> {
    use std::io::Read;
    let refuse = |why: String| bad(format!("{ctx}: external buffer {uri:?}: {why}"));
    let name = percent_decode(uri).ok_or_else(|| refuse("malformed percent-encoding".into()))?;
    if let Some((scheme, _)) = name.split_once(':') {
        if !scheme.contains('/') && !scheme.contains('\\') {
            return Err(refuse(format!(
                "a {scheme}: URI; only data: URIs and relative file names are read"
            )));
        }
    }
    let rel = Path::new(&name);
    if rel.is_absolute() || name.starts_with('/') || name.starts_with('\\') {
        return Err(refuse(
            "an absolute path; buffers are read relative to the glTF file".into(),
        ));
    }
    if rel.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    }) {
        return Err(refuse("a path leaving the glTF's folder (`..`)".into()));
    }
    let path = dir.join(rel);
    let real = path
        .canonicalize()
        .map_err(|e| refuse(format!("cannot open: {e}")))?;
    let root = root
        .canonicalize()
        .map_err(|e| refuse(format!("cannot resolve the resource folder: {e}")))?;
    if !real.starts_with(&root) {
        return Err(refuse(format!(
            "it leads out of {} (through a symbolic link); pass --resource-root to allow \
             another folder",
            root.display()
        )));
    }
    let meta = std::fs::metadata(&real).map_err(|e| refuse(format!("cannot open: {e}")))?;
    if !meta.is_file() {
        return Err(refuse("not a regular file".into()));
    }
    if meta.len() < declared as u64 {
        return Err(refuse(format!(
            "the file holds {} bytes, byteLength declares {declared}",
            meta.len()
        )));
    }
    let mut data = Vec::new();
    std::fs::File::open(&real)
        .and_then(|f| f.take(declared as u64).read_to_end(&mut data))
        .map_err(|e| refuse(format!("cannot read: {e}")))?;
    Ok(data)
}

/// `%XX` escapes decoded (RFC 3986), the result as UTF-8; `None` if malformed.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
