//! A streaming LZ4 block decoder: the block's bytes come out through [`std::io::Read`]
//! a window at a time, so a payload can be walked without ever being held whole.
//!
//! An LZ4 match reaches back at most 65,535 bytes, so the decoder keeps the last 64 KiB
//! it produced (the history) and decodes at most 64 KiB ahead of the reader: whatever the
//! block's size, it holds under 200 KiB. It accepts exactly the blocks that
//! [`decoded_len`](super::decoded_len) accepts and gives the bytes `lz4_flex` gives (a
//! test compares both on every ms14 block of the fixtures and the corpus, and on random
//! and damaged blocks).
//!
//! Seeking only moves the reading position: a read after it decodes forward to it
//! (the bytes in between are dropped) or steps back within what is still held. Asking
//! for the end ([`std::io::SeekFrom::End`]) answers with the declared size without
//! decoding, which is how a parser learns how many bytes remain.

use std::io::{self, Read, Seek, SeekFrom};

use super::MIN_MATCH;

/// Bytes of history kept behind the reader: at least the farthest match (65,535).
const HISTORY: usize = 1 << 16;
/// Bytes decoded ahead at a time.
const CHUNK: usize = 1 << 16;

/// Where the decoder is in the block's sequences.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// At a token (or at the end of the block).
    Token,
    /// In a literal run: this many bytes left, then the match with this 4-bit code.
    Literals { left: usize, code: u8 },
    /// In a match: this far back, this many bytes left.
    Match { offset: usize, left: usize },
    /// The last sequence is done.
    Done,
}

/// Decodes a raw LZ4 block of a known decoded size as a byte stream.
///
/// Errors (as [`io::ErrorKind::InvalidData`], naming the offset in the block) for a
/// length or literal run past the block's end, a zero offset, an offset reaching before
/// the first byte, a block that ends after a match, and output longer or shorter than
/// the declared size.
#[derive(Debug)]
pub struct Decoder<'a> {
    /// The compressed block.
    src: &'a [u8],
    /// Next byte of `src` to decode.
    at: usize,
    /// The declared decoded size.
    size: u64,
    /// The last bytes decoded: history, then what the reader has not taken yet.
    window: Vec<u8>,
    /// Index in `window` of the first byte the reader has not taken.
    unread: usize,
    /// Bytes decoded so far (the stream position of the end of `window`).
    made: u64,
    /// The reader's position, which a seek may have moved away from `unread`.
    pos: u64,
    step: Step,
}

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("LZ4 block: {msg}"))
}

