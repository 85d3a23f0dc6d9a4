//! LZ4 block compression as UNIGINE does it, so a re-encoded ms14 block gives UNIGINE's
//! bytes (`docs/unigine-ms14.md`, "LZ4").
//!
//! UNIGINE runs LZ4's greedy "fast" loop (acceleration 1) with a 5-byte hash into an
//! 8192-entry table (liblz4 built with `LZ4_MEMORY_USAGE=15`), on a fresh stream: the
//! table starts zeroed, so position 0 is every slot's first candidate. Stock settings
//! (4-byte hash, or a 4096-entry table) pick other matches on larger blocks; `lz4_flex`
//! cannot be configured to match, so this module carries its own compressor.
//! Decompression is `lz4_flex`'s; [`Decoder`] decodes a block as a stream in 64 KiB
//! steps, for walking a big payload without holding it (`meshcodec info`/`verify`).
//!
//! The compressor is safe code, level with or slightly ahead of `lz4_flex`'s (unsafe)
//! encoder on a mesh payload (1.006–1.043× as the best of 40 interleaved runs, medians of
//! the pairs' ratios 0.984–1.026× on a loaded machine; 0.96–0.97× before the changes
//! listed in the last two paragraphs below) while doing liblz4's
//! extra work (slower skipping, a probe for an immediate match after each match, a 32 KiB
//! table, and the more matches a 5-byte hash finds): each probe takes one branch (window
//! and 4-byte compare joined into one word, the candidate read without a bounds check), and
//! the probe after a match does not read a candidate beyond the window (on a large input, a
//! cache miss); that probe is made before the match's sequence is written, so its loads
//! overlap the writing. Words are read as `u64`/`u32` from slices (one bounds check each,
//! and only where the algorithm keeps them inside the input), matches are extended 8 bytes
//! at a time over two pre-sliced windows (XOR, trailing zeros; the first word inline, the
//! rest out of line), the search loop makes two probes per turn, the hash table is a
//! fixed-size array of `u32` positions on the stack indexed through a mask, and the block
//! is written through a cursor into a buffer of LZ4's
//! worst-case size (a sequence with fewer than 15 literals and a short match as one 19-byte
//! window, other short literal runs copied 16 bytes at a time, longer sequences out of
//! line, 15 to 32 literals there as one 36-byte window). Its output is the same as the
//! plain byte loop it replaced (kept as the tests' reference, `lz4/reference.rs`).
//!
//! [`compress_in_place`] runs the same loop with the input in the output's own buffer,
//! behind a margin ([`in_place_margin`]) the block can never catch up with, so a big
//! payload and its block are not held at once (the ms14 writer uses it). The loop is
//! generic over where it reads its input, looked up again after each write; for a
//! separate slice ([`compress`]) that lookup is free.
//!
//! What is left is the settings, not the code: with a 4096-entry table (lz4_flex's
//! size, not UNIGINE's) this code finds lz4_flex's sequences and is 4% faster than it
//! in thread CPU time. UNIGINE's 8192 entries make 5% more sequences on the payload
//! (4.28 million against 4.05 million, mostly 5 to 8 bytes long) and a 32 KiB table
//! that shares the L1 cache with the candidates it points to (a 64 KiB table costs
//! another 6%). Tried and slower, each measured against this code or the one before: a
//! branch-free backward extension (a word compare: the match's start then waits on a
//! load, about 13%), the match end taken from the probe's 8-byte candidate read (its
//! branch is unpredictable, 5%), the bytes 4–12 of the candidate read in the probe
//! (7%), positions split into a 16-bit and an 8-bit table (24 KiB; 50% as tried, the
//! extra work per probe), an 8-bit key per slot filtering candidates before their read
//! (18%), a 64 KiB table of position and 4 bytes (no candidate read; no faster), and a
//! counted loop for the first 65 probes (7%).
//!
//! The last 3% came from the register allocation of the main loop, measured (best of 40 and
//! median of the pairs' ratios, alongside the code before) in the benchmark and in a driver
//! holding both versions: the output cursor as a slice and a position that nothing takes
//! the address of, the out-of-line writer given them by value (about 1%); only the first
//! word of a match extension inline, the rest (1 match in 200 on the payload) out of line
//! (2.5–3%: the longer loop's registers had pushed the search loop's into extra moves); 15
//! to 32 literals written as one 36-byte window out of line instead of through the general
//! writer and a `memcpy` (0.5%). Slower: that window inline in the common path (2–3%, the
//! same register pressure), the candidate read with a plain bounds check instead of
//! `found.min(ip)` (3%), the match extension as an indexed loop with a bounds check per
//! word instead of pre-sliced windows (7%); no change: `select_unpredictable` for that
//! `min` (LLVM emits the same branch), the 19-byte window's bounds checks nested instead of
//! joined, the 19-byte window's literals copied slice to slice instead of through a 16-byte
//! value. Also slower: the backward extension as a reversed zip (4%), the match extension's
//! windows cut from one slice (1%), a `#[cold]` branch in place of that `min` (7%), the
//! hash of the position after a match shifted out of the word read 2 bytes before it (one
//! load less, but a shift more on the path to the next probe; 2.5%). Not kept, though it is
//! faster in the driver: the word after a match shifted out of the 12 bytes the match's
//! first word compare reads instead of loaded from the match's end (the next probe no
//! longer waits for a load; +2.5–3% in the driver in five code placements, but 1.003–1.010×
//! against 1.012–1.021× in the benchmark binary); with it, the probe after a match reading
//! its candidate as the search loop does (no change in the driver, 0.997–1.002× in the
//! benchmark). Code placement alone moves either encoder by up to 2% between builds
//! (lz4_flex's own time, its code unchanged, moves when this crate's code does: 1.02× here
//! is our 3% and up to 1% of lz4_flex's placement), so a change is only kept when it wins
//! in both harnesses. About a fifth of either encoder's time is the kernel faulting in the
//! fresh output buffer (the same pages for both).
//!
//! The last 2–4%: the search loop's two probes per turn (an inner `for _ in 0..2` that the
//! compiler unrolls, so the current and next positions no longer trade registers every
//! probe), with the hash table as an array on the stack instead of in a `Box` (addressed
//! from the stack pointer, which frees a register the loop had been reloading from the
//! stack). Alone, the two probes gave 1–2% in the driver and the stack table 0.99–1.01×;
//! together +3–4% in the driver (best of 40 1.006–1.029×, medians 1.031–1.039×) and, in the
//! benchmark binary, 1.006–1.043× best and 0.984–1.026× medians against 0.951–0.997× and
//! 0.939–0.982× for the code before, four alternating runs of each on a loaded machine.
//! Tried and not kept: four probes per turn (medians 0.97–0.99× against the code before,
//! in the driver); the first step of the backward extension without a branch, the rest a
//! loop (with the change above, 0.93–0.96× best and 0.96–1.00× medians against the code
//! before it, so about 5% slower: 25% of matches extend back by one byte, but the match's
//! start then waits on the two byte loads). Not possible or not worth it: a software prefetch of the next
//! probe's candidate (`_mm_prefetch` takes a pointer and is `unsafe` to call on Rust 1.88
//! and 1.95 alike; and on the payload 97% of the search probes' candidates are within
//! 64 KiB and the rest within 1 MiB, in the 2 MiB L2, so there is no memory latency to
//! hide); a cheaper output buffer (the 66 MB `vec![0; …]` is a fresh `mmap` on every
//! call, above glibc's largest dynamic mmap threshold, and glibc skips the memset for
//! mapped chunks: strace shows mmap, mremap to the block's size, munmap, and perf
//! 7,074 page faults per call, the 29 MB written; `lz4_flex`'s `with_capacity` touches
//! its 30 MB alike).

