//! Thirty-two bytes of text as one value: where a byte first occurs in them, the first
//! `n` kept (the rest zeroed), a hash, and equality. The triple table ([`super::seen`])
//! keys every triple of a text mesh by its first 32 bytes, so these four steps run for
//! each of them.
//!
//! A block is two 16-byte vectors of the `wide` crate (safe SIMD: SSE2 on x86-64,
//! which every x86-64 build has; NEON on 64-bit ARM; plain arrays elsewhere): one
//! compare and one byte mask find a byte in sixteen, where words (SWAR) took four
//! steps for eight. A text of repeated triples costs a quarter fewer instructions,
//! a real 1.01 file 13% fewer (docs/benchmarks.md, "Ninth session"). Exact with no
//! argument needed: the first `]` found is the first there is.

use bytemuck::cast;
use wide::u8x16;

/// The bytes of each length: `KEEP[32 - n..64 - n]` is `n` bytes of 0xFF, then zeros.
const KEEP: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut i = 0;
    while i < 32 {
        // Indexing in a constant's initialiser: out of bounds would not compile.
        #[allow(clippy::indexing_slicing)]
        {
            table[i] = 0xFF;
        }
        i += 1;
    }
    table
};

/// The top bits of the 16 bytes of `v`, the first byte's lowest (a compare's result:
/// one bit a byte).
#[inline(always)]
fn mask16(v: u8x16) -> u32 {
    // `move_mask` gives the 16 bits as a non-negative i32.
    v.move_mask() as u32
}

/// Bytes 0–15 and 16–31.
#[derive(Clone, Copy, Default, bytemuck::Zeroable)]
pub(super) struct Block([u8x16; 2]);

impl Block {
    /// The 32 bytes as they stand.
    #[inline(always)]
    pub(super) fn load(bytes: &[u8; 32]) -> Block {
        let [lo, hi]: [[u8; 16]; 2] = cast(*bytes);
        Block([u8x16::from(lo), u8x16::from(hi)])
    }

    /// Where `byte` first occurs, if it does.
    #[inline(always)]
    pub(super) fn first(self, byte: u8) -> Option<usize> {
        let [lo, hi] = self.0;
        let sought = u8x16::splat(byte);
        // One bit a byte, the first byte lowest.
        let marks = mask16(lo.cmp_eq(sought)) | mask16(hi.cmp_eq(sought)) << 16;
        (marks != 0).then(|| marks.trailing_zeros() as usize)
    }

    /// The first `n` bytes (32 at most), zeros after them.
    #[inline(always)]
    pub(super) fn keep(self, n: usize) -> Block {
        let start = 32 - n.min(32);
        let mask = KEEP
            .get(start..start + 32)
            .and_then(|m| m.first_chunk::<32>())
            .map_or_else(Block::default, Block::load);
        let ([a, b], [m, k]) = (self.0, mask.0);
        Block([a & m, b & k])
    }

    /// A hash of all 32 bytes: the halves folded into one vector (one operation, where
    /// taking each of the four words apart took a dozen), its two words mixed.
    #[inline(always)]
    pub(super) fn hash(self) -> u64 {
        let [lo, hi] = self.0;
        let [a, b]: [u64; 2] = cast(lo ^ hi);
        (a ^ b.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// Whether the two hold the same bytes.
    #[inline(always)]
    pub(super) fn same(&self, other: &Block) -> bool {
        let ([a0, a1], [b0, b1]) = (self.0, other.0);
        mask16(a0.cmp_eq(b0) & a1.cmp_eq(b1)) == 0xFFFF
    }
}

#[cfg(test)]
mod tests {
    use super::Block;

    /// Texts with the byte sought at every place, none, twice, after bytes from 0x80
    /// up and after zero bytes: the first place, the bytes kept and equality are what
    /// the plain byte-by-byte answers are.
    #[test]
    fn blocks_answer_as_bytes_do() {
        let mut texts: Vec<[u8; 32]> = Vec::new();
        for at in 0..32 {
            for fill in [b'7', 0x00, 0x80, 0xDD, 0xFF, b']' ^ 0x80, b']' - 1] {
                let mut t = [fill; 32];
                if let Some(b) = t.get_mut(at) {
                    *b = b']';
                }
                texts.push(t);
                if let Some(b) = t.get_mut(31) {
                    *b = b']';
                }
                texts.push(t);
            }
        }
        texts.push([b'1'; 32]);
        texts.push([0; 32]);
        for t in &texts {
            let block = Block::load(t);
            assert_eq!(
                block.first(b']'),
                t.iter().position(|&c| c == b']'),
                "{t:?}"
            );
            for n in 0..=33 {
                let mut want = [0u8; 32];
                for (w, s) in want.iter_mut().zip(t).take(n) {
                    *w = *s;
                }
                assert!(block.keep(n).same(&Block::load(&want)), "{n} {t:?}");
            }
        }
        for (i, x) in texts.iter().enumerate() {
            for y in texts.iter().skip(i) {
                assert_eq!(Block::load(x).same(&Block::load(y)), x == y);
            }
        }
        assert!(Block::default().same(&Block::load(&[0; 32])));
    }

    /// Keys that differ in one byte, anywhere, hash apart (the table's sets spread).
    #[test]
    fn a_byte_anywhere_changes_the_hash() {
        let base = *b"[-0.935,0.935,0.5]\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
        let h = Block::load(&base).hash();
        for at in 0..32 {
            let mut t = base;
            if let Some(b) = t.get_mut(at) {
                *b ^= 0x01;
            }
            assert_ne!(Block::load(&t).hash() >> 54, h >> 54, "{at}");
        }
    }
}
