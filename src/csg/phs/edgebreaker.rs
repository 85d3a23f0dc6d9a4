//! Edgebreaker connectivity coding of closed triangle meshes, as CSGPHS version 8 stores
//! its hulls (see `docs/csgphs-v8.md`).
//!
//! The scheme is Rossignac's Edgebreaker on a corner table ("3D compression made simple",
//! 2001): one symbol per triangle after the first, decoded by *wrap and zip*. A hull is a
//! closed, edge- and vertex-manifold, connected genus-0 triangle surface; it takes
//! `2·T − 1` symbols-worth of bits, `4·V − 9`.
//!
//! Corner conventions: triangle `t` has corners `3t, 3t+1, 3t+2`; `next`/`prev` rotate
//! within a triangle; the edge "of" corner `c` is the one opposite it, from `next(c)` to
//! `prev(c)`. Decoding starts with triangle 0 = vertices `0, 1, 2` and enters triangle 1
//! across the edge of corner 1. Each further triangle `t` is glued to the current gate
//! corner `g` as `(tip, v(prev g), v(next g))`, and its symbol says what happens next:
//!
//! | bits (read order) | symbol | tip | edge of `3t+1` | edge of `3t+2` | go on across |
//! |---|---|---|---|---|---|
//! | `0` | C | new vertex | — | boundary | edge of `3t+1` |
//! | `1 0 0` | S | from a zip | — | — | edge of `3t+1`, later edge of `3t+2` |
//! | `1 0 1` | R | from a zip | closes | — | edge of `3t+2` |
//! | `1 1 0` | L | from a zip | — | closes (zip) | edge of `3t+1` |
//! | `1 1 1` | E | from a zip | closes | closes (zip) | the last pending S branch |
//!
//! A hull ends with the E that finds no pending S branch. New vertices are numbered in the
//! order their C symbols come, after `0, 1, 2`.
//!
//! Bit packing: the bits are grouped in 32-bit little-endian words. A full word is read
//! from bit 31 down; the last, partial word of `n` bits holds them in its low `n` bits, read
//! from bit `n − 1` down. The buffer is exactly `⌈B / 32⌉` words (`4·⌈B / 32⌉` bytes) for
//! `B` bits: no further padding ([`word_bytes`]; `docs/csgphs-v8.md` gives the evidence).

use std::collections::HashMap;

use crate::error::{Error, ErrorKind, Result};

/// One Edgebreaker symbol (names as in Rossignac's paper).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    /// The tip is a new vertex.
    C,
    /// Split: two branches follow.
    S,
    /// The right edge closes; go on across the left one.
    R,
    /// The left edge closes; go on across the right one.
    L,
    /// Both edges close: the branch ends.
    E,
}

impl Symbol {
    /// The symbol's bits in read order, as a value of `len` bits (first bit highest).
    fn code(self) -> (u32, u32) {
        match self {
            Symbol::C => (0b0, 1),
            Symbol::S => (0b100, 3),
            Symbol::R => (0b101, 3),
            Symbol::L => (0b110, 3),
            Symbol::E => (0b111, 3),
        }
    }
}

/// The byte size of a buffer of `bit_count` bits as Roblox writes it: whole 32-bit words,
/// `4·⌈bit_count / 32⌉`.
pub fn word_bytes(bit_count: u32) -> u64 {
    u64::from(bit_count).div_ceil(32) * 4
}

/// Reads Roblox-packed bits (see the module docs).
#[derive(Clone, Debug)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    bit_count: u64,
    pos: u64,
    /// The current word, shifted so that its next bit is bit 31.
    word: u32,
}

impl<'a> BitReader<'a> {
    /// A reader of `bit_count` bits from `bytes`; fails if the bytes are fewer than
    /// [`word_bytes`]. Bytes after those words are not read.
    pub fn new(bytes: &'a [u8], bit_count: u32) -> Result<Self> {
        let need = word_bytes(bit_count);
        if (bytes.len() as u64) < need {
            return Err(Error::new(
                "CSGPHS v8 connectivity bits",
                ErrorKind::Inconsistent(format!(
                    "{bit_count} bits need {need} bytes, the buffer has {}",
                    bytes.len()
                )),
            ));
        }
        Ok(BitReader {
            bytes,
            bit_count: u64::from(bit_count),
            pos: 0,
            word: 0,
        })
    }

    /// Bits read so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Bits left.
    pub fn remaining(&self) -> u64 {
        self.bit_count - self.pos
    }