/// Shortest match.
const MIN_MATCH: usize = 4;
/// The last match must start this many bytes before the end.
const MF_LIMIT: usize = 12;
/// The last bytes are always literals.
const LAST_LITERALS: usize = 5;
/// Search acceleration: after 2^6 misses the step grows.
const SKIP_TRIGGER: u32 = 6;
/// Farthest match.
const MAX_DISTANCE: usize = 65_535;
/// log2 of the hash table size.
const HASH_LOG: u32 = 13;
/// Hash table slots.
const TABLE_SIZE: usize = 1 << HASH_LOG;

/// The 8 bytes at `i`, little-endian: one bounds check. The compressor only reads whole
/// words that lie inside the input (see [`compress`]); anything else reads as 0.
#[inline(always)]
fn u64_at(src: &[u8], i: usize) -> u64 {
    src.get(i..i + 8)
        .and_then(|b| b.first_chunk::<8>())
        .map_or(0, |b| u64::from_le_bytes(*b))
}

/// The 4 bytes at `i`, little-endian (0 past the end, which the compressor never reads).
#[inline(always)]
fn u32_at(src: &[u8], i: usize) -> u32 {
    src.get(i..i + 4)
        .and_then(|b| b.first_chunk::<4>())
        .map_or(0, |b| u32::from_le_bytes(*b))
}

/// LZ4's 5-byte hash (little-endian form) of the word at a position, always below
/// [`TABLE_SIZE`].
#[inline(always)]
fn hash(word: u64) -> usize {
    ((word << 24).wrapping_mul(889_523_592_379) >> (64 - HASH_LOG)) as usize
}

