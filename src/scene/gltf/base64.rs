//! Base64 for the `.gltf` buffer's data URI: all at once ([`base64_into`]) or as the
//! buffer is streamed ([`Base64Writer`]).

use std::io::Write;

/// Writes the base64 of what is written to it ([`base64_into`], in pieces).
pub(super) struct Base64Writer<'a> {
    pub(super) out: &'a mut dyn Write,
    /// Bytes short of a group of three, held for the next write.
    pub(super) carry: Vec<u8>,
    /// The text of one piece.
    pub(super) text: String,
}

impl Write for Base64Writer<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        // Everything is taken: what does not fill a group of three is carried.
        let taken = data.len();
        let mut data = data;
        // Complete the carried group first.
        while !self.carry.is_empty() && self.carry.len() < 3 {
            let Some((&b, rest)) = data.split_first() else {
                return Ok(taken);
            };
            self.carry.push(b);
            data = rest;
        }
        self.text.clear();
        if self.carry.len() == 3 {
            base64_into(&self.carry, &mut self.text);
            self.carry.clear();
        }
        let whole = data.len() / 3 * 3;
        let (groups, rest) = data.split_at(whole);
        base64_into(groups, &mut self.text);
        self.carry.extend_from_slice(rest);
        self.out.write_all(self.text.as_bytes())?;
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl Base64Writer<'_> {
    /// Writes the last, padded group.
    pub(super) fn finish(&mut self) -> std::io::Result<()> {
        self.text.clear();
        base64_into(&self.carry, &mut self.text);
        self.carry.clear();
        self.out.write_all(self.text.as_bytes())
    }
}

/// Standard base64 (RFC 4648, with padding), appended to `out`.
pub(super) fn base64_into(data: &[u8], out: &mut String) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |i: u32| char::from(ALPHABET.get((i & 63) as usize).copied().unwrap_or(b'A'));
    out.reserve(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(n >> 18));
        out.push(sym(n >> 12));
        out.push(if chunk.len() > 1 { sym(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(n) } else { '=' });
    }
}
