//! Vertices seen before: a text mesh writes each vertex out again, all three triples of
//! it (`[position][normal][uv]`), for every face that uses it: 68% of the vertices of
//! the corpus's 1.01 torso are texts read before. A vertex found whole takes the place
//! of three triple lookups ([`super::seen`]): one look at 64 bytes finds where it ends,
//! one slot says where its text was read before, and one compare of the two texts
//! decides.
//!
//! Exact by construction: a slot names a vertex read earlier in this parse and where its
//! text starts; a vertex is taken from it only when the bytes from its `[` through its
//! third `]` are those of that earlier text, byte for byte, and only vertices whose three
//! triples the fast path read, without exponents, are kept (what that path gives is a
//! function of the triples' bytes alone: [`super::seen`]), so the earlier vertex's
//! values are what reading these bytes again would give. The numbers' statistics need
//! nothing from such triples but their count (nine).
//!
//! A lookup that misses costs about what a hit saves, so the table is only made for
//! texts of [`FEWEST_VERTICES`] vertices or more and is dropped as soon as it finds
//! fewer than half of those it looks up ([`CHECK_EVERY`]): the 1.00 files, whose
//! vertices mostly take more than 64 bytes and repeat less, go triple by triple as
//! before.

use bytemuck::cast;
use wide::u8x16;

/// The bytes a vertex's text may take, and that a lookup loads.
const WIDTH: usize = 64;

/// Slots at most (8 bytes each: 8 KiB). Repeats come soon after their first, as the
/// triples' do ([`super::seen`]).
const MOST_SLOTS: usize = 1024;

/// Texts of fewer vertices get no table: a few lookups cannot repay making it.
pub(super) const FEWEST_VERTICES: usize = 64;

/// Every this many lookups, the table is dropped if fewer than half of those made so far
/// found their vertex.
const CHECK_EVERY: u32 = 32;