/// Where the match between `src[a..]` and `src[b..]` (`b < a`) ends, at most `limit`:
/// 8 bytes compared at a time (XOR, the first differing byte from the trailing zeros),
/// then the tail byte by byte. Both sides are sliced once, so the word loop has no
/// bounds checks. The first word is compared inline (it ends almost every match: most
/// are 5 to 8 bytes); the rest is out of line, so its registers do not crowd the main
/// loop's.
#[inline(always)]
fn match_end(src: &[u8], a: usize, b: usize, limit: usize) -> usize {
    let (Some(x), Some(y)) = (src.get(a..limit), src.get(b..)) else {
        return a;
    };
    if let (Some(p), Some(q)) = (x.first_chunk::<8>(), y.first_chunk::<8>()) {
        let diff = u64::from_le_bytes(*p) ^ u64::from_le_bytes(*q);
        if diff != 0 {
            return a + (diff.trailing_zeros() / 8) as usize;
        }
    }
    a + common_prefix(x, y)
}

/// How many bytes `x` and `y` have in common from their start (at most `x.len()`):
/// [`match_end`] beyond the first word.
#[cold]
#[inline(never)]
fn common_prefix(x: &[u8], y: &[u8]) -> usize {
    let mut n = 0;
    for (p, q) in x.chunks_exact(8).zip(y.chunks_exact(8)) {
        let (Some(p), Some(q)) = (p.first_chunk::<8>(), q.first_chunk::<8>()) else {
            break;
        };
        let diff = u64::from_le_bytes(*p) ^ u64::from_le_bytes(*q);
        if diff != 0 {
            return n + (diff.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    let tail = x.get(n..).unwrap_or_default();
    let same = tail
        .iter()
        .zip(y.get(n..).unwrap_or_default())
        .take_while(|(p, q)| p == q)
        .count();
    n + same
}

/// Where the compressor reads its input: a slice apart from the output ([`compress`]), or
/// the output's own buffer from an offset on ([`compress_in_place`]). Positions are the
/// input's, from 0.
trait Input<'s>: Copy {
    /// The input, given the output's buffer.
    fn input<'b>(self, buf: &'b [u8]) -> &'b [u8]
    where
        's: 'b;
    /// Appends the literals `from..to` (longer than 16 bytes) to the output.
    fn copy_to(self, out: &mut Out<'_>, from: usize, to: usize);

    /// The 16 input bytes from `at`, if there are 16 (the literals of a short run, and
    /// what follows them).
    #[inline(always)]
    fn sixteen<'b>(self, buf: &'b [u8], at: usize) -> Option<[u8; 16]>
    where
        's: 'b,
    {
        self.input(buf)
            .get(at..)
            .and_then(<[u8]>::first_chunk::<16>)
            .copied()
    }
}

impl<'s> Input<'s> for &'s [u8] {
    #[inline(always)]
    fn input<'b>(self, _: &'b [u8]) -> &'b [u8]
    where
        's: 'b,
    {
        self
    }
    #[inline(always)]
    fn copy_to(self, out: &mut Out<'_>, from: usize, to: usize) {
        out.bytes(self.get(from..to).unwrap_or_default());
    }
}

/// The input lies in the output's buffer, from the first offset to the second.
#[derive(Clone, Copy)]
struct At(usize, usize);

impl<'s> Input<'s> for At {
    #[inline(always)]
    fn input<'b>(self, buf: &'b [u8]) -> &'b [u8]
    where
        's: 'b,
    {
        buf.get(self.0..self.1).unwrap_or_default()
    }
    #[inline(always)]
    fn copy_to(self, out: &mut Out<'_>, from: usize, to: usize) {
        let len = to - from;
        if out.pos + len <= out.buf.len() && self.0 + to <= self.1 {
            out.buf.copy_within(self.0 + from..self.0 + to, out.pos);
        }
        out.pos += len;
    }
}

/// The output block: a buffer of LZ4's worst-case size for the input
/// ([`out_for_input`]), written through a cursor (cut to length at the end, by
/// [`compress_with`]). Writes are in bounds by that size, so each bounds check is a
/// branch never taken; short literal runs are copied 16 bytes at a time, the bytes past
/// the run overwritten by what follows. It holds the buffer as a slice and nothing takes
/// its address, so the main loop keeps the cursor in a register.
struct Out<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

/// Room for any block compressed from `n` bytes (LZ4_COMPRESSBOUND).
fn out_for_input(n: usize) -> Vec<u8> {
    vec![0; n + n / 255 + 16]
}

