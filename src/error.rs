//! The public error type and the allocation limits.
//!
//! binrw's own error type is an implementation detail: every failure is turned into an
//! [`Error`] that says where in the input it happened, what was being read, and why.
//!
//! # Example
//!
//! ```
//! use meshcodec::{open, open_with_limits, ErrorKind, Limits};
//!
//! // Not a mesh file at all.
//! let err = open(b"hello").unwrap_err();
//! assert!(matches!(err.kind(), ErrorKind::UnknownFormat), "{err}");
//!
//! // A cut-short file: the error names where reading stopped.
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v4.01-bones.mesh"));
//! let err = open(&bytes[..100]).unwrap_err();
//! assert!(err.offset().is_some(), "{err}");
//! println!("{err}"); // at byte …, reading …: …
//!
//! // Limits refuse big input before reading it.
//! let small = Limits { max_input_bytes: 64, ..Limits::default() };
//! assert!(matches!(open_with_limits(bytes, &small).unwrap_err().kind(), ErrorKind::LimitExceeded { .. }));
//! ```

use std::borrow::Cow;
use std::fmt;

/// What went wrong, without the where (see [`Error`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended inside a structure.
    UnexpectedEof,
    /// A count or size in the file asks for more bytes than the file has left.
    CountTooLarge {
        /// What the count is of (`vertices`, `chunk payload bytes` …).
        what: Cow<'static, str>,
        /// The count as read.
        count: u64,
        /// Bytes that many elements need.
        needed: u64,
        /// Bytes left in the input.
        remaining: u64,
    },
    /// The input is larger than [`Limits`] allows.
    LimitExceeded {
        /// What was limited.
        what: &'static str,
        /// The size asked for, in bytes.
        requested: u64,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A task would take more work than its budget allows (the thumbnail renderer's
    /// fill work: see `render::RenderOptions::max_work`).
    WorkLimitExceeded {
        /// What was estimated, with its unit (`fill work (pixels)`).
        what: &'static str,
        /// The estimate.
        estimated: u64,
        /// The budget.
        limit: u64,
    },
    /// The first bytes match no format this crate knows.
    UnknownFormat,
    /// The format is known, but this version of it is not supported (yet).
    UnsupportedVersion(String),
    /// A value the format does not allow at this place.
    Invalid(String),
    /// A raw value that contradicts itself and so cannot be written
    /// (for example envelopes on a mesh without bones).
    Inconsistent(String),
    /// The input was read completely but bytes were left over where none may be.
    TrailingData {
        /// Number of unread bytes.
        bytes: u64,
    },
    /// An I/O error from the underlying reader or writer.
    Io(std::io::Error),
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::UnexpectedEof => f.write_str("unexpected end of data"),
            ErrorKind::CountTooLarge {
                what,
                count,
                needed,
                remaining,
            } if count == needed => {
                write!(f, "{count} {what} expected but only {remaining} remain")
            }
            ErrorKind::CountTooLarge {
                what,
                count,
                needed,
                remaining,
            } => write!(
                f,
                "{count} {what} need {needed} bytes but only {remaining} remain"
            ),
            ErrorKind::LimitExceeded {
                what,
                requested,
                limit,
            } => write!(
                f,
                "{what} of {requested} bytes exceeds the limit of {limit} bytes"
            ),
            ErrorKind::WorkLimitExceeded {
                what,
                estimated,
                limit,
            } => write!(
                f,
                "estimated {what} of {estimated} exceeds the limit of {limit}"
            ),
            ErrorKind::UnknownFormat => f.write_str("not a known mesh format"),
            ErrorKind::UnsupportedVersion(v) => write!(f, "unsupported version {v}"),
            ErrorKind::Invalid(m) => f.write_str(m),
            ErrorKind::Inconsistent(m) => write!(f, "cannot write: {m}"),
            ErrorKind::TrailingData { bytes } => write!(f, "{bytes} unexpected trailing bytes"),
            ErrorKind::Io(e) => write!(f, "I/O error: {e}"),
        }
    }
}

/// An error reading or writing a mesh: the byte offset (when known), the structure
/// or field being processed, and the reason.
#[derive(Debug)]
pub struct Error {
    offset: Option<u64>,
    context: String,
    kind: ErrorKind,
}

impl Error {
    /// An error at a known byte offset.
    pub fn at(offset: u64, context: impl Into<String>, kind: ErrorKind) -> Self {
        Error {
            offset: Some(offset),
            context: context.into(),
            kind,
        }
    }

    /// An error without a byte offset (most write errors).
    pub fn new(context: impl Into<String>, kind: ErrorKind) -> Self {
        Error {
            offset: None,
            context: context.into(),
            kind,
        }
    }

