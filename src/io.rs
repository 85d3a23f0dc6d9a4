//! Reading and writing helpers shared by every raw schema.
//!
//! - [`Tracked`] wraps the input so an error can name the offset of the read that failed.
//! - [`pod_vec`] / [`pod_write`] move whole arrays of plain little-endian records at once
//!   (binrw's per-field path is an order of magnitude slower on million-vertex meshes),
//!   after checking the count against the bytes that remain.

use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};

use binrw::{BinRead, BinResult, BinWrite, Endian};
use bytemuck::Pod;

use crate::error::{from_binrw, CountTooLarge, Error, Limits, Result};

/// A reader that remembers where the last read started (for error offsets) and keeps
/// its own position, so a file reader needs no system call to tell it.
pub(crate) struct Tracked<R> {
    inner: R,
    pos: u64,
    last_read: u64,
}

impl<R> Tracked<R> {
    /// Wraps `inner`, which stands at `pos`.
    pub(crate) fn over(inner: R, pos: u64) -> Self {
        Tracked {
            inner,
            pos,
            last_read: pos,
        }
    }

    pub(crate) fn position(&self) -> u64 {
        self.pos
    }
}

impl<R: Read + Seek> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.last_read = self.pos;
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.last_read = self.pos;
        match self.inner.read_exact(buf) {
            Ok(()) => {
                self.pos += buf.len() as u64;
                Ok(())
            }
            Err(e) => {
                // Where a short read left the inner reader is unknown: ask it.
                self.pos = self.inner.stream_position().unwrap_or(self.pos);
                Err(e)
            }
        }
    }
}

impl<R: Seek> Seek for Tracked<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.pos = self.inner.seek(pos)?;
        Ok(self.pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}

/// Reads a whole value of type `T` from `bytes`, requiring every byte to be consumed.
pub(crate) fn read_all<T>(bytes: &[u8], limits: &Limits, args: T::Args<'_>) -> Result<T>
where
    T: BinRead,
{
    read_all_from(Cursor::new(bytes), limits, args)
}

/// [`read_all`] from any reader, which must stand at its start: the value must end
/// where the input does. The input's size is checked against `limits` first; arrays are
/// read in bulk once the input is known to hold them, so a file is never copied whole.
pub(crate) fn read_all_from<T, R>(reader: R, limits: &Limits, args: T::Args<'_>) -> Result<T>
where
    T: BinRead,
    R: Read + Seek,
{
    let mut r = Tracked::over(reader, 0);
    let len = remaining(&mut r).map_err(|e| Error::new("input", crate::ErrorKind::Io(e)))?;
    limits.check_input(len as usize)?;
    let value = T::read_options(&mut r, Endian::Little, args)
        .map_err(|e| from_binrw(e, Some(r.last_read)))?;
    let end = r.position();
    if end != len {
        return Err(Error::at(
            end,
            "",
            crate::ErrorKind::TrailingData { bytes: len - end },
        ));
    }
    Ok(value)
}

/// The length of a reader's input, checked against `limits` before anything is read;
/// the reader is left at its start.
pub(crate) fn checked_len<R: Seek>(reader: &mut R, limits: &Limits) -> Result<u64> {
    let io = |e: io::Error| Error::new("input", crate::ErrorKind::Io(e));
    let len = reader.seek(SeekFrom::End(0)).map_err(io)?;
    limits.check_input(usize::try_from(len).unwrap_or(usize::MAX))?;
    reader.seek(SeekFrom::Start(0)).map_err(io)?;
    Ok(len)
}

/// A reader seen from `base` on: position 0 is the inner reader's `base`, so a body
/// after a fixed prefix reads as if it were the whole input.
pub(crate) struct Window<R> {
    inner: R,
    base: u64,
}

impl<R: Seek> Window<R> {
    /// The part of `inner` from `base` to its end, positioned at its start.
    pub(crate) fn new(mut inner: R, base: u64) -> io::Result<Self> {
        inner.seek(SeekFrom::Start(base))?;
        Ok(Window { inner, base })
    }
}

impl<R: Read> Read for Window<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.inner.read_exact(buf)
    }
}