impl Out<'_> {
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        if let Some(x) = self.buf.get_mut(self.pos) {
            *x = b;
        }
        self.pos += 1;
    }

    #[inline(always)]
    fn bytes(&mut self, b: &[u8]) {
        if let Some(x) = self.buf.get_mut(self.pos..self.pos + b.len()) {
            x.copy_from_slice(b);
        }
        self.pos += b.len();
    }

    /// A length continuation: 255s, then the rest.
    #[inline(always)]
    fn length(&mut self, rest: usize) {
        if rest >= 255 {
            let k = rest / 255;
            if let Some(x) = self.buf.get_mut(self.pos..self.pos + k) {
                x.fill(255);
            }
            self.pos += k;
        }
        self.byte((rest % 255) as u8);
    }

    /// The literals `src[from..to]`.
    #[inline(always)]
    fn literals<'s>(&mut self, src: impl Input<'s>, from: usize, to: usize) {
        let len = to - from;
        if len <= 16 {
            let chunk = src.sixteen(self.buf, from);
            let dst = self
                .buf
                .get_mut(self.pos..)
                .and_then(<[u8]>::first_chunk_mut::<16>);
            if let (Some(chunk), Some(dst)) = (chunk, dst) {
                *dst = chunk;
                self.pos += len;
                return;
            }
        }
        src.copy_to(self, from, to);
    }

    /// One sequence: literals `src[anchor..ip]`, then a match (offset, length) if any.
    #[inline(always)]
    fn sequence<'s>(
        &mut self,
        src: impl Input<'s>,
        anchor: usize,
        ip: usize,
        m: Option<(usize, usize)>,
    ) {
        let lit = ip - anchor;
        let mut token = (lit.min(15) as u8) << 4;
        if let Some((_, len)) = m {
            token |= (len - MIN_MATCH).min(15) as u8;
        }
        self.byte(token);
        if lit >= 15 {
            self.length(lit - 15);
        }
        self.literals(src, anchor, ip);
        if let Some((offset, len)) = m {
            self.bytes(&(offset as u16).to_le_bytes());
            let code = len - MIN_MATCH;
            if code >= 15 {
                self.length(code - 15);
            }
        }
    }

    /// A sequence with a match: literals `src[anchor..ip]`, then the match. The common
    /// case (fewer than 15 literals, a match code below 15, 16 bytes left after `anchor`)
    /// is written as one 19-byte window: token, 16 literal bytes (the ones past the run
    /// overwritten next), offset.
    #[inline(always)]
    fn matched<'s>(
        &mut self,
        src: impl Input<'s>,
        anchor: usize,
        ip: usize,
        offset: usize,
        len: usize,
    ) {
        let lit = ip - anchor;
        let code = len - MIN_MATCH;
        if lit < 15 && code < 15 {
            let chunk = src.sixteen(self.buf, anchor);
            let dst = self
                .buf
                .get_mut(self.pos..)
                .and_then(<[u8]>::first_chunk_mut::<19>);
            if let (Some(chunk), Some((token, rest))) =
                (chunk, dst.and_then(|d| d.split_first_mut()))
            {
                *token = ((lit as u8) << 4) | code as u8;
                if let Some(l) = rest.first_chunk_mut::<16>() {
                    *l = chunk;
                }
                if let Some(o) = rest.get_mut(lit..lit + 2) {
                    o.copy_from_slice(&(offset as u16).to_le_bytes());
                }
                self.pos += 3 + lit;
                return;
            }
        }
        self.pos = matched_slow(self.buf, self.pos, src, anchor, ip, offset, len);
    }

    /// The last sequence (literals `src[anchor..]`); returns the block's length.
    #[cold]
    #[inline(never)]
    fn finish<'s>(mut self, src: impl Input<'s>, anchor: usize) -> usize {
        let n = src.input(self.buf).len();
        self.sequence(src, anchor, n, None);
        self.pos
    }
}

/// [`Out::matched`] for 15 literals or more, or a long match (about one sequence in
/// nine on a mesh payload), at `buf[pos..]`; returns the new cursor. Out of line and
/// given the cursor by value, so the common case keeps its values in registers. 15 to
/// 32 literals with a short match (most of these sequences on a mesh payload) are
/// written as one 36-byte window: token, one length byte, 32 literal bytes, offset.
#[cold]
#[inline(never)]
fn matched_slow<'s>(
    buf: &mut [u8],
    pos: usize,
    src: impl Input<'s>,
    anchor: usize,
    ip: usize,
    offset: usize,
    len: usize,
) -> usize {
    let lit = ip - anchor;
    let code = len - MIN_MATCH;
    if (15..=32).contains(&lit) && code < 15 {
        let chunk = src
            .input(buf)
            .get(anchor..)
            .and_then(<[u8]>::first_chunk::<32>)
            .copied();
        let dst = buf.get_mut(pos..).and_then(<[u8]>::first_chunk_mut::<36>);
        if let (Some(chunk), Some(dst)) = (chunk, dst) {
            dst[0] = 0xf0 | code as u8;
            dst[1] = (lit - 15) as u8;
            if let Some(l) = dst.get_mut(2..34) {
                l.copy_from_slice(&chunk);
            }
            if let Some(o) = dst.get_mut(2 + lit..4 + lit) {
                o.copy_from_slice(&(offset as u16).to_le_bytes());
            }
            return pos + 4 + lit;
        }
    }
    let mut out = Out { buf, pos };
    out.sequence(src, anchor, ip, Some((offset, len)));
    out.pos
}