    fn bit(&mut self) -> Result<u32> {
        if self.pos >= self.bit_count {
            return Err(Error::new(
                "CSGPHS v8 connectivity bits",
                ErrorKind::Inconsistent(format!(
                    "the symbols need more than the {} bits stored",
                    self.bit_count
                )),
            ));
        }
        if self.pos.is_multiple_of(32) {
            let at = (self.pos / 8) as usize;
            let w = self
                .bytes
                .get(at..at + 4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map_or(0, u32::from_le_bytes);
            // A partial last word holds its n bits low: move them to the top.
            let n = (self.bit_count - self.pos).min(32) as u32;
            self.word = w << (32 - n);
        }
        let b = self.word >> 31;
        self.word <<= 1;
        self.pos += 1;
        Ok(b)
    }

    /// The next symbol.
    pub fn symbol(&mut self) -> Result<Symbol> {
        if self.bit()? == 0 {
            return Ok(Symbol::C);
        }
        Ok(match (self.bit()?, self.bit()?) {
            (0, 0) => Symbol::S,
            (0, _) => Symbol::R,
            (_, 0) => Symbol::L,
            _ => Symbol::E,
        })
    }
}

/// Packs bits the way [`BitReader`] reads them.
#[derive(Clone, Debug, Default)]
pub struct BitWriter {
    words: Vec<u32>,
    acc: u32,
    in_acc: u32,
    bit_count: u32,
}

impl BitWriter {
    /// Appends one symbol.
    pub fn symbol(&mut self, s: Symbol) {
        let (value, len) = s.code();
        for i in (0..len).rev() {
            self.acc = (self.acc << 1) | ((value >> i) & 1);
            self.in_acc += 1;
            self.bit_count += 1;
            if self.in_acc == 32 {
                self.words.push(self.acc);
                self.acc = 0;
                self.in_acc = 0;
            }
        }
    }

    /// The bit count and the bytes: the whole words, the last one partial when the bit
    /// count is not a multiple of 32 ([`word_bytes`] bytes in all).
    pub fn finish(mut self) -> (u32, Vec<u8>) {
        if self.in_acc > 0 {
            self.words.push(self.acc);
        }
        let bytes = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        (self.bit_count, bytes)
    }
}

/// A decoded hull: its vertex count and triangles (indices local to the hull).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodedHull {
    /// Number of vertices (`3 +` the number of C symbols).
    pub vertices: u32,
    /// Triangles in decoding order, each `(tip, …)` as glued.
    pub triangles: Vec<[u32; 3]>,
}

// The state of one corner's opposite: a corner number, or one of these markers.
/// Not known yet.
const UNSET: u32 = u32::MAX;
/// On the boundary of the part decoded so far.
const BOUNDARY: u32 = u32::MAX - 1;
/// Closed by an L, R or E symbol; waiting to be zipped.
const PENDING: u32 = u32::MAX - 2;
/// Corners below this are real corners.
const FIRST_MARKER: u32 = PENDING;

const NO_VERTEX: u32 = u32::MAX;

fn next(c: usize) -> usize {
    c - c % 3 + (c + 1) % 3
}

fn prev(c: usize) -> usize {
    c - c % 3 + (c + 2) % 3
}

/// A corner table under construction (decoder side). Out-of-range corners read as
/// `UNSET`/`NO_VERTEX` and are never written, so malformed input cannot panic.
#[derive(Debug, Default)]
struct Table {
    opp: Vec<u32>,
    vert: Vec<u32>,
}

impl Table {
    fn o(&self, c: usize) -> u32 {
        self.opp.get(c).copied().unwrap_or(UNSET)
    }
    /// The opposite corner, if `c` is glued.
    fn glued(&self, c: usize) -> Option<usize> {
        let o = self.o(c);
        (o < FIRST_MARKER).then_some(o as usize)
    }
    fn set_o(&mut self, c: usize, o: u32) {
        if let Some(x) = self.opp.get_mut(c) {
            *x = o;
        }
    }
    fn v(&self, c: usize) -> u32 {
        self.vert.get(c).copied().unwrap_or(NO_VERTEX)
    }
    fn set_v(&mut self, c: usize, v: u32) {
        if let Some(x) = self.vert.get_mut(c) {
            *x = v;
        }
    }