impl<R: Seek> Seek for Window<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let to = match pos {
            SeekFrom::Start(p) => SeekFrom::Start(p.saturating_add(self.base)),
            other => other,
        };
        let at = self.inner.seek(to)?;
        at.checked_sub(self.base).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the window's start",
            )
        })
    }
}

/// Writes `prefix` then a value into one buffer of the expected size.
pub(crate) fn write_all<T>(
    prefix: &[u8],
    value: &T,
    capacity: usize,
    args: T::Args<'_>,
) -> Result<Vec<u8>>
where
    T: BinWrite,
{
    let mut buf = Vec::with_capacity(capacity);
    buf.extend_from_slice(prefix);
    let mut out = Cursor::new(buf);
    out.set_position(prefix.len() as u64);
    value
        .write_options(&mut out, Endian::Little, args)
        .map_err(|e| from_binrw(e, None))?;
    Ok(out.into_inner())
}

/// Bytes between the reader's position and the end of the input.
pub(crate) fn remaining<R: Read + Seek>(reader: &mut R) -> io::Result<u64> {
    let pos = reader.stream_position()?;
    let end = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(pos))?;
    Ok(end.saturating_sub(pos))
}

/// Fails unless `count` records of `size` bytes fit in what remains of the input.
/// Run before anything is allocated for them.
pub(crate) fn check_count<R: Read + Seek>(
    reader: &mut R,
    count: u64,
    size: u64,
    what: &'static str,
) -> BinResult<()> {
    let pos = reader.stream_position()?;
    let left = remaining(reader)?;
    let needed = count.saturating_mul(size);
    if needed > left {
        return Err(binrw::Error::Custom {
            pos,
            err: Box::new(CountTooLarge {
                what,
                count,
                needed,
                remaining: left,
            }),
        });
    }
    Ok(())
}

/// A fixed-size record that is stored in the file exactly as its little-endian
/// in-memory representation (no padding), so whole arrays can be copied at once.
///
/// # Invariant
/// `size_of::<Self>()` equals the record's size in the file, and the binrw impl
/// reads and writes the same bytes as the bulk path (checked by tests).
pub trait PlainRecord:
    Pod + for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()>
{
}

impl<T> PlainRecord for T where
    T: Pod + for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()>
{
}

/// Records stored back to back, as many as `#[br(count = n)]` says: read and written in
/// bulk (one copy of the whole array), after checking that the input holds them, so a
/// count in a damaged file cannot allocate more than the file's size.
///
/// This is the raw layer's one declaration of a counted array: a field
/// `#[br(count = header.num_verts)] vertices: Records<Vertex>` reads like binrw's own
/// `Vec` with `count`, at the speed of a memory copy. It dereferences to the `Vec`.
#[derive(Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Records<T>(pub Vec<T>);

impl<T> Default for Records<T> {
    fn default() -> Self {
        Records(Vec::new())
    }
}

impl<T> Records<T> {
    /// The records as a `Vec`.
    pub fn into_vec(self) -> Vec<T> {
        self.0
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Records<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T> std::ops::Deref for Records<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Records<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T> From<Vec<T>> for Records<T> {
    fn from(v: Vec<T>) -> Self {
        Records(v)
    }
}

impl<T> From<Records<T>> for Vec<T> {
    fn from(r: Records<T>) -> Self {
        r.0
    }
}

impl<T> FromIterator<T> for Records<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Records(iter.into_iter().collect())
    }
}

impl<T> IntoIterator for Records<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a Records<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T> AsRef<[T]> for Records<T> {
    fn as_ref(&self) -> &[T] {
        &self.0
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for Records<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.0 == *other
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for Records<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        self.0 == other
    }
}

impl<T: PartialEq> PartialEq<[T]> for Records<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.0 == other
    }
}

// Hand-written (the one generic helper every counted array uses): binrw's own `Vec` reads
// element by element and allocates the count before reading, both wrong for
// million-record arrays from untrusted files.
impl<T: PlainRecord> BinRead for Records<T> {
    type Args<'a> = binrw::VecArgs<()>;

    fn read_options<R: Read + Seek>(
        reader: &mut R,
        endian: Endian,
        args: Self::Args<'_>,
    ) -> BinResult<Self> {
        pod_vec(reader, endian, (args.count as u64, "records")).map(Records)
    }
}

