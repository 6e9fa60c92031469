//! The C API of Talus: `libtalus.so` and `libtalus.a`, declared by
//! `include/talus.h`, which cbindgen generates from this crate
//! (`cbindgen.toml`; `tests/header.rs` fails when the committed header
//! differs from a fresh generation). The conventions every function follows
//! are written once, at the top of the header (`cbindgen.toml`, `header`).
//! This crate knows C; the engine (`talus`) knows neither C nor JNI.
//!
//! # Unsafe code: an audited spot
//!
//! The workspace denies `unsafe_code`. This crate is one of the audited
//! exceptions: a C ABI cannot be written without `#[unsafe(no_mangle)]`
//! entry points and raw pointers. The rules:
//!
//! - [`ffi`] is the only module that turns a C pointer into a Rust
//!   reference or slice, or allocates memory for C; its docs state the
//!   contract with the caller. The other modules (`options`, `db`,
//!   `observe`) call its `unsafe fn`s, each call in a block with a
//!   `// SAFETY:` comment (enforced: `clippy::undocumented_unsafe_blocks`).
//! - Every entry point is `unsafe extern "C"` when it takes a pointer (the
//!   caller has obligations: the header's conventions) and runs its body in
//!   [`ffi::guard`] or [`ffi::quiet`], which catch panics: no unwinding
//!   crosses into C. The `compile_error!` below keeps `panic = "unwind"`.
//! - Handles are `Box`es leaked to C and freed by the matching `_destroy`
//!   (or `talus_close`); shared ones (`talus_t`, caches, statistics) are
//!   only borrowed as `&T` with `T: Sync`.
//! - Values and messages handed to C are `malloc`'d ([`ffi::malloc_copy`])
//!   and freed by `talus_free` (`free(3)`), so LeakSanitizer sees them.
//!
//! The C tests (`tests/c/*.c`, run by `tests/c_api.rs`, also under
//! AddressSanitizer) call every entry point.

#![warn(clippy::undocumented_unsafe_blocks)]
#![expect(
    non_camel_case_types,
    reason = "the opaque types carry their C names (talus_t, talus_options_t, ...)"
)]
#![expect(
    clippy::missing_safety_doc,
    reason = "every entry point has the same safety contract, stated once at the top of talus.h"
)]

#[cfg(panic = "abort")]
compile_error!(
    "talus-capi needs panic = \"unwind\": ffi::guard turns panics into errors, and with \
     panic = \"abort\" any panic would kill the C program"
);

pub mod db;
pub mod ffi;
pub mod observe;
pub mod options;

use std::ffi::{CStr, c_char, c_int, c_void};

/// Frees what the library handed over: `errptr` messages, `talus_get`
/// values, property values, reports, names. NULL is ignored. Today this is
/// `free(3)`, but call `talus_free` so programs stay correct if the library
/// ever allocates otherwise.
#[unsafe(no_mangle)]
#[expect(unsafe_code, reason = "a C entry point (#[unsafe(no_mangle)])")]
pub unsafe extern "C" fn talus_free(ptr: *mut c_void) {
    // SAFETY: header conventions: `ptr` is NULL or a block this library
    // allocated for the caller, freed once.
    unsafe { ffi::free(ptr) }
}

/// The library version ("0.1.0"), a static string.
#[unsafe(no_mangle)]
#[expect(unsafe_code, reason = "a C entry point (#[unsafe(no_mangle)])")]
pub extern "C" fn talus_version() -> *const c_char {
    const V: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the version has no NUL"),
        };
    V.as_ptr()
}

/// Status code: success (never in a message).
pub const TALUS_OK: c_int = 0;
/// Status code: not found.
pub const TALUS_NOT_FOUND: c_int = 1;
/// Status code: corruption (the message names the file and offset).
pub const TALUS_CORRUPTION: c_int = 2;
/// Status code: not implemented.
pub const TALUS_NOT_SUPPORTED: c_int = 3;
/// Status code: invalid argument (NULL handles and keys among them).
pub const TALUS_INVALID_ARGUMENT: c_int = 4;
/// Status code: IO error.
pub const TALUS_IO_ERROR: c_int = 5;
/// Status code: incomplete (a write that would stall with no_slowdown, a
/// read that needs IO in the block-cache tier).
pub const TALUS_INCOMPLETE: c_int = 7;
/// Status code: the database is closing.
pub const TALUS_SHUTDOWN_IN_PROGRESS: c_int = 8;
/// Status code: timed out.
pub const TALUS_TIMED_OUT: c_int = 9;
/// Status code: aborted (also a Rust panic caught at the boundary).
pub const TALUS_ABORTED: c_int = 10;
/// Status code: busy (the database lock is held).
pub const TALUS_BUSY: c_int = 11;