impl<'a> Decoder<'a> {
    /// A decoder for the block `src`, which must decode to `size` bytes.
    pub fn new(src: &'a [u8], size: u64) -> Decoder<'a> {
        Decoder {
            src,
            at: 0,
            size,
            window: Vec::new(),
            unread: 0,
            made: 0,
            pos: 0,
            step: Step::Token,
        }
    }

    /// The declared decoded size.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The stream position of the first byte not yet taken from `window`.
    fn taken(&self) -> u64 {
        self.made - (self.window.len() - self.unread) as u64
    }

    /// A byte of the block, or an error naming what was being read.
    fn byte(&mut self, what: &str) -> io::Result<u8> {
        let b = self.src.get(self.at).copied().ok_or_else(|| {
            bad(format!(
                "{what} runs past the end of the block ({} bytes)",
                self.src.len()
            ))
        })?;
        self.at += 1;
        Ok(b)
    }

    /// A length: its 4-bit start, plus every continuation byte (255 means another).
    fn length(&mut self, start: u8, what: &str) -> io::Result<usize> {
        let mut n = usize::from(start);
        if start == 15 {
            loop {
                let at = self.at;
                let b = self.byte(what)?;
                n = n
                    .checked_add(usize::from(b))
                    .ok_or_else(|| bad(format!("{what} at byte {at} overflows")))?;
                if b != 255 {
                    break;
                }
            }
        }
        Ok(n)
    }

    /// Reads the token and literal length at `at`, or finishes the block.
    fn token(&mut self) -> io::Result<Step> {
        if self.at == self.src.len() {
            if self.src.is_empty() {
                return Ok(Step::Done);
            }
            return Err(bad(format!(
                "ends after a match at byte {} (the last sequence must be literals only)",
                self.at
            )));
        }
        let token = self.byte("token")?;
        let start = self.at;
        let left = self.length(token >> 4, "literal length")?;
        if left > self.src.len() - self.at {
            return Err(bad(format!(
                "a literal run of {left} bytes at byte {start} runs past the end of the \
                 block ({} bytes)",
                self.src.len()
            )));
        }
        Ok(Step::Literals {
            left,
            code: token & 15,
        })
    }

    /// Reads the offset and match length after a literal run, or finishes the block
    /// when the run was its last.
    fn matched(&mut self, code: u8) -> io::Result<Step> {
        if self.at == self.src.len() {
            return Ok(Step::Done);
        }
        let at = self.at;
        let offset = usize::from(u16::from_le_bytes([
            self.byte("match offset")?,
            self.byte("match offset")?,
        ]));
        if offset == 0 {
            return Err(bad(format!("zero match offset at byte {at}")));
        }
        if offset as u64 > self.made {
            return Err(bad(format!(
                "match offset {offset} at byte {at} reaches before the start ({} bytes \
                 decoded)",
                self.made
            )));
        }
        let left = self
            .length(code, "match length")?
            .checked_add(MIN_MATCH)
            .ok_or_else(|| bad(format!("match length at byte {at} overflows")))?;
        Ok(Step::Match { offset, left })
    }

    /// Counts `n` more decoded bytes, which must stay within the declared size.
    fn produce(&mut self, n: usize) -> io::Result<()> {
        self.made += n as u64;
        if self.made > self.size {
            return Err(bad(format!(
                "decodes to more than the {} bytes the header says",
                self.size
            )));
        }
        Ok(())
    }

    /// Decodes up to [`CHUNK`] more bytes into the window (fewer at the block's end),
    /// first dropping history beyond [`HISTORY`] bytes before the reader.
    fn fill(&mut self) -> io::Result<()> {
        if self.unread > HISTORY {
            let cut = self.unread - HISTORY;
            self.window.drain(..cut);
            self.unread -= cut;
        }
        let goal = self.window.len() + CHUNK;
        while self.window.len() < goal {
            let room = goal - self.window.len();
            self.step = match self.step {
                Step::Done => {
                    if self.made != self.size {
                        return Err(bad(format!(
                            "decodes to {} bytes, the header says {}",
                            self.made, self.size
                        )));
                    }
                    return Ok(());
                }
                Step::Token => self.token()?,
                Step::Literals { left, code } => {
                    let k = left.min(room);
                    // The whole run was checked to lie inside the block.
                    let bytes = self.src.get(self.at..self.at + k).unwrap_or_default();
                    self.window.extend_from_slice(bytes);
                    self.at += k;
                    self.produce(k)?;
                    if k < left {
                        Step::Literals {
                            left: left - k,
                            code,
                        }
                    } else {
                        self.matched(code)?
                    }
                }
                Step::Match { offset, left } => {
                    let k = left.min(room);
                    self.produce(k)?;
                    self.copy_match(offset, k);
                    if k < left {
                        Step::Match {
                            offset,
                            left: left - k,
                        }
                    } else {
                        Step::Token
                    }
                }
            };
        }
        Ok(())
    }

    /// Appends `n` bytes of a match `offset` back (checked to lie within what was
    /// decoded, and so within the window). The copy source doubles after each pass: once
    /// `d` bytes (a multiple of `offset`) are copied, the last `2d` repeat with that
    /// period, up to the history kept.
    fn copy_match(&mut self, offset: usize, mut n: usize) {
        let mut d = offset;
        while n > 0 {
            let start = self.window.len().saturating_sub(d);
            let k = n.min(self.window.len() - start);
            if k == 0 {
                break;
            }
            self.window.extend_from_within(start..start + k);
            n -= k;
            if 2 * d <= HISTORY {
                d *= 2;
            }
        }
    }
}

impl Read for Decoder<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Bring the window to the reader's position: back within what is held, or
        // forward by decoding.
        let taken = self.taken();
        if self.pos < taken {
            let back = taken - self.pos;
            if back > self.unread as u64 {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    format!(
                        "LZ4 stream: cannot seek back to {} (history from {})",
                        self.pos,
                        taken - self.unread as u64
                    ),
                ));
            }
            self.unread -= back as usize;
        }
        while self.pos > self.taken() {
            if self.unread == self.window.len() {
                let before = self.made;
                self.fill()?;
                if self.made == before {
                    return Ok(0);
                }
            }
            let skip = (self.pos - self.taken()).min((self.window.len() - self.unread) as u64);
            self.unread += skip as usize;
        }
        if self.unread == self.window.len() {
            self.fill()?;
        }
        let ahead = self.window.get(self.unread..).unwrap_or_default();
        let n = ahead.len().min(buf.len());
        if let (Some(to), Some(from)) = (buf.get_mut(..n), ahead.get(..n)) {
            to.copy_from_slice(from);
        }
        self.unread += n;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Decoder<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.size.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "LZ4 stream: seek before the start",
            )
        })?;
        Ok(self.pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// All of a stream, read `piece` bytes at a time.
    fn drain(mut d: Decoder<'_>, piece: usize) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = vec![0; piece];
        loop {
            match d.read(&mut buf)? {
                0 => return Ok(out),
                n => out.extend_from_slice(buf.get(..n).unwrap_or_default()),
            }
        }
    }

    /// The decoder's verdict and bytes against `lz4_flex` gated by `decoded_len` (what
    /// `Lz4Block::decompress` does), for a block and a declared size.
    fn agrees(block: &[u8], size: u64) -> std::result::Result<(), TestCaseError> {
        let whole = match super::super::decoded_len(block) {
            Some(n) if n == size => lz4_flex::block::decompress(block, size as usize).ok(),
            _ => None,
        };
        for piece in [1, 7, 4096, 1 << 20] {
            let streamed = drain(Decoder::new(block, size), piece).ok();
            prop_assert_eq!(
                streamed.as_deref(),
                whole.as_deref(),
                "{} bytes read {} at a time",
                size,
                piece
            );
        }
        Ok(())
    }

    fn xorshift(seed: u32) -> impl FnMut() -> u8 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        }
    }

    #[test]
    fn fixed_inputs_decode_back() {
        let mut random = xorshift(0x9e37_79b9);
        let noise: Vec<u8> = (0..300_000).map(|_| random()).collect();
        let mut far = noise.clone();
        far.extend_from_within(1000..200_000);
        let pattern: Vec<u8> = (0..500_000u32)
            .map(|i| ((i % 251) ^ (i / 977)) as u8)
            .collect();
        for data in [
            Vec::new(),
            b"a".to_vec(),
            b"abcabcabcabcabcabcabcabcabcabc".to_vec(),
            vec![0u8; 1_000_000],
            noise,
            far,
            pattern,
        ] {
            for block in [super::super::compress(&data), lz4_flex::compress(&data)] {
                agrees(&block, data.len() as u64).unwrap();
                let back = drain(Decoder::new(&block, data.len() as u64), 1000).unwrap();
                assert!(back == data, "{} bytes", data.len());
            }
        }
    }

    #[test]
    fn malformed_blocks_are_errors() {
        let ok = super::super::compress(b"abcdabcdabcdabcdabcdabcdabcdabcd");
        let cases: [(&[u8], u64); 9] = [
            // A match before any output; a zero offset.
            (&[0x04, 0x01, 0x00], 8),
            (&[0x14, b'a', 0x00, 0x00], 10),
            // An offset beyond what was decoded.
            (&[0x24, b'a', b'b', 0x03, 0x00, 0x00], 10),
            // A literal run past the end; a length continuation past the end.
            (&[0x50, b'a', b'b'], 5),
            (&[0xf0, 0xff], 400),
            // Ends after a match.
            (&[0x14, b'a', 0x01, 0x00], 5),
            // The right block with the wrong size: longer, shorter.
            (&ok, 31),
            (&ok, 33),
            // Truncated.
            (ok.get(..ok.len() - 1).unwrap_or_default(), 32),
        ];
        for (block, size) in cases {
            assert!(drain(Decoder::new(block, size), 64).is_err(), "{block:?}");
            agrees(block, size).unwrap();
        }
        agrees(&ok, 32).unwrap();
    }

    /// Seeking: the end is known without decoding, forward skips, back within the
    /// history, not beyond it.
    #[test]
    fn seeks() {
        let data: Vec<u8> = (0..400_000u32).map(|i| (i * 7 % 253) as u8).collect();
        let block = super::super::compress(&data);
        let mut d = Decoder::new(&block, data.len() as u64);
        assert_eq!(d.seek(SeekFrom::End(0)).unwrap(), 400_000);
        d.seek(SeekFrom::Start(250_000)).unwrap();
        let mut b = [0u8; 10];
        d.read_exact(&mut b).unwrap();
        assert_eq!(b, data.get(250_000..250_010).unwrap());
        d.seek(SeekFrom::Current(-1000)).unwrap();
        d.read_exact(&mut b).unwrap();
        assert_eq!(b, data.get(249_010..249_020).unwrap());
        d.seek(SeekFrom::Start(10)).unwrap();
        assert!(d.read(&mut b).is_err());
        d.seek(SeekFrom::Start(400_000)).unwrap();
        assert_eq!(d.read(&mut b).unwrap(), 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Random and compressible inputs through our compressor and lz4_flex's.
        #[test]
        fn streams_what_decompress_gives(data in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..3000),
            proptest::collection::vec(0u8..3, 0..200_000),
        ]) {
            agrees(&super::super::compress(&data), data.len() as u64)?;
            agrees(&lz4_flex::compress(&data), data.len() as u64)?;
        }

        /// Damaged blocks: a byte changed, the block cut, the size off by a little.
        #[test]
        fn damaged_blocks_agree(
            data in proptest::collection::vec(0u8..4, 1..20_000),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            cut in any::<prop::sample::Index>(),
            delta in -3i64..4,
        ) {
            let block = super::super::compress(&data);
            let n = data.len() as u64;
            let mut flipped = block.clone();
            if let Some(b) = flipped.get_mut(at.index(block.len())) {
                *b = byte;
            }
            agrees(&flipped, n)?;
            agrees(block.get(..cut.index(block.len())).unwrap_or_default(), n)?;
            agrees(&block, n.saturating_add_signed(delta))?;
        }
    }
}