/// A hash table slot: a position in the input. `u32` (a 32 KiB table, which stays in
/// the L1 cache) for inputs below 4 GiB, `usize` beyond.
trait Slot: Copy {
    const ZERO: Self;
    fn get(self) -> usize;
    fn of(pos: usize) -> Self;
}

impl Slot for u32 {
    const ZERO: u32 = 0;
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn of(pos: usize) -> u32 {
        pos as u32
    }
}

impl Slot for usize {
    const ZERO: usize = 0;
    #[inline(always)]
    fn get(self) -> usize {
        self
    }
    #[inline(always)]
    fn of(pos: usize) -> usize {
        pos
    }
}

/// The hash table: [`TABLE_SIZE`] positions, indexed by [`hash`] (masked, so the
/// compiler sees every index in bounds).
struct Table<S>([S; TABLE_SIZE]);

impl<S: Slot> Table<S> {
    fn new() -> Table<S> {
        Table([S::ZERO; TABLE_SIZE])
    }

    /// The position stored under `h`, replaced by `pos`.
    #[inline(always)]
    fn swap(&mut self, h: usize, pos: usize) -> usize {
        let slot = self.0.get_mut(h & (TABLE_SIZE - 1));
        let old = slot.as_deref().map_or(0, |s| s.get());
        if let Some(s) = slot {
            *s = S::of(pos);
        }
        old
    }
}

/// Compresses `src` into a raw LZ4 block exactly as UNIGINE's writer does.
///
/// Every word read lies inside `src`: hashes and the 4-byte match test are taken at
/// positions at most `len − 11` (8 bytes read), match extension stops `LAST_LITERALS`
/// bytes before the end and reads whole words only while they fit. So the word reads
/// are a single bounds check each, the table index is masked (no check), and the
/// output is the same as a byte-by-byte loop's.
pub fn compress(src: &[u8]) -> Vec<u8> {
    let out = out_for_input(src.len());
    if u32::try_from(src.len()).is_ok() {
        compress_with::<u32, _>(src, out)
    } else {
        compress_with::<usize, _>(src, out)
    }
}

/// Room to leave in front of an input of `n` bytes for [`compress_in_place`]: the
/// output never grows past the input consumed by more than 1/255 of it, plus the 36
/// bytes one write touches at most, and the input is read at most 65,535 bytes
/// (`MAX_DISTANCE`) behind where it has been consumed.
pub fn in_place_margin(n: usize) -> usize {
    n / 255 + MAX_DISTANCE + 64
}

/// [`compress`] of `buf[start..]` into `buf` itself, which is returned cut to the block:
/// the input and the block are never held at once. `start` must be at least
/// [`in_place_margin`] of the input's length (the bytes before it are overwritten);
/// with less, the input is first moved up to leave that much (the buffer grows).
///
/// Why it is exact: a sequence costs at most its literals / 255 more than the input it
/// covers (LZ4's worst case is all literals), so after the sequences up to input
/// position `a` the block is at most `a + a / 255` bytes, and the next write ends 36
/// bytes later at most (a sequence of 15 to 32 literals); every read from then on is at
/// or after `a − MAX_DISTANCE` (a match's candidate is at most that far behind, the
/// literals and the probes after it). With `start ≥ n / 255 + MAX_DISTANCE + 64`,
/// every write lands before every byte that is still to be read. A test compares it
/// with [`compress`] on random, incompressible (the worst case) and repetitive input.
pub fn compress_in_place(mut buf: Vec<u8>, start: usize) -> Vec<u8> {
    let n = buf.len().saturating_sub(start);
    let need = in_place_margin(n);
    let start = if start < need {
        buf.splice(0..0, std::iter::repeat_n(0, need - start));
        need
    } else {
        start
    };
    // The margin in front also holds what the block can grow beyond the input
    // (incompressible data: n / 255 + 16 bytes).
    let at = At(start, start + n);
    if u32::try_from(n).is_ok() {
        compress_with::<u32, _>(at, buf)
    } else {
        compress_with::<usize, _>(at, buf)
    }
}