#[cfg(test)]
thread_local! {
    /// Vertices found on this thread (tests check that the table was used).
    pub(super) static FOUND: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The 64 bytes from a vertex's `[`, as four vectors.
type Bytes = [u8x16; 4];

/// `KEEP[64 - n..128 - n]` is `n` bytes of 0xFF, then zeros.
const KEEP: [u8; 2 * WIDTH] = {
    let mut table = [0u8; 2 * WIDTH];
    let mut i = 0;
    while i < WIDTH {
        // Indexing in a constant's initialiser: out of bounds would not compile.
        #[allow(clippy::indexing_slicing)]
        {
            table[i] = 0xFF;
        }
        i += 1;
    }
    table
};

/// The first `n` (at most 64) of 64 bytes set, the others not.
#[inline(always)]
fn keep(n: usize) -> Bytes {
    let start = WIDTH - n.min(WIDTH);
    KEEP.get(start..start + WIDTH)
        .and_then(|m| load(m, 0))
        .unwrap_or_default()
}

/// One bit a byte of the 64: where `v` compared true, the first byte lowest.
#[inline(always)]
fn bits(v: Bytes) -> u64 {
    // `move_mask` gives the 16 bits as a non-negative i32.
    v.iter().enumerate().fold(0, |m, (i, x)| {
        m | u64::from(x.move_mask() as u16) << (16 * i)
    })
}

/// The 64 bytes at `pos` of `bytes`, if there are that many.
#[inline(always)]
fn load(bytes: &[u8], pos: usize) -> Option<Bytes> {
    let head: &[u8; WIDTH] = bytes.get(pos..pos.checked_add(WIDTH)?)?.try_into().ok()?;
    let parts: [[u8; 16]; 4] = cast(*head);
    Some(parts.map(u8x16::from))
}

/// The vertex whose `[` is at a position: its text's length (through its third `]`)
/// and the slot its text goes to.
#[derive(Clone, Copy)]
pub(super) struct Key {
    text: Bytes,
    /// Bytes from `[` through the third `]`.
    pub(super) len: usize,
    slot: usize,
}

/// Where each vertex's text was read, by a hash of the text: `[start, vertex]`, both
/// below 2³²: `start` in the bytes parsed, `vertex` among the vertices of the one call
/// of the face loop that fills and reads the table (the whole file's; a text read in
/// pieces has none). A slot of zeros names the file's first byte, the `v` of its
/// version line, which no vertex's `[` matches.
pub(super) struct Vertices {
    slots: Vec<[u32; 2]>,
    /// 64 − log2 of the slot count: a hash's top bits index the slots.
    shift: u32,
    /// Lookups made and vertices found, for [`CHECK_EVERY`].
    tried: u32,
    found: u32,
    /// Whether lookups are made: false without a table or once it is dropped (its
    /// memory is kept to the end of the parse: freed in the middle of the 320 KB 1.00
    /// file's parse, it left the heap's top free for the allocator to give back to the
    /// system and ask for again on every parse, 100 pages a parse).
    on: bool,
}

impl Vertices {
    /// A table for a text of `vertices` vertices (none for fewer than
    /// [`FEWEST_VERTICES`]).
    pub(super) fn new(vertices: usize) -> Vertices {
        if vertices < FEWEST_VERTICES {
            return Vertices::none();
        }
        let slots = vertices.min(MOST_SLOTS).next_power_of_two();
        Vertices {
            slots: vec![[0; 2]; slots],
            shift: 64 - slots.trailing_zeros(),
            tried: 0,
            found: 0,
            on: true,
        }
    }

    /// No table: nothing is looked up.
    pub(super) fn none() -> Vertices {
        Vertices {
            slots: Vec::new(),
            shift: 63,
            tried: 0,
            found: 0,
            on: false,
        }
    }

    /// Whether there is a table (it is dropped when it finds too few).
    #[inline(always)]
    pub(super) fn is_on(&self) -> bool {
        self.on
    }

    /// The key of the vertex whose `[` is at `pos` of `bytes`: `None` when its three
    /// triples do not end within 64 bytes (or fewer remain), or without a table.
    #[inline(always)]
    pub(super) fn key(&mut self, bytes: &[u8], pos: usize) -> Option<Key> {
        if self.tried.is_multiple_of(CHECK_EVERY) && self.found < self.tried / 2 {
            self.on = false;
        }
        if !self.on {
            return None;
        }
        self.tried += 1;
        let text = load(bytes, pos)?;
        let close = u8x16::splat(b']');
        let marks = bits(text.map(|v| v.cmp_eq(close)));
        // The second and third `]`: the lowest mark cleared once, then twice.
        let two = marks & marks.wrapping_sub(1);
        let three = two & two.wrapping_sub(1);
        if three == 0 {
            return None;
        }
        let len = three.trailing_zeros() as usize + 1;
        // The hash: all the text's bytes (the rest zeroed), the four vectors folded
        // into two, their four words crossed, and the three triples' lengths.
        let mut kept = text;
        for (k, m) in kept.iter_mut().zip(keep(len)) {
            *k &= m;
        }
        let [a, b]: [u64; 2] = cast(kept[0] ^ kept[2]);
        let [c, d]: [u64; 2] = cast(kept[1] ^ kept[3]);
        let third = two.trailing_zeros();
        let shape = u64::from(marks.trailing_zeros() | third << 8) << 16 | len as u64;
        let hash = (a ^ b.rotate_left(21) ^ c.rotate_left(42) ^ d.rotate_left(11) ^ shape)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Some(Key {
            text,
            len,
            slot: (hash >> self.shift) as usize,
        })
    }

    /// The vertex read before from the text of `key`, if its slot names one: the
    /// earlier text's bytes are compared with the key's, through its length.
    #[inline(always)]
    pub(super) fn get(&mut self, bytes: &[u8], key: &Key) -> Option<usize> {
        let [start, vertex] = *self.slots.get(key.slot)?;
        let earlier = load(bytes, start as usize)?;
        let mut same = [u8x16::default(); 4];
        for ((s, a), b) in same.iter_mut().zip(key.text).zip(earlier) {
            *s = a.cmp_eq(b);
        }
        // The key's bytes: `len` is 3 to 64.
        let wanted = u64::MAX >> (WIDTH - key.len);
        if !bits(same) & wanted != 0 {
            return None;
        }
        self.found += 1;
        #[cfg(test)]
        FOUND.with(|f| f.set(f.get() + 1));
        Some(vertex as usize)
    }

    /// Remembers that vertex `vertex` was read from the text of `key` at `start` (the
    /// one there before is forgotten). Nothing for positions or counts from 2³² up.
    #[inline(always)]
    pub(super) fn put(&mut self, key: &Key, start: usize, vertex: usize) {
        if let (Some(slot), Ok(start), Ok(vertex)) = (
            self.slots.get_mut(key.slot),
            u32::try_from(start),
            u32::try_from(vertex),
        ) {
            *slot = [start, vertex];
        }
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// `texts` one after another behind a header-like first byte, 64 bytes of `[` after
    /// them (so that every text has its 64 bytes), and where each starts.
    fn laid_out(texts: &[&str]) -> (Vec<u8>, Vec<usize>) {
        let mut bytes = b"v".to_vec();
        let mut starts = Vec::new();
        for t in texts {
            starts.push(bytes.len());
            bytes.extend_from_slice(t.as_bytes());
        }
        bytes.extend_from_slice(&[b'['; WIDTH]);
        (bytes, starts)
    }

    #[test]
    fn a_key_ends_at_the_third_close() {
        let (bytes, starts) = laid_out(&["[1,2,3][4,5,6][7,8,9]", "[1,2,3][4,5,6]"]);
        let mut t = Vertices::new(FEWEST_VERTICES);
        let k = t.key(&bytes, starts[0]).unwrap();
        assert_eq!(k.len, 21);
        // The second text's third `]` is in the padding: none there.
        assert!(t.key(&bytes, starts[1]).is_none());
        // Three triples taking more than 64 bytes: no key.
        let long = format!("[{0},{0},{0}][{0},{0},{0}][0,0,0]", "-1.23456e-07");
        let (bytes, starts) = laid_out(&[&long]);
        assert!(long.len() > WIDTH && t.key(&bytes, starts[0]).is_none());
    }

    /// A vertex is found only where its text is the same, byte for byte through its
    /// third `]`: each byte changed in turn (to bytes that keep the hash's words, a
    /// `]`, and 0x80 up) is a miss, the bytes after the text do not matter, and the
    /// same text anywhere later is found.
    #[test]
    fn only_the_same_text_is_found() {
        let text = "[-0.935,0.935,0.5][0,0,1][0.261719,0.6875,0]";
        for at in 0..text.len() {
            for byte in [b'9', b']', b'[', 0x80, 0xFF, b'0'] {
                let mut other = text.as_bytes().to_vec();
                if other[at] == byte {
                    continue;
                }
                other[at] = byte;
                let other = String::from_utf8_lossy(&other).into_owned();
                let (bytes, starts) = laid_out(&[text, "[x]", &other, text]);
                let mut t = Vertices::new(FEWEST_VERTICES);
                let k = t.key(&bytes, starts[0]).unwrap();
                assert_eq!(t.get(&bytes, &k), None);
                t.put(&k, starts[0], 7);
                if let Some(k) = t.key(&bytes, starts[2]) {
                    assert_eq!(t.get(&bytes, &k), None, "byte {at} as {byte:#x}");
                }
                let k = t.key(&bytes, starts[3]).unwrap();
                assert_eq!(t.get(&bytes, &k), Some(7));
            }
        }
        // Followed by other bytes: the same vertex.
        let (bytes, starts) = laid_out(&[text, "[1,1,1]", text, "[2,2,2]"]);
        let mut t = Vertices::new(FEWEST_VERTICES);
        let k = t.key(&bytes, starts[0]).unwrap();
        t.put(&k, starts[0], 3);
        let k = t.key(&bytes, starts[2]).unwrap();
        assert_eq!(t.get(&bytes, &k), Some(3));
    }

    /// The table stops looking once fewer than half of its lookups found a vertex, and
    /// never starts for a short text.
    #[test]
    fn a_table_that_finds_too_few_is_dropped() {
        assert!(!Vertices::new(FEWEST_VERTICES - 1).is_on());
        let texts: Vec<String> = (0..200)
            .map(|i| format!("[{i},0,0][0,1,0][0,0,0]"))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (bytes, starts) = laid_out(&refs);
        let mut t = Vertices::new(200);
        let mut looked = 0;
        for (v, &s) in starts.iter().enumerate() {
            let Some(k) = t.key(&bytes, s) else {
                break;
            };
            looked += 1;
            assert_eq!(t.get(&bytes, &k), None);
            t.put(&k, s, v);
        }
        assert_eq!(looked, CHECK_EVERY as usize);
        assert!(!t.is_on());
        // All found: it stays.
        let (bytes, starts) = laid_out(&[texts[0].as_str(); 200]);
        let mut t = Vertices::new(200);
        let k = t.key(&bytes, starts[0]).unwrap();
        t.put(&k, starts[0], 0);
        for &s in &starts[1..] {
            let k = t.key(&bytes, s).unwrap();
            assert_eq!(t.get(&bytes, &k), Some(0));
        }
        assert!(t.is_on());
    }
}