/// The messages' leading words per code: the engine's error texts, which
/// are RocksDB's `Status::ToString` prefixes.
const PREFIXES: &[(&str, c_int)] = &[
    ("NotFound: ", TALUS_NOT_FOUND),
    ("Corruption: ", TALUS_CORRUPTION),
    ("Not implemented: ", TALUS_NOT_SUPPORTED),
    ("Invalid argument: ", TALUS_INVALID_ARGUMENT),
    ("IO error: ", TALUS_IO_ERROR),
    ("Operation incomplete: ", TALUS_INCOMPLETE),
    ("Shutdown in progress: ", TALUS_SHUTDOWN_IN_PROGRESS),
    ("Operation timed out: ", TALUS_TIMED_OUT),
    ("Operation aborted: ", TALUS_ABORTED),
    ("Resource busy: ", TALUS_BUSY),
];

/// The status code (`TALUS_*`, RocksDB's `Status::Code` numbers) of an
/// error message from `errptr`: programs branch on this, not on the text.
/// `TALUS_OK` for NULL; -1 for a string that is not a Talus message.
#[unsafe(no_mangle)]
#[expect(unsafe_code, reason = "a C entry point (#[unsafe(no_mangle)])")]
pub unsafe extern "C" fn talus_error_code(errmsg: *const c_char) -> c_int {
    ffi::quiet("talus_error_code", -1, || {
        if errmsg.is_null() {
            return Ok(TALUS_OK);
        }
        // SAFETY: header conventions: a non-NULL `errmsg` is a C string.
        let msg = unsafe { CStr::from_ptr(errmsg) }.to_bytes();
        Ok(PREFIXES
            .iter()
            .find(|(p, _)| msg.starts_with(p.as_bytes()))
            .map_or(-1, |&(_, c)| c))
    })
}

/// Compression: none.
pub const TALUS_COMPRESSION_NONE: c_int = 0;
/// Compression: Snappy.
pub const TALUS_COMPRESSION_SNAPPY: c_int = 1;
/// Compression: LZ4 (the default).
pub const TALUS_COMPRESSION_LZ4: c_int = 4;
/// Compression: ZSTD.
pub const TALUS_COMPRESSION_ZSTD: c_int = 7;
/// For `talus_options_set_bottommost_compression`: use `compression`.
pub const TALUS_COMPRESSION_DISABLE: c_int = 0x7f;

/// WAL recovery: drop an incomplete record at the end of the last log (the
/// default).
pub const TALUS_WAL_RECOVERY_TOLERATE_CORRUPTED_TAIL_RECORDS: c_int = 0;
/// WAL recovery: fail on any corruption.
pub const TALUS_WAL_RECOVERY_ABSOLUTE_CONSISTENCY: c_int = 1;
/// WAL recovery: stop at the first corruption, keeping what precedes it.
pub const TALUS_WAL_RECOVERY_POINT_IN_TIME: c_int = 2;
/// WAL recovery: skip corrupt records.
pub const TALUS_WAL_RECOVERY_SKIP_ANY_CORRUPTED_RECORDS: c_int = 3;

#[cfg(test)]
#[expect(unsafe_code, reason = "the tests call C entry points")]
mod tests {
    use std::ffi::CString;

    use talus::{Code, Error};

    use super::*;

    /// `talus_error_code` reads back the code of every engine error from
    /// its message: the prefixes above must follow the engine's texts.
    #[test]
    fn error_code_reads_every_engine_code_back_from_its_message() {
        let io = std::io::Error::from(std::io::ErrorKind::Other);
        let errors = [
            Error::NotFound("x".into()),
            Error::corruption("f", 1, "bad"),
            Error::NotSupported("x".into()),
            Error::InvalidArgument("x".into()),
            Error::io("x", &io),
            Error::Busy("x".into()),
            Error::Incomplete("x".into()),
            Error::ShutdownInProgress("x".into()),
            Error::Aborted("x".into()),
            Error::TimedOut("x".into()),
        ];
        for e in errors {
            let msg = CString::new(e.to_string()).unwrap();
            // SAFETY: a valid C string.
            let code = unsafe { talus_error_code(msg.as_ptr()) };
            assert_eq!(code, e.code() as c_int, "{e}");
        }
        assert_eq!(Code::Ok as c_int, TALUS_OK);
        // SAFETY: NULL and a valid C string.
        unsafe {
            assert_eq!(talus_error_code(std::ptr::null()), TALUS_OK);
            assert_eq!(talus_error_code(c"something else".as_ptr()), -1);
        }
    }

    #[test]
    fn compression_constants_are_the_engine_bytes() {
        use talus::options::{CompressionType, DISABLE_COMPRESSION_OPTION};
        assert_eq!(CompressionType::None as c_int, TALUS_COMPRESSION_NONE);
        assert_eq!(CompressionType::Snappy as c_int, TALUS_COMPRESSION_SNAPPY);
        assert_eq!(CompressionType::Lz4 as c_int, TALUS_COMPRESSION_LZ4);
        assert_eq!(CompressionType::Zstd as c_int, TALUS_COMPRESSION_ZSTD);
        assert_eq!(
            c_int::from(DISABLE_COMPRESSION_OPTION),
            TALUS_COMPRESSION_DISABLE
        );
    }
}