/// [`compress_into`] the output buffer `buf` (of LZ4's worst-case size for the input, or
/// holding the input behind the margin), cut to the block.
fn compress_with<'s, S: Slot, I: Input<'s>>(inp: I, mut buf: Vec<u8>) -> Vec<u8> {
    let len = compress_into::<S, I>(
        inp,
        Out {
            buf: &mut buf,
            pos: 0,
        },
    );
    buf.truncate(len);
    buf.shrink_to_fit();
    buf
}

/// The compressor's loop; returns the block's length.
fn compress_into<'s, S: Slot, I: Input<'s>>(inp: I, mut out: Out<'_>) -> usize {
    let n = inp.input(out.buf).len();
    if n < MF_LIMIT + 1 {
        return out.finish(inp, 0);
    }
    // The table starts zeroed: every slot already names position 0.
    let mut table = Table::<S>::new();
    let mflimit_plus_one = n - MF_LIMIT + 1;
    let match_limit = n - LAST_LITERALS;
    let mut anchor = 0;
    let mut ip = 1;
    loop {
        // The input, looked up again after each write (in place, it is in the output's
        // buffer).
        let src = inp.input(out.buf);
        // Find a match, skipping faster the longer none is found. (LZ4 looks at a
        // position only if the one after it, `ip + step`, is still before the limit.)
        let mut step = 1usize;
        let mut search = 1usize << SKIP_TRIGGER;
        let mut found;
        // Two probes per turn (the compiler unrolls the inner loop): the positions then
        // stay in their registers instead of being moved from one to the other.
        'search: loop {
            for _ in 0..2 {
                let next = ip + step;
                step = search >> SKIP_TRIGGER;
                search += 1;
                if next > mflimit_plus_one {
                    return out.finish(inp, anchor);
                }
                let word = u64_at(src, ip);
                found = table.swap(hash(word), ip);
                if usable(src, found, ip, word) {
                    break 'search;
                }
                ip = next;
            }
        }
        // Extend backwards.
        while ip > anchor && found > 0 && src.get(ip - 1) == src.get(found - 1) {
            ip -= 1;
            found -= 1;
        }
        loop {
            let src = inp.input(out.buf);
            // Extend forwards. The table is updated and the next position probed before
            // the sequence is written, so the probe's loads overlap the writing.
            let start = ip;
            let offset = ip - found;
            ip = match_end(src, ip + MIN_MATCH, found + MIN_MATCH, match_limit);
            if ip >= mflimit_plus_one {
                out.matched(inp, anchor, start, offset, ip - start);
                return out.finish(inp, ip);
            }
            table.swap(hash(u64_at(src, ip - 2)), ip - 2);
            // An immediate match at the new position: no literals in between.
            let word = u64_at(src, ip);
            found = table.swap(hash(word), ip);
            let again = usable_near(src, found, ip, word);
            out.matched(inp, anchor, start, offset, ip - start);
            anchor = ip;
            if again {
                continue;
            }
            ip += 1;
            break;
        }
    }
}

/// A candidate from the table can be used: at most [`MAX_DISTANCE`] back, and its first
/// 4 bytes those of `word` (the 8 bytes at `ip`). Candidates are always earlier
/// positions, so the read at `found` is inside the input even when it is too far back;
/// it is made either way and the two tests are joined into one word, leaving one
/// branch per probe (the window test alone is hard to predict). The read is at
/// `found.min(ip)`, which is `found`: the compiler then knows it lies within the 8 bytes
/// read at `ip` and drops its bounds check.
#[inline(always)]
fn usable(src: &[u8], found: usize, ip: usize, word: u64) -> bool {
    // `MAX_DISTANCE` is 2^16 − 1: a distance within it has nothing above bit 15.
    let far = ip.wrapping_sub(found) >> MAX_DISTANCE.count_ones();
    let diff = (u32_at(src, found.min(ip)) ^ word as u32) as usize;
    far | diff == 0
}

/// [`usable`], without reading a candidate beyond the window: the bytes at `ip` are
/// read instead (chosen without a branch), and the window test fails the probe. For the
/// probe after a match, whose candidate is often far back: on a large input that read
/// would be a cache miss with nothing else to overlap it.
#[inline(always)]
fn usable_near(src: &[u8], found: usize, ip: usize, word: u64) -> bool {
    let far = ip.wrapping_sub(found) >> MAX_DISTANCE.count_ones();
    let at = std::hint::select_unpredictable(far == 0, found, ip);
    let diff = (u32_at(src, at) ^ word as u32) as usize;
    far | diff == 0
}