    /// Byte offset in the input where the failing read started, if known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// The structure or field path being processed, outermost first
    /// (e.g. `FileMeshV4 › bones`). May be empty.
    pub fn context(&self) -> &str {
        &self.context
    }

    /// Why it failed.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Puts `outer` in front of the context (for errors from decoded, nested data).
    pub(crate) fn within(mut self, outer: &str) -> Self {
        self.context = if self.context.is_empty() {
            outer.to_string()
        } else {
            format!("{outer} › {}", self.context)
        };
        self
    }

    /// Moves the offset by `by` bytes (for errors from a sub-slice of the input).
    pub(crate) fn shift(&mut self, by: u64) {
        if let Some(o) = &mut self.offset {
            *o += by;
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(off) = self.offset {
            write!(f, "at byte {off} (0x{off:x})")?;
            if !self.context.is_empty() {
                write!(f, ", ")?;
            }
        }
        if !self.context.is_empty() {
            // An offset means a read; errors without one come from writing or decoding.
            if self.offset.is_some() {
                write!(f, "reading ")?;
            }
            write!(f, "{}", self.context)?;
        }
        if self.offset.is_some() || !self.context.is_empty() {
            write!(f, ": ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Caps on what reading may allocate.
///
/// Every count in a file is checked against the bytes that remain before anything is
/// allocated, so a raw value never takes much more memory than its input; capping the
/// input therefore caps the allocation. Decompressing codecs (Draco, zstd, LZ4) are
/// capped by `max_decoded_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest input accepted, in bytes.
    pub max_input_bytes: u64,
    /// Largest decompressed or decoded payload, in bytes.
    pub max_decoded_bytes: u64,
}

impl Limits {
    /// No practical limit (use for trusted input only).
    pub const UNLIMITED: Limits = Limits {
        max_input_bytes: u64::MAX,
        max_decoded_bytes: u64::MAX,
    };

    /// Refuses an input of `len` bytes over [`Limits::max_input_bytes`] (the error every
    /// reader gives: [`ErrorKind::LimitExceeded`] for `input`), for a caller that can
    /// tell the size before it has the bytes.
    pub fn check_input(&self, len: usize) -> Result<()> {
        let len = len as u64;
        if len > self.max_input_bytes {
            return Err(Error::new(
                "",
                ErrorKind::LimitExceeded {
                    what: "input",
                    requested: len,
                    limit: self.max_input_bytes,
                },
            ));
        }
        Ok(())
    }
}

impl Default for Limits {
    /// 512 MiB of input, and as much of decoded data (a decompressed or decoded
    /// payload: LZ4, zstd, Draco, STF buffers).
    fn default() -> Self {
        Limits {
            max_input_bytes: 512 << 20,
            max_decoded_bytes: 512 << 20,
        }
    }
}

/// A count in the file that asks for more bytes than remain; carried inside binrw
/// errors and turned into [`ErrorKind::CountTooLarge`].
#[derive(Debug)]
pub(crate) struct CountTooLarge {
    pub what: &'static str,
    pub count: u64,
    pub needed: u64,
    pub remaining: u64,
}

impl fmt::Display for CountTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} need {} bytes but only {} remain",
            self.count, self.what, self.needed, self.remaining
        )
    }
}

/// A value the format does not allow, carried inside binrw errors.
#[derive(Debug)]
pub(crate) struct Invalid(pub String);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A raw value that cannot be written as it stands, carried inside binrw errors.
#[derive(Debug)]
pub(crate) struct Inconsistent(pub String);

