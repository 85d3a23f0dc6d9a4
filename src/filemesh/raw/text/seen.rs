//! Triples and numbers seen before: a text mesh writes a vertex out again for every face
//! that uses it, so most of its `[a,b,c]` triples are texts the parser has already read
//! (75–83% of them in the real files; a table of half as many slots as triples, 1024 at
//! most, in sets of two, finds 74–82%). A triple of at most 32 bytes is looked up by its
//! text, compared whole (32 bytes as two vectors: [`Block`]), before it is parsed; a
//! hit gives what parsing it again would give. The triples not found repeat numbers:
//! those of at most fifteen bytes are looked up by their text too (a table of a quarter
//! as many slots as triples).
//!
//! Exact by construction: the key is the triple's bytes from `[` to the first `]`, every
//! byte of them (zeros after), and only what [`canonical_triple`] read is kept, which is
//! a function of those bytes alone as long as sixteen bytes follow each number (the
//! lookup asks for 48 after the `[`); a number's key is its bytes through the separator
//! after it, likewise.

use super::block::Block;
use super::scan::{
    canonical_number, canonical_number_at, canonical_triple, separator_marks, Canonical,
    CanonicalTriple, Numbers,
};

/// The bytes a lookup needs from the triple's `[` on: the key's 32 and sixteen after
/// the last number's start.
const NEEDED: usize = 48;
/// Slots at most: 64 KiB (a slot is 64 bytes). Repeats come soon after their first
/// (1024 slots catch 81% of the largest real file's triples, 4096 catch 82%), and the
/// smaller table is faster and steadier (its 14 pages stay in the TLB): that file
/// 0.47-0.67 ms with 4096 slots in Python processes, 0.55-0.58 ms with 1024.
const MOST_SLOTS: usize = 1024;
/// Number slots at most: 24 KiB.
const MOST_NUMBERS: usize = 1024;

/// A triple's text from its `[` through its first `]`, zeros after, and its length.
#[derive(Clone, Copy)]
pub(super) struct Key {
    text: Block,
    /// Bytes from `[` through `]`: known from the text alone, so the parse moves on
    /// without waiting for the table.
    pub(super) len: usize,
    /// The text's hash, for the lookup and, when it misses, for keeping the triple.
    hash: u64,
}

/// A number read, under its text through the `,` or `]` after it (zeros after; at most
/// sixteen bytes: a third of a real 1.01 file's numbers, most of a 1.00 file's, have
/// more than eight).
#[derive(Clone, Copy, Default, bytemuck::Zeroable)]
struct NumberSlot {
    key: [u64; 2],
    number: Canonical,
}

#[derive(Clone, Copy, Default, bytemuck::Zeroable)]
struct Slot {
    text: Block,
    triple: CanonicalTriple,
}

/// The table of triples read, in sets of two slots chosen by a hash of their text: a
/// triple read goes first in its set, the one there moves second, the second is
/// forgotten (a slot of its own per triple lost 22 of the 97 lookups that missed in a
/// real 1.01 file, and 490 of 2,600 in the largest 1.00 file, to two triples sharing
/// it).
pub(super) struct Seen {
    sets: Vec<[Slot; 2]>,
    /// 64 − log2 of the set count: a hash's top bits index the sets.
    shift: u32,
    /// The numbers of the triples read, direct-mapped by a hash of their text.
    numbers: Vec<NumberSlot>,
    /// 64 − log2 of the number slots.
    number_shift: u32,
}

impl Seen {
    /// A table for a text of about `triples` triples.
    pub(super) fn new(triples: usize) -> Seen {
        let sets = (triples / 4).clamp(8, MOST_SLOTS / 2).next_power_of_two();
        let numbers = (triples / 4).clamp(16, MOST_NUMBERS).next_power_of_two();
        Seen {
            sets: super::zeroed(sets),
            shift: 64 - sets.trailing_zeros(),
            numbers: super::zeroed(numbers),
            number_shift: 64 - numbers.trailing_zeros(),
        }
    }

    /// No table, for a parser before the face count is known or past the faces: every
    /// lookup misses, nothing is kept, nothing allocated.
    pub(super) fn none() -> Seen {
        Seen {
            sets: Vec::new(),
            shift: 63,
            numbers: Vec::new(),
            number_shift: 63,
        }
    }

    /// The key of the triple at `pos` of `bytes` (at its `[`), when it is at most 32
    /// bytes and at least [`NEEDED`] bytes are there.
    #[inline(always)]
    pub(super) fn key(bytes: &[u8], pos: usize) -> Option<Key> {
        let head: &[u8; NEEDED] = bytes.get(pos..pos.checked_add(NEEDED)?)?.try_into().ok()?;
        let text = Block::load(head.first_chunk::<32>()?);
        let len = text.first(b']')? + 1;
        let text = text.keep(len);
        Some(Key {
            text,
            len,
            hash: text.hash(),
        })
    }

    /// The set of `key`.
    #[inline(always)]
    fn set(&self, key: &Key) -> usize {
        (key.hash >> self.shift) as usize
    }