impl<T: PlainRecord> BinWrite for Records<T> {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(
        &self,
        writer: &mut W,
        endian: Endian,
        _: Self::Args<'_>,
    ) -> BinResult<()> {
        pod_write(&self.0, writer, endian, ())
    }
}

/// Where `count` records of `T` lie in the input, checked to be there but not copied:
/// the counterpart of [`Records`] for a borrowed view (`filemesh::raw::view`), which
/// reads them from the caller's bytes when asked.
#[derive(Debug)]
pub struct Span<T> {
    /// Offset of the first record from the start of the input read.
    pub(crate) start: u64,
    /// Number of records.
    pub(crate) count: u64,
    of: std::marker::PhantomData<fn() -> T>,
}

impl<T> Clone for Span<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Span<T> {}

impl<T> Span<T> {
    /// The records' bytes in `input` (the bytes the span was read from).
    pub(crate) fn bytes<'a>(&self, input: &'a [u8]) -> &'a [u8] {
        let size = std::mem::size_of::<T>() as u64;
        // Checked against the input when read, so these cannot overflow or fall outside.
        let start = self.start as usize;
        input
            .get(start..start + (self.count * size) as usize)
            .unwrap_or_default()
    }
}

impl<T: Pod> Span<T> {
    /// The records, read one by one from `input` (the bytes the span was read from;
    /// they need not be aligned there).
    pub(crate) fn records(self, input: &[u8]) -> impl ExactSizeIterator<Item = T> + '_ {
        self.bytes(input)
            .chunks_exact(std::mem::size_of::<T>())
            .map(bytemuck::pod_read_unaligned)
    }
}

impl<T: PlainRecord> BinRead for Span<T> {
    type Args<'a> = binrw::VecArgs<()>;

    fn read_options<R: Read + Seek>(
        reader: &mut R,
        _: Endian,
        args: Self::Args<'_>,
    ) -> BinResult<Self> {
        let count = args.count as u64;
        let size = std::mem::size_of::<T>() as u64;
        check_count(reader, count, size, "records")?;
        let start = reader.stream_position()?;
        reader.seek(SeekFrom::Start(start + count * size))?;
        Ok(Span {
            start,
            count,
            of: std::marker::PhantomData,
        })
    }
}

impl<T> Default for Span<T> {
    fn default() -> Self {
        Span {
            start: 0,
            count: 0,
            of: std::marker::PhantomData,
        }
    }
}

impl<T> PartialEq for Span<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.start, self.count) == (other.start, other.count)
    }
}

impl<T> serde::Serialize for Span<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&format!("<{} records at {}>", self.count, self.start))
    }
}

// A span holds no records, so there is nothing to write: a view is read, never written
// (own the file to write it). Required because a layout derives both directions.
impl<T> BinWrite for Span<T> {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(&self, _: &mut W, _: Endian, _: ()) -> BinResult<()> {
        Err(inconsistent(
            "a borrowed view holds no arrays to write: read the file owned to write it",
        ))
    }
}

/// Where a layout keeps its counted arrays.
///
/// The raw FileMesh layouts (`FileMeshV2`, `FileMeshV4`, the chunks) are declared once,
/// generic over this: [`Owned`], the default, reads each array into [`Records`]; the
/// borrowed [`FileMeshView`](crate::filemesh::raw::FileMeshView) reads the same layout
/// with the arrays left where they lie in the caller's bytes. Sealed: these two are all.
pub trait Arrays:
    sealed::Sealed + Clone + Copy + std::fmt::Debug + Default + PartialEq + 'static
{
    /// The holder of a counted array of `T`.
    type Of<T: Record>: for<'a> BinRead<Args<'a> = binrw::VecArgs<()>>
        + for<'a> BinWrite<Args<'a> = ()>
        + Clone
        + std::fmt::Debug
        + Default
        + PartialEq
        + serde::Serialize
        + Counted;

    /// binrw `parse_with`: every byte from here to the end of the input.
    fn rest<R: Read + Seek>(reader: &mut R, endian: Endian, args: ()) -> BinResult<Self::Of<u8>>;

    /// The records of `of`, one by one; `input` is the input the layout was read from
    /// (unused by [`Owned`], which holds them).
    fn records<'a, T: Record>(
        of: &'a Self::Of<T>,
        input: &'a [u8],
    ) -> impl ExactSizeIterator<Item = T> + 'a;

    /// The bytes of `of` (see [`Arrays::records`] for `input`).
    fn bytes<'a>(of: &'a Self::Of<u8>, input: &'a [u8]) -> &'a [u8];
}