impl fmt::Display for Inconsistent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Turns a binrw error into the public error. `last_read` is the offset where the
/// most recent read started (from the reader's position tracking), used when binrw itself
/// does not know the position (I/O errors such as end of data).
pub(crate) fn from_binrw(err: binrw::Error, last_read: Option<u64>) -> Error {
    let mut path: Vec<String> = Vec::new();
    let mut err = err;
    // Unwrap backtraces, collecting the field path (binrw lists innermost first).
    loop {
        match err {
            binrw::Error::Backtrace(bt) => {
                for frame in bt.frames.iter() {
                    if let Some(p) = frame_field(frame) {
                        path.push(p);
                    }
                }
                err = *bt.error;
            }
            other => {
                err = other;
                break;
            }
        }
    }
    path.reverse();
    path.dedup();
    // An enum whose variants are chosen by `pre_assert`: the variants that did not
    // apply say `NotThisVariant`; the error is that of the variant that did (the last
    // one, when a variant falls back to the next).
    if let binrw::Error::EnumErrors {
        pos,
        variant_errors,
    } = err
    {
        let chosen = variant_errors
            .into_iter()
            .rev()
            .find(|(_, e)| !rules_out_variant(e));
        let Some((_, inner)) = chosen else {
            return Error {
                offset: Some(pos),
                context: path.join(" › "),
                kind: ErrorKind::Invalid("no variant of the enum applies here".into()),
            };
        };
        let mut e = from_binrw(inner, last_read);
        name_records(&mut e.kind, &path);
        if !path.is_empty() {
            e.context = if e.context.is_empty() {
                path.join(" › ")
            } else {
                format!("{} › {}", path.join(" › "), e.context)
            };
        }
        return e;
    }
    let context = path.join(" › ");
    match err {
        binrw::Error::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Error {
            offset: last_read,
            context,
            kind: ErrorKind::UnexpectedEof,
        },
        binrw::Error::Io(e) => Error {
            offset: last_read,
            context,
            kind: ErrorKind::Io(e),
        },
        binrw::Error::Custom { pos, err } => {
            let kind = match err.downcast::<CountTooLarge>() {
                Ok(c) => ErrorKind::CountTooLarge {
                    what: Cow::Borrowed(c.what),
                    count: c.count,
                    needed: c.needed,
                    remaining: c.remaining,
                },
                Err(err) => match err.downcast::<Inconsistent>() {
                    Ok(i) => ErrorKind::Inconsistent(i.0),
                    Err(err) => match err.downcast::<Invalid>() {
                        Ok(i) => ErrorKind::Invalid(i.0),
                        // `try_calc` boxes the binrw::Error it was given: unwrap it.
                        Err(err) => match err.downcast::<binrw::Error>() {
                            Ok(inner) => {
                                let mut e = from_binrw(*inner, last_read);
                                if e.context.is_empty() {
                                    e.context = context;
                                }
                                return e;
                            }
                            Err(err) => ErrorKind::Invalid(err.to_string()),
                        },
                    },
                },
            };
            let mut kind = kind;
            name_records(&mut kind, &path);
            // Write-side inconsistencies have no meaningful input offset.
            let offset = match kind {
                ErrorKind::Inconsistent(_) => None,
                _ => Some(pos),
            };
            Error {
                offset,
                context,
                kind,
            }
        }
        binrw::Error::AssertFail { pos, message } => Error {
            offset: Some(pos),
            context,
            kind: ErrorKind::Invalid(message),
        },
        binrw::Error::BadMagic { pos, found } => Error {
            offset: Some(pos),
            context,
            kind: ErrorKind::Invalid(format!("bad magic {found:?}")),
        },
        other => Error {
            offset: last_read,
            context,
            kind: ErrorKind::Invalid(other.to_string()),
        },
    }
}

/// A counted `Records` field says "records"; name it by its field instead
/// (`FileMeshV2.vertices` → `vertices`).
fn name_records(kind: &mut ErrorKind, path: &[String]) {
    if let ErrorKind::CountTooLarge { what, .. } = kind {
        if what == "records" {
            if let Some((_, field)) = path.last().and_then(|p| p.rsplit_once('.')) {
                *what = Cow::Owned(field.replace('_', " "));
            }
        }
    }
}

/// The error of a `pre_assert` that rules out an enum variant: the variant does not
/// apply here, which is not a failure of the data (see `error::from_binrw`).
#[derive(Debug)]
pub(crate) struct NotThisVariant;

impl std::fmt::Display for NotThisVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("variant does not apply")
    }
}

/// True for the error of a `pre_assert` that ruled an enum variant out.
fn rules_out_variant(err: &binrw::Error) -> bool {
    match err {
        binrw::Error::Backtrace(bt) => rules_out_variant(&bt.error),
        binrw::Error::Custom { err, .. } => err.is::<NotThisVariant>(),
        _ => false,
    }
}

/// Pulls `field in Struct` out of binrw's "While parsing field 'x' in Y" frames.
fn frame_field(frame: &binrw::error::BacktraceFrame) -> Option<String> {
    use binrw::error::BacktraceFrame;
    let msg = match frame {
        BacktraceFrame::Full { message, .. } => message.as_ref(),
        BacktraceFrame::Message(m) => m.as_ref(),
        BacktraceFrame::Custom(_) => return None,
    };
    let rest = msg.strip_prefix("While parsing field '")?;
    let (field, rest) = rest.split_once("' in ")?;
    // The field of a tuple variant (`Size36.self_0`) adds nothing to its parent's name.
    if field
        .strip_prefix("self_")
        .is_some_and(|n| n.parse::<u32>().is_ok())
    {
        return None;
    }
    let ty = rest.split_whitespace().next().unwrap_or(rest);
    Some(format!("{ty}.{field}"))
}