/// The exact size an LZ4 block decodes to, found by walking its sequences without
/// decoding them (constant memory), or `None` if the block is malformed: a length or
/// literal run past the end, a zero offset, or an offset reaching before the start.
/// A decoder can then allocate what the data itself produces instead of a size a file
/// claims.
pub fn decoded_len(src: &[u8]) -> Option<u64> {
    // A length: its 4-bit start, plus 255 for every further 255 byte and the last byte.
    fn length(src: &[u8], i: &mut usize, start: u64) -> Option<u64> {
        let mut n = start;
        if start == 15 {
            loop {
                let b = *src.get(*i)?;
                *i += 1;
                n = n.checked_add(u64::from(b))?;
                if b != 255 {
                    break;
                }
            }
        }
        Some(n)
    }
    if src.is_empty() {
        return Some(0);
    }
    let mut i = 0usize;
    let mut out = 0u64;
    loop {
        let token = *src.get(i)?;
        i += 1;
        let literals = length(src, &mut i, u64::from(token >> 4))?;
        i = i.checked_add(usize::try_from(literals).ok()?)?;
        if i > src.len() {
            return None;
        }
        out = out.checked_add(literals)?;
        if i == src.len() {
            // The last sequence is literals only.
            return Some(out);
        }
        let offset = u64::from(u16::from_le_bytes([*src.get(i)?, *src.get(i + 1)?]));
        i += 2;
        if offset == 0 || offset > out {
            return None;
        }
        let matched = length(src, &mut i, u64::from(token & 15))?.checked_add(MIN_MATCH as u64)?;
        out = out.checked_add(matched)?;
    }
}