/// What a layout's counted arrays may hold: plain records that can also be compared,
/// printed and serialized.
pub trait Record: PlainRecord + std::fmt::Debug + PartialEq + serde::Serialize {}

impl<T: PlainRecord + std::fmt::Debug + PartialEq + serde::Serialize> Record for T {}

/// The number of records an array holder holds (owned or in place).
pub trait Counted {
    /// Number of records.
    fn len(&self) -> usize;
    /// True when there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Counted for Records<T> {
    fn len(&self) -> usize {
        self.0.len()
    }
}

impl<T> Counted for Span<T> {
    fn len(&self) -> usize {
        // Checked against the input when read, so it fits in memory's address space.
        self.count as usize
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Owned {}
    impl Sealed for super::InPlace {}
}

/// Arrays read into memory ([`Records`]): the layouts' default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Owned;

impl Arrays for Owned {
    type Of<T: Record> = Records<T>;

    fn rest<R: Read + Seek>(reader: &mut R, endian: Endian, args: ()) -> BinResult<Records<u8>> {
        rest_bytes(reader, endian, args).map(Records)
    }

    fn records<'a, T: Record>(
        of: &'a Records<T>,
        _: &'a [u8],
    ) -> impl ExactSizeIterator<Item = T> + 'a {
        of.iter().copied()
    }

    fn bytes<'a>(of: &'a Records<u8>, _: &'a [u8]) -> &'a [u8] {
        of
    }
}

/// Arrays left in the input ([`Span`]): the borrowed view's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InPlace;

impl Arrays for InPlace {
    type Of<T: Record> = Span<T>;

    fn rest<R: Read + Seek>(reader: &mut R, endian: Endian, args: ()) -> BinResult<Span<u8>> {
        rest_span(reader, endian, args)
    }

    fn records<'a, T: Record>(
        of: &'a Span<T>,
        input: &'a [u8],
    ) -> impl ExactSizeIterator<Item = T> + 'a {
        of.records(input)
    }

    fn bytes<'a>(of: &'a Span<u8>, input: &'a [u8]) -> &'a [u8] {
        of.bytes(input)
    }
}

/// binrw `parse_with`: the [`Span`] of every byte from here to the end of the input.
pub(crate) fn rest_span<R: Read + Seek>(reader: &mut R, _: Endian, _: ()) -> BinResult<Span<u8>> {
    let start = reader.stream_position()?;
    let end = reader.seek(SeekFrom::End(0))?;
    Ok(Span {
        start,
        count: end - start,
        of: std::marker::PhantomData,
    })
}

/// binrw `parse_with`: reads `count` records of `T` in bulk after checking that the
/// input holds them. `what` names the array in errors.
pub(crate) fn pod_vec<T: PlainRecord, R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (count, what): (u64, &'static str),
) -> BinResult<Vec<T>> {
    let size = std::mem::size_of::<T>() as u64;
    check_count(reader, count, size, what)?;
    // The check above bounds count by the input length, so this cannot overflow usize.
    let n = count as usize;
    if cfg!(target_endian = "little") && endian == Endian::Little {
        let mut v: Vec<T> = match Spare::take_current::<T>(n) {
            // A buffer of a file read before: its pages are already mapped.
            Some(mut v) => {
                v.clear();
                v.resize(n, T::zeroed());
                v
            }
            None => bytemuck::zeroed_vec(n),
        };
        reader.read_exact(bytemuck::cast_slice_mut(&mut v))?;
        Ok(v)
    } else {
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(T::read_options(reader, endian, ())?);
        }
        Ok(v)
    }
}