    /// Zips the boundary shut from the pending corner `c` on (Rossignac's `zip`). Every
    /// walk is bounded by the corner count, so a malformed stream cannot loop forever.
    fn zip(&mut self, mut c: usize) -> Result<()> {
        let limit = self.opp.len() + 3;
        let stuck = || {
            Error::new(
                "CSGPHS v8 connectivity",
                ErrorKind::Inconsistent("the symbols do not describe a closed surface".into()),
            )
        };
        while self.o(c) == PENDING {
            let mut b = next(c);
            let mut steps = 0;
            while let Some(x) = self.glued(b) {
                b = next(x);
                steps += 1;
                if steps > limit {
                    return Err(stuck());
                }
            }
            if self.o(b) != BOUNDARY {
                return Ok(());
            }
            self.set_o(c, b as u32);
            self.set_o(b, c as u32);
            let donor = self.v(prev(b));
            let mut a = prev(c);
            self.set_v(prev(a), donor);
            steps = 0;
            while let Some(x) = self.glued(a) {
                if a == b {
                    break;
                }
                a = prev(x);
                self.set_v(prev(a), donor);
                steps += 1;
                if steps > limit {
                    return Err(stuck());
                }
            }
            c = prev(c);
            steps = 0;
            while let Some(x) = self.glued(c) {
                if c == b {
                    break;
                }
                c = prev(x);
                steps += 1;
                if steps > limit {
                    return Err(stuck());
                }
            }
        }
        Ok(())
    }
}

/// Decodes hulls one after another, reusing its scratch memory.
#[derive(Debug, Default)]
pub struct HullDecoder {
    table: Table,
    branches: Vec<usize>,
}

impl HullDecoder {
    /// Decodes the next hull from `bits`. `max_triangles` bounds the work (the caller
    /// passes what is left of the stored triangle count).
    pub fn decode(&mut self, bits: &mut BitReader<'_>, max_triangles: u64) -> Result<CodedHull> {
        // Every triangle after the first takes at least one bit.
        let cap = max_triangles
            .min(bits.remaining() + 1)
            .min(u64::from(FIRST_MARKER / 3));
        let too_many = |n: u64| {
            Error::new(
                "CSGPHS v8 connectivity",
                ErrorKind::Inconsistent(format!(
                    "a hull needs more than {n} triangles (the stored count or the bits left)"
                )),
            )
        };
        if cap < 4 {
            return Err(too_many(cap));
        }
        let t = &mut self.table;
        t.opp.clear();
        t.vert.clear();
        t.opp.extend([BOUNDARY, UNSET, BOUNDARY]);
        t.vert.extend([0, 1, 2]);
        self.branches.clear();
        let mut vertices = 3u32;
        let mut gate = 1usize;
        loop {
            let tri = t.vert.len() / 3;
            if tri as u64 >= cap {
                return Err(too_many(cap));
            }
            let base = 3 * tri;
            t.opp.extend([gate as u32, UNSET, UNSET]);
            let (vp, vn) = (t.v(prev(gate)), t.v(next(gate)));
            t.vert.extend([NO_VERTEX, vp, vn]);
            t.set_o(gate, base as u32);
            let (right, left) = (base + 1, base + 2);
            match bits.symbol()? {
                Symbol::C => {
                    t.set_o(left, BOUNDARY);
                    t.set_v(base, vertices);
                    vertices += 1;
                    gate = right;
                }
                Symbol::S => {
                    self.branches.push(left);
                    gate = right;
                }
                Symbol::R => {
                    t.set_o(right, PENDING);
                    gate = left;
                }
                Symbol::L => {
                    t.set_o(left, PENDING);
                    t.zip(left)?;
                    gate = right;
                }
                Symbol::E => {
                    t.set_o(right, PENDING);
                    t.set_o(left, PENDING);
                    t.zip(left)?;
                    match self.branches.pop() {
                        Some(g) => gate = g,
                        None => break,
                    }
                }
            }
        }
        let closed = t.opp.iter().all(|&o| o < FIRST_MARKER);
        let named = t.vert.iter().all(|&v| v < vertices);
        if !closed || !named {
            return Err(Error::new(
                "CSGPHS v8 connectivity",
                ErrorKind::Inconsistent("the symbols do not describe a closed surface".into()),
            ));
        }
        let triangles = t
            .vert
            .chunks_exact(3)
            .map(|c| match *c {
                [a, b, c] => [a, b, c],
                _ => [0; 3],
            })
            .collect();
        Ok(CodedHull {
            vertices,
            triangles,
        })
    }
}

/// Decodes one hull from `bits` (see [`HullDecoder::decode`]).
pub fn decode_hull(bits: &mut BitReader<'_>, max_triangles: u64) -> Result<CodedHull> {
    HullDecoder::default().decode(bits, max_triangles)
}