mod stream;
pub use stream::Decoder;

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The walked size equals the decoded size, for this compressor's blocks and for
    /// lz4_flex's (other match choices), and malformed blocks are refused.
    #[test]
    fn decoded_len_is_exact() {
        let big: Vec<u8> = (0..300_000u32)
            .map(|i| ((i % 251) ^ (i / 977)) as u8)
            .collect();
        let zeros = vec![0u8; 1_000_000];
        for data in [&b""[..], b"a", b"abcabcabcabcabcabcabcabcabc", &big, &zeros] {
            for block in [compress(data), lz4_flex::block::compress(data)] {
                assert_eq!(decoded_len(&block), Some(data.len() as u64));
                // Cut short, the walk fails or comes out short, never long.
                for cut in [1, block.len() / 2, block.len().saturating_sub(1)] {
                    if let Some(n) = block.get(..cut).and_then(decoded_len) {
                        assert!(n < data.len() as u64 || data.is_empty());
                    }
                }
            }
        }
        // A match before any output, and a zero offset.
        assert_eq!(decoded_len(&[0x04, 0x01, 0x00]), None);
        assert_eq!(decoded_len(&[0x14, b'a', 0x00, 0x00]), None);
    }

    fn round_trip(data: &[u8]) {
        let c = compress(data);
        let d = lz4_flex::block::decompress(&c, data.len()).unwrap();
        assert_eq!(d, data);
    }

    #[test]
    fn decompresses_back() {
        round_trip(b"");
        round_trip(b"abc");
        round_trip(b"abcabcabcabcabcabcabcabcabcabcabcabc");
        let big: Vec<u8> = (0..200_000u32)
            .map(|i| ((i % 251) ^ (i / 977)) as u8)
            .collect();
        round_trip(&big);
        let zeros = vec![0u8; 100_000];
        round_trip(&zeros);
        assert!(compress(&zeros).len() < 500);
    }

    /// Checks the fast compressor against the old byte loop and lz4_flex's decoder.
    fn same_as_reference(data: &[u8]) -> std::result::Result<(), TestCaseError> {
        let fast = compress(data);
        prop_assert!(
            fast == reference::compress(data),
            "differs from the byte loop"
        );
        let back = lz4_flex::block::decompress(&fast, data.len()).unwrap();
        prop_assert!(back == data, "does not decompress back");
        // In place: with exactly the margin in front, with more, and with none (the
        // input is moved up first).
        let margin = in_place_margin(data.len());
        for front in [margin, margin + 777, 0] {
            let mut buf = vec![0xa5; front];
            buf.extend_from_slice(data);
            prop_assert!(
                compress_in_place(buf, front) == fast,
                "in place with {front} bytes in front differs"
            );
        }
        Ok(())
    }

    /// In place, the worst case: incompressible input, whose block is longer than the
    /// input, with only the margin in front; and inputs over 64 KiB that repeat from
    /// within the window, whose candidates lie close behind the writes.
    #[test]
    fn in_place_is_compress_at_the_margin() {
        let mut x = 0x9e37_79b9u32;
        let mut random = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        };
        let noise: Vec<u8> = (0..600_000).map(|_| random()).collect();
        let mut near: Vec<u8> = (0..65_000).map(|_| random()).collect();
        for _ in 0..6 {
            near.extend_from_within(near.len() - 65_000..);
            near.push(random());
        }
        let mut mixed = noise.clone();
        mixed.extend_from_slice(&near);
        mixed.extend_from_slice(noise.get(..70_000).unwrap_or_default());
        // Copies of 64 bytes, 64,000 to 65,500 bytes back, all along incompressible
        // input: the output stays about as long as the input consumed, and matches read
        // near the far end of the window, just behind what the output has overwritten.
        let mut far = noise.clone();
        for k in 0..520 {
            let (from, back) = (1_000 * k + 5, 64_000 + (k * 37) % 1_500);
            far.copy_within(from..from + 64, from + back);
        }
        for data in [&noise, &near, &mixed, &far] {
            let fast = compress(data);
            let margin = in_place_margin(data.len());
            let mut buf = vec![0; margin];
            buf.extend_from_slice(data);
            assert!(
                compress_in_place(buf, margin) == fast,
                "{} bytes",
                data.len()
            );
        }
        assert!(compress(&noise).len() > noise.len(), "incompressible");
    }

    /// Pieces: random bytes, zero runs, and copies of earlier data from near (long
    /// matches) or far (beyond the 64 KiB window), concatenated.
    fn pieced(max_pieces: usize) -> impl Strategy<Value = Vec<u8>> {
        #[derive(Debug, Clone)]
        enum Piece {
            Random(Vec<u8>),
            Zeros(usize),
            Copy { back: usize, len: usize },
            Byte(u8),
        }
        let piece = prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..2000).prop_map(Piece::Random),
            (0usize..40_000).prop_map(Piece::Zeros),
            (1usize..140_000, 0usize..30_000).prop_map(|(back, len)| Piece::Copy { back, len }),
            any::<u8>().prop_map(Piece::Byte),
        ];
        proptest::collection::vec(piece, 0..max_pieces).prop_map(|pieces| {
            let mut v: Vec<u8> = Vec::new();
            for p in pieces {
                match p {
                    Piece::Random(r) => v.extend_from_slice(&r),
                    Piece::Zeros(n) => v.resize(v.len() + n, 0),
                    Piece::Byte(b) => v.push(b),
                    Piece::Copy { back, len } => {
                        if !v.is_empty() {
                            let start = v.len().saturating_sub(back);
                            for k in 0..len {
                                let b = v.get(start + k).copied().unwrap_or(0);
                                v.push(b);
                            }
                        }
                    }
                }
            }
            v
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Short inputs, all their lengths around the 13-byte threshold.
        #[test]
        fn fast_equals_reference_short(data in proptest::collection::vec(any::<u8>(), 0..20)) {
            same_as_reference(&data)?;
        }

        /// Random and low-entropy inputs.
        #[test]
        fn fast_equals_reference_random(data in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..5000),
            proptest::collection::vec(0u8..4, 0..70_000),
            proptest::collection::vec(prop_oneof![Just(0u8), Just(1), Just(255)], 0..3000),
        ]) {
            same_as_reference(&data)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Long matches, zero runs and repeats from beyond 64 KiB, often more than
        /// 64 KiB in all.
        #[test]
        fn fast_equals_reference_pieced(data in pieced(24)) {
            same_as_reference(&data)?;
        }
    }

    /// Every literal run from 0 to 40 bytes before matches of 4 to 24 bytes: the
    /// 19-byte window (under 15 literals), the 36-byte window (15 to 32) and the general
    /// writer, also near the end of the input and in place.
    #[test]
    fn literal_runs_before_matches() {
        let mut x = 0x2545_f491u32;
        let mut random = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        };
        let words: Vec<u8> = (0..64).map(|_| random()).collect();
        for lit in 0..=40 {
            let mut data: Vec<u8> = words.clone();
            for len in 4..=24 {
                data.extend((0..lit).map(|_| random()));
                data.extend_from_slice(words.get(len..2 * len).unwrap_or_default());
                data.push(random());
                same_as_reference(&data).unwrap();
            }
        }
    }

    /// Fixed cases: every length up to 100 of zeros and of a period-3 pattern, and big
    /// inputs with long and far matches.
    #[test]
    fn fast_equals_reference_fixed() {
        for n in 0..100 {
            same_as_reference(&vec![0u8; n]).unwrap();
            let p: Vec<u8> = (0..n).map(|i| (i % 3) as u8).collect();
            same_as_reference(&p).unwrap();
        }
        let big: Vec<u8> = (0..300_000u32)
            .map(|i| ((i % 251) ^ (i / 977)) as u8)
            .collect();
        same_as_reference(&big).unwrap();
        same_as_reference(&vec![0u8; 1_000_000]).unwrap();
        // A 70 KiB pseudo-random block repeated: the repeat is beyond the window.
        let mut x = 0x1234_5678u32;
        let mut far: Vec<u8> = (0..70_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        far.extend_from_within(..);
        far.extend_from_within(100..5000);
        same_as_reference(&far).unwrap();
    }
}