thread_local! {
    /// The [`Spare`] of the read running on this thread ([`Spare::lend`]).
    static CURRENT: std::cell::RefCell<Option<Spare>> = const { std::cell::RefCell::new(None) };
}

/// Arrays of files read before, for the next read to fill instead of allocating anew:
/// reading many files one after another (`meshcodec verify DIR`) then costs a copy into
/// memory that is already mapped, not fresh pages for every array of every file.
///
/// Give it the files you are done with ([`Spare::keep`]); read the next one with
/// [`crate::open_reader_with`] or [`crate::filemesh::FileMesh::read_reusing`]. The file
/// read is the same, byte for byte, as without a spare; only where its arrays live
/// differs. A spare holds at most 32 arrays (the largest are kept).
#[derive(Default)]
pub struct Spare {
    bins: Vec<(usize, Box<dyn std::any::Any + Send>)>,
}

impl std::fmt::Debug for Spare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spare")
            .field("arrays", &self.bins.len())
            .field("bytes", &self.bytes())
            .finish()
    }
}

impl Spare {
    /// How many bytes the kept arrays can hold.
    pub fn bytes(&self) -> usize {
        self.bins.iter().map(|(b, _)| b).sum()
    }

    /// Keeps an array's buffer for a later read.
    pub(crate) fn put<T: Send + 'static>(&mut self, mut v: Vec<T>) {
        let bytes = v.capacity() * std::mem::size_of::<T>();
        if bytes == 0 {
            return;
        }
        v.clear();
        self.bins.push((bytes, Box::new(v)));
        if self.bins.len() > 32 {
            self.bins.sort_by_key(|(b, _)| std::cmp::Reverse(*b));
            self.bins.truncate(32);
        }
    }

    /// The kept buffer of `T` that best fits `n` records (the smallest that holds them,
    /// else the largest), if any.
    fn take<T: 'static>(&mut self, n: usize) -> Option<Vec<T>> {
        let fits = |b: &(usize, Box<dyn std::any::Any + Send>)| {
            b.1.downcast_ref::<Vec<T>>().map(Vec::capacity)
        };
        let mut best: Option<(usize, usize)> = None;
        for (i, b) in self.bins.iter().enumerate() {
            let Some(cap) = fits(b) else { continue };
            let better = match best {
                None => true,
                Some((_, c)) if c >= n => cap >= n && cap < c,
                Some((_, c)) => cap > c,
            };
            if better {
                best = Some((i, cap));
            }
        }
        let (i, _) = best?;
        self.bins
            .swap_remove(i)
            .1
            .downcast::<Vec<T>>()
            .ok()
            .map(|b| *b)
    }

    /// The running read's spare buffer of `T` for `n` records, if it has one.
    fn take_current<T: 'static>(n: usize) -> Option<Vec<T>> {
        CURRENT.with(|c| c.borrow_mut().as_mut().and_then(|s| s.take::<T>(n)))
    }

    /// Gives a raw FileMesh's arrays to the running read's spare, if it has one.
    pub(crate) fn give_current(file: crate::filemesh::FileMesh) {
        CURRENT.with(|c| {
            if let Some(s) = c.borrow_mut().as_mut() {
                file.recycle(s);
            }
        });
    }

    /// An empty `Vec` that holds `n` items without growing: a spare one of the running
    /// read's ([`Spare::lend`]) if it has one, else a new one.
    pub(crate) fn vec_for<T: 'static>(n: usize) -> Vec<T> {
        match Self::take_current::<T>(n) {
            Some(mut v) => {
                v.clear();
                v.reserve(n);
                v
            }
            None => Vec::with_capacity(n),
        }
    }

    /// Runs `read` with this spare lent to the thread's reads of counted arrays.
    pub(crate) fn lend<X>(&mut self, read: impl FnOnce() -> X) -> X {
        let mine = std::mem::take(self);
        let previous = CURRENT.with(|c| c.borrow_mut().replace(mine));
        let out = read();
        if let Some(back) = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), previous)) {
            *self = back;
        }
        out
    }
}