/// Why a hull cannot be Edgebreaker-coded (it then goes to the raw hull block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotCodable {
    /// Fewer than 4 triangles.
    TooSmall,
    /// A triangle repeats a vertex or names one out of range.
    BadTriangle,
    /// An edge is used twice in the same direction, or has no partner: not a closed
    /// oriented 2-manifold.
    NotClosedManifold,
    /// A vertex no triangle uses, a non-manifold vertex, several pieces or a handle.
    NotSimpleSphere,
}

/// An encoded hull: the symbols, and the hull renumbered as the decoder will rebuild it.
#[derive(Clone, Debug, PartialEq)]
pub struct Encoded {
    /// One symbol per triangle after the first.
    pub symbols: Vec<Symbol>,
    /// `order[new] = old` vertex index.
    pub vertex_order: Vec<u32>,
    /// The triangles, renumbered, in decoding order.
    pub triangles: Vec<[u32; 3]>,
}

/// Encodes a hull with `vertex_count` vertices, starting at `triangles[0]` as given.
/// The result is checked by decoding it again.
// Corners index `vert`/`opp`, which have exactly 3 entries per triangle, and vertex ids
// were checked to be below `vertex_count` first.
#[allow(clippy::indexing_slicing)]
pub fn encode_hull(
    vertex_count: usize,
    triangles: &[[u32; 3]],
) -> std::result::Result<Encoded, NotCodable> {
    let n = triangles.len();
    if n < 4 {
        return Err(NotCodable::TooSmall);
    }
    if triangles.iter().any(|&[a, b, c]| {
        a == b || b == c || a == c || [a, b, c].iter().any(|&v| v as usize >= vertex_count)
    }) {
        return Err(NotCodable::BadTriangle);
    }
    // Genus 0, closed: V − E + F = 2 with E = 3F/2.
    if 2 * vertex_count != n + 4 {
        return Err(NotCodable::NotSimpleSphere);
    }
    let vert: Vec<u32> = triangles.iter().flatten().copied().collect();
    let mut edges: HashMap<(u32, u32), usize> = HashMap::with_capacity(3 * n);
    for c in 0..3 * n {
        if edges.insert((vert[next(c)], vert[prev(c)]), c).is_some() {
            return Err(NotCodable::NotClosedManifold);
        }
    }
    let mut opp = vec![0usize; 3 * n];
    for c in 0..3 * n {
        match edges.get(&(vert[prev(c)], vert[next(c)])) {
            Some(&d) => opp[c] = d,
            None => return Err(NotCodable::NotClosedManifold),
        }
    }
    let mut seen_vertex = vec![false; vertex_count];
    let mut seen_tri = vec![false; n];
    let mut order: Vec<u32> = Vec::with_capacity(vertex_count);
    let mut out: Vec<[u32; 3]> = Vec::with_capacity(n);
    let mut symbols = Vec::with_capacity(n - 1);
    for &v in &vert[..3] {
        seen_vertex[v as usize] = true;
        order.push(v);
    }
    seen_tri[0] = true;
    out.push([vert[0], vert[1], vert[2]]);
    let mut branches: Vec<usize> = Vec::new();
    let mut c = opp[1];
    loop {
        let tri = c / 3;
        if seen_tri[tri] {
            return Err(NotCodable::NotSimpleSphere);
        }
        seen_tri[tri] = true;
        out.push([vert[c], vert[next(c)], vert[prev(c)]]);
        let right = opp[next(c)];
        let left = opp[prev(c)];
        if !seen_vertex[vert[c] as usize] {
            seen_vertex[vert[c] as usize] = true;
            order.push(vert[c]);
            symbols.push(Symbol::C);
            c = right;
            continue;
        }
        match (seen_tri[right / 3], seen_tri[left / 3]) {
            (true, true) => {
                symbols.push(Symbol::E);
                match branches.pop() {
                    Some(g) => c = g,
                    None => break,
                }
            }
            (true, false) => {
                symbols.push(Symbol::R);
                c = left;
            }
            (false, true) => {
                symbols.push(Symbol::L);
                c = right;
            }
            (false, false) => {
                symbols.push(Symbol::S);
                branches.push(left);
                c = right;
            }
        }
    }
    if out.len() != n || order.len() != vertex_count {
        return Err(NotCodable::NotSimpleSphere);
    }
    let mut new_id = vec![0u32; vertex_count];
    for (i, &old) in order.iter().enumerate() {
        new_id[old as usize] = i as u32;
    }
    let triangles: Vec<[u32; 3]> = out.iter().map(|t| t.map(|v| new_id[v as usize])).collect();
    // Check by decoding: a vertex whose fan is split (non-manifold), or a handle, gives
    // symbols the decoder zips differently.
    let mut w = BitWriter::default();
    symbols.iter().for_each(|&s| w.symbol(s));
    let (bit_count, bytes) = w.finish();
    let decoded = BitReader::new(&bytes, bit_count)
        .and_then(|mut r| decode_hull(&mut r, n as u64))
        .map_err(|_| NotCodable::NotSimpleSphere)?;
    if decoded.vertices as usize != vertex_count || decoded.triangles != triangles {
        return Err(NotCodable::NotSimpleSphere);
    }
    Ok(Encoded {
        symbols,
        vertex_order: order,
        triangles,
    })
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// A tetrahedron: 4 triangles, outward.
    const TETRA: [[u32; 3]; 4] = [[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]];

    #[test]
    fn bit_packing_matches_the_documented_order() {
        let mut w = BitWriter::default();
        // 11 C's, 7 E's = 11 + 21 = 32 bits, then C E: 4 bits in a partial word.
        (0..11).for_each(|_| w.symbol(Symbol::C));
        (0..7).for_each(|_| w.symbol(Symbol::E));
        w.symbol(Symbol::C);
        w.symbol(Symbol::E);
        let (n, bytes) = w.finish();
        assert_eq!(n, 36);
        assert_eq!(bytes.len(), 8);
        assert_eq!(&bytes[..4], &0x001f_ffffu32.to_le_bytes());
        // Partial word: bits 0 1 1 1 in its low 4 bits, first bit highest.
        assert_eq!(&bytes[4..], &0b0111u32.to_le_bytes());
        let mut r = BitReader::new(&bytes, n).unwrap();
        let got: Vec<Symbol> = (0..20).map(|_| r.symbol().unwrap()).collect();
        assert_eq!(got.iter().filter(|&&s| s == Symbol::C).count(), 12);
        assert_eq!(r.remaining(), 0);
        assert!(r.symbol().is_err());
    }

    /// Whole words and nothing more: 1, 2 and 3 words for 7, 33 and 65 bits, exactly one
    /// word for 32 bits, none for 0.
    #[test]
    fn buffer_is_whole_words_without_further_padding() {
        for (bits, words) in [(0u32, 0usize), (7, 1), (32, 1), (33, 2), (64, 2), (65, 3)] {
            let mut w = BitWriter::default();
            // C is one bit; E three: make `bits` bits from them.
            (0..bits / 3).for_each(|_| w.symbol(Symbol::E));
            (0..bits % 3).for_each(|_| w.symbol(Symbol::C));
            let (n, bytes) = w.finish();
            assert_eq!(n, bits);
            assert_eq!(bytes.len(), 4 * words, "{bits} bits");
            assert_eq!(word_bytes(bits), 4 * words as u64);
            // The reader wants those words, and no more.
            assert!(BitReader::new(&bytes, bits).is_ok());
            if words > 0 {
                assert!(BitReader::new(&bytes[..bytes.len() - 1], bits).is_err());
            }
        }
    }

    #[test]
    fn tetrahedron_round_trips() {
        let e = encode_hull(4, &TETRA).unwrap();
        // 4V − 9 = 7 bits: one C and two 3-bit symbols.
        assert_eq!(e.symbols.len(), 3);
        assert_eq!(e.symbols.iter().filter(|&&s| s == Symbol::C).count(), 1);
        assert_eq!(e.symbols.last(), Some(&Symbol::E));
    }

    #[test]
    fn open_and_non_manifold_hulls_are_refused() {
        assert_eq!(encode_hull(4, &TETRA[..3]), Err(NotCodable::TooSmall));
        let mut twice = TETRA.to_vec();
        twice.extend_from_slice(&TETRA);
        assert_eq!(encode_hull(4, &twice), Err(NotCodable::NotSimpleSphere));
        let flipped = [[0, 1, 2], [0, 1, 3], [1, 3, 2], [2, 3, 0]];
        assert_eq!(encode_hull(4, &flipped), Err(NotCodable::NotClosedManifold));
        assert_eq!(
            encode_hull(4, &[[0, 0, 1], [0, 3, 1], [1, 3, 2], [2, 3, 0]]),
            Err(NotCodable::BadTriangle)
        );
    }

    #[test]
    fn garbage_never_panics_or_loops() {
        for seed in 0u32..2000 {
            let bytes: Vec<u8> = (0..16u32)
                .map(|i| (seed.wrapping_mul(2_654_435_761).rotate_left(i) >> 3) as u8)
                .collect();
            let mut r = BitReader::new(&bytes, 128).unwrap();
            let _ = decode_hull(&mut r, 1000);
        }
    }
}
