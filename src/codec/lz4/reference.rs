//! The compressor as it was before the word-at-a-time rewrite (commit 0026596): a
//! bounds-checked byte loop, slow but plainly LZ4's reference algorithm. Kept for tests
//! only, as the oracle the fast compressor must agree with byte for byte.

// The same settings as the fast compressor's (UNIGINE's).
use super::{HASH_LOG, LAST_LITERALS, MAX_DISTANCE, MF_LIMIT, MIN_MATCH, SKIP_TRIGGER};

/// The input with 8 zero bytes after it, so 8-byte reads near the end stay in bounds.
struct Input<'a> {
    src: &'a [u8],
}

impl Input<'_> {
    fn byte(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn u32_at(&self, i: usize) -> u32 {
        u32::from_le_bytes([
            self.byte(i),
            self.byte(i + 1),
            self.byte(i + 2),
            self.byte(i + 3),
        ])
    }

    fn u64_at(&self, i: usize) -> u64 {
        let mut b = [0u8; 8];
        for (k, x) in b.iter_mut().enumerate() {
            *x = self.byte(i + k);
        }
        u64::from_le_bytes(b)
    }

    /// LZ4's 5-byte hash (little-endian form).
    fn hash(&self, i: usize) -> usize {
        ((self.u64_at(i) << 24).wrapping_mul(889_523_592_379) >> (64 - HASH_LOG)) as usize
    }
}

/// Writes a length continuation: 255s, then the rest.
fn push_length(out: &mut Vec<u8>, mut rest: usize) {
    while rest >= 255 {
        out.push(255);
        rest -= 255;
    }
    out.push(rest as u8);
}

/// Appends one sequence: literals `src[anchor..ip]`, then a match (offset, length) if any.
fn push_sequence(
    out: &mut Vec<u8>,
    src: &[u8],
    anchor: usize,
    ip: usize,
    m: Option<(usize, usize)>,
) {
    let lit = ip - anchor;
    let token_at = out.len();
    out.push(0);
    if lit >= 15 {
        push_length(out, lit - 15);
    }
    out.extend_from_slice(src.get(anchor..ip).unwrap_or_default());
    let mut token = (lit.min(15) as u8) << 4;
    if let Some((offset, len)) = m {
        out.extend_from_slice(&(offset as u16).to_le_bytes());
        let code = len - MIN_MATCH;
        if code >= 15 {
            push_length(out, code - 15);
        }
        token |= code.min(15) as u8;
    }
    if let Some(t) = out.get_mut(token_at) {
        *t = token;
    }
}

/// Compresses `src` into a raw LZ4 block exactly as UNIGINE's writer does.
pub fn compress(src: &[u8]) -> Vec<u8> {
    let n = src.len();
    let mut out = Vec::with_capacity(n / 2 + 16);
    if n < MF_LIMIT + 1 {
        push_sequence(&mut out, src, 0, n, None);
        return out;
    }
    let input = Input { src };
    let mut table = vec![0usize; 1 << HASH_LOG];
    let mflimit_plus_one = n - MF_LIMIT + 1;
    let match_limit = n - LAST_LITERALS;
    let mut anchor = 0;
    let mut ip = 1;
    let mut forward_hash = input.hash(ip);
    // The table starts zeroed: every slot already names position 0.
    loop {
        // Find a match, skipping faster the longer none is found.
        let mut forward = ip;
        let mut step = 1usize;
        let mut search = 1u32 << SKIP_TRIGGER;
        let mut found;
        loop {
            let h = forward_hash;
            ip = forward;
            forward += step;
            step = (search >> SKIP_TRIGGER) as usize;
            search += 1;
            if forward > mflimit_plus_one {
                push_sequence(&mut out, src, anchor, n, None);
                return out;
            }
            found = table.get(h).copied().unwrap_or(0);
            forward_hash = input.hash(forward);
            if let Some(slot) = table.get_mut(h) {
                *slot = ip;
            }
            if found + MAX_DISTANCE >= ip && input.u32_at(found) == input.u32_at(ip) {
                break;
            }
        }
        // Extend backwards.
        while ip > anchor && found > 0 && input.byte(ip - 1) == input.byte(found - 1) {
            ip -= 1;
            found -= 1;
        }
        loop {
            // Extend forwards and emit.
            let (mut a, mut b) = (ip + MIN_MATCH, found + MIN_MATCH);
            while a < match_limit && input.byte(a) == input.byte(b) {
                a += 1;
                b += 1;
            }
            let len = a - ip;
            push_sequence(&mut out, src, anchor, ip, Some((ip - found, len)));
            ip += len;
            anchor = ip;
            if ip >= mflimit_plus_one {
                push_sequence(&mut out, src, anchor, n, None);
                return out;
            }
            if let Some(slot) = table.get_mut(input.hash(ip - 2)) {
                *slot = ip - 2;
            }
            // An immediate match at the new position: no literals in between.
            let h = input.hash(ip);
            found = table.get(h).copied().unwrap_or(0);
            if let Some(slot) = table.get_mut(h) {
                *slot = ip;
            }
            if found + MAX_DISTANCE >= ip && input.u32_at(found) == input.u32_at(ip) {
                continue;
            }
            ip += 1;
            forward_hash = input.hash(ip);
            break;
        }
    }
}