    /// What the triple of `key` read as, if it was read before (and kept).
    #[inline(always)]
    pub(super) fn get(&self, key: &Key) -> Option<&CanonicalTriple> {
        let [first, second] = self.sets.get(self.set(key))?;
        if first.text.same(&key.text) {
            return Some(&first.triple);
        }
        second.text.same(&key.text).then_some(&second.triple)
    }

    /// Keeps what the triple of `key` read as, first in its set; the one that was first
    /// moves to second, and the second is forgotten.
    #[inline(always)]
    pub(super) fn put(&mut self, key: Key, triple: CanonicalTriple) {
        let i = self.set(&key);
        if let Some([first, second]) = self.sets.get_mut(i) {
            *second = *first;
            *first = Slot {
                text: key.text,
                triple,
            };
        }
    }

    /// [`canonical_triple`] at the start of `rest`, its numbers taken from those read
    /// before where they were (a triple not seen whole often repeats numbers that were:
    /// 26 texts make the 216 numbers of the 72 triples of a real 1.01 file).
    #[inline(always)]
    pub(super) fn triple(&mut self, rest: &[u8]) -> Option<CanonicalTriple> {
        canonical_triple(rest, self)
    }
}

impl Numbers for Seen {
    /// [`canonical_number`] at the start of `rest`: from the table when its text through
    /// the separator (at most sixteen bytes) was read before, else read and kept.
    ///
    /// Exact by construction as the triples are: the key is every byte through the first
    /// `,` or `]` (so two keys are equal only for the same bytes: the separator is the
    /// first byte where texts of different lengths differ), and what `canonical_number`
    /// gives is a function of those bytes as long as sixteen bytes are there, which the
    /// lookup asks for too.
    #[inline(always)]
    fn number(&mut self, rest: &[u8]) -> Option<Canonical> {
        let Some(head) = rest.first_chunk::<16>() else {
            return canonical_number(rest);
        };
        let low = u64::from_le_bytes(*head.first_chunk::<8>()?);
        let marks = separator_marks(low);
        // The key: bytes 0 through the separator's (its top bit is bit 8 × place + 7 of
        // its word), zeros after; the separator is in the first word or the second. A
        // key of one word is hashed by itself (the second word's share is 0).
        let (key, len, hash) = if marks != 0 {
            let a = low & (u64::MAX >> (63 - marks.trailing_zeros()));
            ([a, 0], (marks.trailing_zeros() / 8) as usize, a)
        } else {
            let high = u64::from_le_bytes(*head.last_chunk::<8>()?);
            let marks = separator_marks(high);
            if marks == 0 {
                return None;
            }
            let b = high & (u64::MAX >> (63 - marks.trailing_zeros()));
            let len = 8 + (marks.trailing_zeros() / 8) as usize;
            ([low, b], len, low ^ b.rotate_left(29))
        };
        let i = (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.number_shift) as usize;
        if let Some(slot) = self.numbers.get(i) {
            if slot.key == key {
                // Its length is the key's (found above), not loaded from the slot: the
                // next number's start then does not wait on the table.
                return Some(Canonical {
                    len: len as u8,
                    ..slot.number
                });
            }
        }
        let number = canonical_number_at(rest, len)?;
        if let Some(slot) = self.numbers.get_mut(i) {
            *slot = NumberSlot { key, number };
        }
        Some(number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(bytes: &[u8]) -> Option<Key> {
        Seen::key(bytes, 0)
    }

    fn padded(text: &str) -> Vec<u8> {
        let mut v = text.as_bytes().to_vec();
        v.resize(text.len() + NEEDED, b'[');
        v
    }

    /// The key's text: its bytes, zeros to 32.
    fn text(bytes: &[u8]) -> Block {
        let mut t = [0u8; 32];
        for (t, b) in t.iter_mut().zip(bytes) {
            *t = *b;
        }
        Block::load(&t)
    }

    #[test]
    fn a_key_is_the_text_to_its_first_close_and_nothing_after() {
        let a = key(&padded("[1,2,3][4,5,6]")).unwrap();
        let b = key(&padded("[1,2,3][7,8,9]")).unwrap();
        assert!(a.text.same(&b.text) && a.len == 7);
        assert!(a.text.same(&text(b"[1,2,3]")));
        let c = key(&padded("[1,2,4][4,5,6]")).unwrap();
        assert!(!a.text.same(&c.text));
        // Every length up to 32, the close at each byte.
        for n in 0..=30 {
            let t = format!("[{}]", "7".repeat(n));
            let other = format!("[{}8]", "7".repeat(n.saturating_sub(1)));
            let k = key(&padded(&t)).unwrap();
            assert!(k.text.same(&text(t.as_bytes())), "{t}");
            assert_eq!(k.len, n + 2);
            if n > 0 {
                assert!(!k.text.same(&key(&padded(&other)).unwrap().text), "{t}");
            }
        }
        // Longer than 32 bytes, or too near the end: no key.
        assert!(key(&padded(&format!("[{}]", "7".repeat(31)))).is_none());
        assert!(key(b"[1,2,3]").is_none());
    }

    /// A byte from 0x80 up in a triple is part of its key like any other (a key with
    /// one is never kept: a triple kept was read as canonical, which takes ASCII), so
    /// the triple is not found.
    #[test]
    fn a_byte_from_0x80_up_is_never_found() {
        let t = "[-0.935,0.935,0.5]";
        let mut seen = Seen::new(100);
        let triple = CanonicalTriple {
            len: t.len() as u8,
            ..CanonicalTriple::default()
        };
        seen.put(key(&padded(t)).unwrap(), triple);
        // Every byte between the `[` and the `]`.
        for at in 1..t.len() - 1 {
            for high in [0x80u8, 0xC3, 0xDD, 0xFF] {
                let mut bytes = padded(t);
                if let Some(b) = bytes.get_mut(at) {
                    *b = high;
                }
                let k = key(&bytes).unwrap();
                assert_eq!(k.len, t.len());
                assert!(seen.get(&k).is_none(), "{at} {high:#x}");
            }
        }
        assert!(seen.get(&key(&padded(t)).unwrap()).is_some());
    }

    #[test]
    fn a_slot_gives_back_only_its_own_text() {
        let mut seen = Seen::new(100);
        let t = CanonicalTriple {
            value: [1.0, 2.0, 3.0],
            len: 7,
            ..CanonicalTriple::default()
        };
        let a = key(&padded("[1,2,3]")).unwrap();
        assert!(seen.get(&a).is_none());
        seen.put(a, t);
        assert_eq!(seen.get(&a).map(|t| t.value), Some([1.0, 2.0, 3.0]));
        let mut none = Seen::none();
        none.put(a, t);
        assert!(none.get(&a).is_none());
        // Every other text misses, whichever slot it maps to.
        for i in 0..1000 {
            let k = key(&padded(&format!("[{i},2,3]"))).unwrap();
            if i != 1 {
                assert!(seen.get(&k).is_none());
            }
        }
    }

    /// [`canonical_number`] itself, for comparing.
    struct Direct;

    impl Numbers for Direct {
        fn number(&mut self, rest: &[u8]) -> Option<Canonical> {
            canonical_number(rest)
        }
    }

    fn show(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// Triples read through the tables give what reading each afresh gives, at every
    /// place of texts made of numbers that share their first bytes, differ only after
    /// eight, end near the end of the data or are not canonical.
    #[test]
    fn numbers_from_the_table_are_the_numbers_read_afresh() {
        const TOKENS: [&str; 27] = [
            "0",
            "1",
            "-1",
            "0.5",
            "-0.5",
            "0.25",
            "0.125",
            "12.5",
            "12.50",
            "1.5e-07",
            "1.5e-007",
            "-1.5e-07",
            "0.000123",
            "123456",
            "1234567",
            "0.123456",
            "-0.123456",
            "-0.1234567",
            "1e+10",
            "1.",
            ".5",
            "0.5\0",
            "\0",
            "1e5",
            "0.5\u{e9}",
            "\u{ff}1",
            "12\u{80}",
        ];
        // A linear congruential sequence (Knuth's MMIX constants), its high bits used.
        let mut x: u64 = 1;
        let mut next = |n: usize| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((x >> 33) % n as u64) as usize
        };
        let mut compared = 0;
        let mut taken = 0;
        for _ in 0..300 {
            let triples = 1 + next(40);
            let text: Vec<u8> = (0..3 * triples)
                .flat_map(|k| {
                    let token = TOKENS.get(next(TOKENS.len())).copied().unwrap_or("0");
                    let open = if k % 3 == 0 { "[" } else { "" };
                    let close = if k % 3 == 2 { "]" } else { "," };
                    format!("{open}{token}{close}").into_bytes()
                })
                .collect();
            let mut seen = Seen::new(1 + next(200));
            for start in 0..text.len() {
                let rest = text.get(start..).unwrap_or_default();
                match rest.first() {
                    Some(b'[') => {
                        let want = canonical_triple(rest, &mut Direct);
                        let got = seen.triple(rest);
                        assert_eq!(want.is_some(), got.is_some(), "{}", show(rest));
                        if let (Some(w), Some(g)) = (want, got) {
                            assert_eq!(
                                (w.value.map(f32::to_bits), w.len, w.digits),
                                (g.value.map(f32::to_bits), g.len, g.digits),
                                "{}",
                                show(rest)
                            );
                            assert_eq!((w.exponents, w.starts), (g.exponents, g.starts));
                        }
                    }
                    Some(b',') => {
                        // Each number alone too (a triple's own checks would hide a
                        // number of the wrong length).
                        let rest = rest.get(1..).unwrap_or_default();
                        let want = canonical_number(rest);
                        let got = seen.number(rest);
                        compared += 1;
                        assert_eq!(want.is_some(), got.is_some(), "{}", show(rest));
                        if let (Some(w), Some(g)) = (want, got) {
                            taken += 1;
                            assert_eq!(
                                (w.value.to_bits(), w.len, w.significant, w.exponent),
                                (g.value.to_bits(), g.len, g.significant, g.exponent),
                                "{}",
                                show(rest)
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
        // Both outcomes were exercised.
        assert!(
            taken > 1000 && compared - taken > 1000,
            "{taken} of {compared}"
        );
    }
}
