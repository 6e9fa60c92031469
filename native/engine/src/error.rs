//! The one error type of the engine.
//!
//! Every fallible operation returns [`Result<T>`]. The variants mirror RocksDB's
//! status codes (the byte values of [`Code`] are those RocksJava's `Status.Code`
//! uses), so the JNI layer can hand a `Status` to Java without translation
//! tables. Decoding bytes read from disk never panics: malformed input becomes
//! [`Error::Corruption`] naming the file and offset.
//!
//! `Error` is `Clone` because a failed background job latches its error and
//! hands a copy to every writer until `resume()` or reopen.

use std::fmt;
use std::io;
use std::path::Path;

/// Result alias used across the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Status code, with RocksJava's `Status.Code` byte values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Code {
    Ok = 0,
    NotFound = 1,
    Corruption = 2,
    NotSupported = 3,
    InvalidArgument = 4,
    IoError = 5,
    Incomplete = 7,
    ShutdownInProgress = 8,
    TimedOut = 9,
    Aborted = 10,
    Busy = 11,
}

/// Status sub-code, with RocksJava's `Status.SubCode` byte values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SubCode {
    None = 0,
    LockTimeout = 2,
    NoSpace = 4,
}

/// An engine error. See the module docs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The named thing (file, property, snapshot) does not exist.
    #[error("NotFound: {0}")]
    NotFound(String),
    /// Data read back does not match what was written.
    #[error("Corruption: {reason} (file {file}, offset {offset})")]
    Corruption {
        /// File the bad bytes were read from.
        file: String,
        /// Byte offset of the bad record, block or field within that file.
        offset: u64,
        /// What was wrong.
        reason: String,
    },
    /// A feature or option value the engine does not implement.
    #[error("Not implemented: {0}")]
    NotSupported(String),
    /// The caller passed something out of range or malformed.
    #[error("Invalid argument: {0}")]
    InvalidArgument(String),
    /// An operating-system IO call failed.
    #[error("IO error: {context}: {message}")]
    Io {
        /// What the engine was doing, with the path.
        context: String,
        /// The OS error kind.
        kind: io::ErrorKind,
        /// The raw errno, when there was one.
        errno: Option<i32>,
        /// The OS error text.
        message: String,
    },
    /// A resource is held by someone else (e.g. the database lock).
    #[error("Resource busy: {0}")]
    Busy(String),
    /// The operation could not complete without waiting, and the caller asked not to wait.
    #[error("Operation incomplete: {0}")]
    Incomplete(String),
    /// The database is closing.
    #[error("Shutdown in progress: {0}")]
    ShutdownInProgress(String),
    /// The operation was stopped (e.g. a manual compaction cancelled by pausing background work).
    #[error("Operation aborted: {0}")]
    Aborted(String),
    /// The operation timed out.
    #[error("Operation timed out: {0}")]
    TimedOut(String),
}

impl Error {
    /// Builds an [`Error::Io`] from an OS error, with a context naming what was done to which path.
    pub fn io(context: impl Into<String>, err: &io::Error) -> Self {
        Error::Io {
            context: context.into(),
            kind: err.kind(),
            errno: err.raw_os_error(),
            message: err.to_string(),
        }
    }

    /// Shorthand for an IO error about `path`: `"{what} {path}"`.
    pub fn io_path(what: &str, path: &Path, err: &io::Error) -> Self {
        Self::io(format!("{what} {}", path.display()), err)
    }

    /// Builds an [`Error::Corruption`].
    pub fn corruption(file: impl fmt::Display, offset: u64, reason: impl Into<String>) -> Self {
        Error::Corruption {
            file: file.to_string(),
            offset,
            reason: reason.into(),
        }
    }

    /// The status code of this error.
    pub fn code(&self) -> Code {
        match self {
            Error::NotFound(_) => Code::NotFound,
            Error::Corruption { .. } => Code::Corruption,
            Error::NotSupported(_) => Code::NotSupported,
            Error::InvalidArgument(_) => Code::InvalidArgument,
            Error::Io { .. } => Code::IoError,
            Error::Busy(_) => Code::Busy,
            Error::Incomplete(_) => Code::Incomplete,
            Error::ShutdownInProgress(_) => Code::ShutdownInProgress,
            Error::Aborted(_) => Code::Aborted,
            Error::TimedOut(_) => Code::TimedOut,
        }
    }

    /// The status sub-code: `NoSpace` for ENOSPC/EDQUOT, `None` otherwise.
    pub fn subcode(&self) -> SubCode {
        match self {
            Error::Io { kind, errno, .. }
                if *kind == io::ErrorKind::StorageFull || matches!(errno, Some(28) | Some(122)) =>
            {
                SubCode::NoSpace
            }
            _ => SubCode::None,
        }
    }

    /// The message without the leading code name, as RocksJava's `Status.getState()` returns it.
    pub fn state(&self) -> String {
        match self {
            Error::NotFound(m)
            | Error::NotSupported(m)
            | Error::InvalidArgument(m)
            | Error::Busy(m)
            | Error::Incomplete(m)
            | Error::ShutdownInProgress(m)
            | Error::Aborted(m)
            | Error::TimedOut(m) => m.clone(),
            Error::Corruption {
                file,
                offset,
                reason,
            } => format!("{reason} (file {file}, offset {offset})"),
            Error::Io {
                context, message, ..
            } => format!("{context}: {message}"),
        }
    }

    /// True for [`Error::Corruption`].
    pub fn is_corruption(&self) -> bool {
        matches!(self, Error::Corruption { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_rocksjava_byte_values() {
        assert_eq!(Error::NotFound(String::new()).code() as u8, 1);
        assert_eq!(Error::corruption("f", 0, "x").code() as u8, 2);
        assert_eq!(Error::NotSupported(String::new()).code() as u8, 3);
        assert_eq!(Error::InvalidArgument(String::new()).code() as u8, 4);
        assert_eq!(
            Error::io("x", &io::Error::from(io::ErrorKind::Other)).code() as u8,
            5
        );
        assert_eq!(Error::Incomplete(String::new()).code() as u8, 7);
        assert_eq!(Error::ShutdownInProgress(String::new()).code() as u8, 8);
        assert_eq!(Error::TimedOut(String::new()).code() as u8, 9);
        assert_eq!(Error::Aborted(String::new()).code() as u8, 10);
        assert_eq!(Error::Busy(String::new()).code() as u8, 11);
    }

    #[test]
    fn enospc_maps_to_no_space_subcode() {
        let e = Error::io("append 000001.log", &io::Error::from_raw_os_error(28));
        assert_eq!(e.subcode(), SubCode::NoSpace);
        assert!(e.to_string().starts_with("IO error: append 000001.log"));
    }

    #[test]
    fn corruption_names_file_and_offset() {
        let e = Error::corruption("/db/000003.log", 32768, "checksum mismatch");
        assert_eq!(
            e.to_string(),
            "Corruption: checksum mismatch (file /db/000003.log, offset 32768)"
        );
        assert_eq!(
            e.state(),
            "checksum mismatch (file /db/000003.log, offset 32768)"
        );
    }
}