/// binrw `write_with`: the inverse of [`pod_vec`].
pub(crate) fn pod_write<T: PlainRecord, V: AsRef<[T]> + ?Sized, W: Write + Seek>(
    value: &V,
    writer: &mut W,
    endian: Endian,
    _: (),
) -> BinResult<()> {
    let value = value.as_ref();
    if cfg!(target_endian = "little") && endian == Endian::Little {
        writer.write_all(bytemuck::cast_slice(value))?;
    } else {
        for item in value {
            item.write_options(writer, endian, ())?;
        }
    }
    Ok(())
}

/// binrw `parse_with`: every byte from here to the end of the input.
pub(crate) fn rest_bytes<R: Read + Seek>(reader: &mut R, _: Endian, _: ()) -> BinResult<Vec<u8>> {
    let mut v = Vec::new();
    reader.read_to_end(&mut v)?;
    Ok(v)
}

/// binrw `parse_with`: records of `T` until the input ends (a record cut short is an
/// error, unlike binrw's `until_eof`, which would drop it silently).
pub(crate) fn until_end<T, R>(reader: &mut R, endian: Endian, _: ()) -> BinResult<Vec<T>>
where
    T: for<'a> BinRead<Args<'a> = ()>,
    R: Read + Seek,
{
    let mut items = Vec::new();
    while remaining(reader)? > 0 {
        items.push(T::read_options(reader, endian, ())?);
    }
    Ok(items)
}

/// A payload whose kind can be named in errors (see [`exactly`]).
pub(crate) trait Payload {
    /// A short name of the payload kind (`LODS v1`).
    fn kind(&self) -> &'static str;
}

/// binrw `parse_with`: a `T` that must fill exactly `size` bytes, which must exist
/// (`what` names them in the error if they do not).
pub(crate) fn exactly<T, R>(
    reader: &mut R,
    endian: Endian,
    (size, what, args): (u64, &'static str, T::Args<'_>),
) -> BinResult<T>
where
    T: BinRead + Payload,
    R: Read + Seek,
{
    let start = reader.stream_position()?;
    check_count(reader, size, 1, what)?;
    let value = T::read_options(reader, endian, args)?;
    let used = reader.stream_position()? - start;
    if used != size {
        return Err(invalid(
            start,
            format!(
                "the {} payload is {size} bytes but its fields take {used}",
                value.kind()
            ),
        ));
    }
    Ok(value)
}

pub(crate) use crate::error::NotThisVariant;

/// Builds a binrw error carrying [`crate::error::Invalid`].
pub(crate) fn invalid(pos: u64, msg: impl Into<String>) -> binrw::Error {
    binrw::Error::Custom {
        pos,
        err: Box::new(crate::error::Invalid(msg.into())),
    }
}

/// Builds a binrw write error carrying [`crate::error::Inconsistent`].
pub(crate) fn inconsistent(msg: impl Into<String>) -> binrw::Error {
    binrw::Error::Custom {
        pos: 0,
        err: Box::new(crate::error::Inconsistent(msg.into())),
    }
}

/// `usize` → a narrower count type, or an error naming the field.
pub(crate) fn count_as<T: TryFrom<usize>>(n: usize, what: &str) -> BinResult<T> {
    T::try_from(n).map_err(|_| inconsistent(format!("{n} {what} do not fit the count field")))
}

/// `try_map` check: a header size no smaller than the fields it must hold.
pub(crate) fn at_least<T: PartialOrd + std::fmt::Display>(
    value: T,
    min: T,
    what: &str,
) -> std::result::Result<T, crate::error::Invalid> {
    if value >= min {
        Ok(value)
    } else {
        Err(crate::error::Invalid(format!(
            "{what} is {value}, smaller than the {min} bytes of its fields"
        )))
    }
}

/// `try_map` check: a size field that must be one of a few values.
pub(crate) fn one_of<T: PartialEq + std::fmt::Display>(
    value: T,
    allowed: &[T],
    what: &str,
) -> std::result::Result<T, crate::error::Invalid> {
    if allowed.contains(&value) {
        Ok(value)
    } else {
        let list: Vec<String> = allowed.iter().map(|a| a.to_string()).collect();
        Err(crate::error::Invalid(format!(
            "{what} is {value}; {} expected",
            list.join(" or ")
        )))
    }
}
