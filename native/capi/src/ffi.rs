//! The boundary: every raw pointer the C caller hands in becomes a Rust
//! reference or slice here, and every byte handed out is allocated here.
//! No other module of this crate dereferences a pointer or allocates for C.
//!
//! # Contract with the caller (the conventions at the top of `talus.h`)
//!
//! 1. A handle (`talus_t*`, `talus_options_t*`, ...) is created once by a
//!    `talus_*_create` (or `talus_open*`, `talus_create_iterator*`, ...) as a
//!    leaked `Box<T>` ([`new_handle`]) and freed once by its
//!    `talus_*_destroy` ([`destroy`]). Using a handle after its destroy is
//!    undefined: C cannot tell a freed pointer from a live one.
//! 2. NULL is detected: a NULL handle, key or name is reported through
//!    `errptr` (or, for calls without one, ignored and answered with 0 or
//!    NULL), never dereferenced.
//! 3. A `(pointer, length)` pair names `length` readable bytes for the call
//!    only; nothing keeps a caller's pointer after the call returns
//!    (bounds and names are copied).
//! 4. A handle shared between threads is only ever borrowed as `&T`, and
//!    such `T` are `Sync`; the types documented as single-threaded
//!    (iterators, write batches, options while being set) are borrowed as
//!    `&mut T` and the caller must not use them from two threads at once.
//! 5. Every entry point runs inside [`guard`], which catches a panic and
//!    reports it as an error: no unwinding crosses into C.

#![expect(
    unsafe_code,
    reason = "this module is where C pointers become Rust references; see the contract above"
)]

use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use talus::Error;

/// Where a call reports its error: NULL, or a `char*` that is NULL or holds
/// an earlier message (which is then freed and replaced, as in RocksDB's C
/// API).
pub type ErrPtr = *mut *mut c_char;

/// The error of a NULL argument, named after the C parameter.
pub fn null_arg(func: &str, param: &str) -> Error {
    Error::InvalidArgument(format!("{func}: {param} is NULL"))
}

/// Runs `f` for entry point `func`. An error, or a panic (reported as
/// `Aborted` naming the entry point and the panic's message), is written to
/// `errptr` and `fallback` is returned.
pub fn guard<T>(
    func: &str,
    errptr: ErrPtr,
    fallback: T,
    f: impl FnOnce() -> Result<T, Error>,
) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            set_error(errptr, &e.to_string());
            fallback
        }
        Err(payload) => {
            let e = Error::Aborted(format!("panic in {func}: {}", panic_message(&*payload)));
            set_error(errptr, &e.to_string());
            fallback
        }
    }
}

/// [`guard`] for calls without `errptr`: a panic or error gives `fallback`.
pub fn quiet<T>(func: &str, fallback: T, f: impl FnOnce() -> Result<T, Error>) -> T {
    guard(func, std::ptr::null_mut(), fallback, f)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}

/// Stores `msg` in `*errptr` (a malloc'd C string), freeing an earlier
/// message there. Does nothing when `errptr` is NULL.
fn set_error(errptr: ErrPtr, msg: &str) {
    if errptr.is_null() {
        return;
    }
    let copy = c_string(msg);
    // SAFETY: `errptr` is non-NULL and, by the header's convention, points to a
    // `char*` the caller owns that is NULL or a message this library returned
    // (allocated by `c_string` with malloc), so freeing it is sound.
    unsafe {
        let old = *errptr;
        if !old.is_null() {
            libc::free(old.cast());
        }
        *errptr = copy;
    }
}

/// A malloc'd copy of `bytes` followed by a NUL byte (not counted), for the
/// caller to free with `talus_free`. Aborts like any Rust allocation when
/// memory is exhausted.
pub fn malloc_copy(bytes: &[u8]) -> *mut c_char {
    // SAFETY: malloc of len + 1 bytes (never 0); the result is checked
    // before use.
    let p = unsafe { libc::malloc(bytes.len() + 1) }.cast::<u8>();
    if p.is_null() {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<u8>(bytes.len() + 1).expect("layout of a byte array"),
        );
    }
    // SAFETY: `p` has room for len + 1 bytes and does not overlap `bytes`
    // (fresh allocation).
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        *p.add(bytes.len()) = 0;
    }
    p.cast()
}

/// A malloc'd C string of `s`; a NUL inside `s` is written as `\0` text so
/// that C sees the whole message.
pub fn c_string(s: &str) -> *mut c_char {
    if s.contains('\0') {
        malloc_copy(s.replace('\0', "\\0").as_bytes())
    } else {
        malloc_copy(s.as_bytes())
    }
}

/// Frees what this library allocated for the caller (`talus_free`).
///
/// # Safety
/// `p` is NULL or came from [`malloc_copy`] (or `c_string`) and is freed once.
pub unsafe fn free(p: *mut std::ffi::c_void) {
    // SAFETY: per the contract, `p` is NULL or a live malloc'd block.
    unsafe { libc::free(p) }
}

/// Leaks `v` as a handle for C (contract 1).
pub fn new_handle<T>(v: T) -> *mut T {
    Box::into_raw(Box::new(v))
}

/// Frees a handle made by [`new_handle`] (entry point `func`, a
/// `talus_*_destroy`); NULL is ignored. A panic while dropping is caught.
///
/// # Safety
/// `p` is NULL or came from [`new_handle::<T>`](new_handle) with this `T`
/// and has not been destroyed.
pub unsafe fn destroy<T>(func: &str, p: *mut T) {
    quiet(func, (), || {
        if !p.is_null() {
            // SAFETY: per the contract, `p` is a live `Box<T>` leaked by new_handle.
            drop(unsafe { Box::from_raw(p) });
        }
        Ok(())
    })
}

/// Borrows an optional handle: NULL is `None` (for setters where NULL
/// means "none", like `talus_options_set_statistics(o, NULL)`).
///
/// # Safety
/// `p` is NULL or a live handle of type `T` (contract 1).
pub unsafe fn opt_handle<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: per the contract a non-NULL `p` is a live, aligned `Box<T>`.
    unsafe { p.as_ref() }
}

/// A malloc'd array of malloc'd C strings (`talus_list_column_families`),
/// freed by [`free_string_array`].
pub fn malloc_string_array(strings: &[String]) -> Result<*mut *mut c_char, Error> {
    // SAFETY: malloc of the pointer array (at least one slot); checked below.
    let list = unsafe { libc::malloc(strings.len().max(1) * size_of::<*mut c_char>()) }
        .cast::<*mut c_char>();
    if list.is_null() {
        return Err(Error::Incomplete("out of memory for a string array".into()));
    }
    for (i, s) in strings.iter().enumerate() {
        // SAFETY: `list` has `strings.len()` slots.
        unsafe { list.add(i).write(c_string(s)) };
    }
    Ok(list)
}

/// Frees an array from [`malloc_string_array`] of `len` strings.
///
/// # Safety
/// `list` is NULL or came from `malloc_string_array` with `len` strings,
/// and is freed once.
pub unsafe fn free_string_array(list: *mut *mut c_char, len: usize) {
    if list.is_null() {
        return;
    }
    // SAFETY: per the contract `list` holds `len` malloc'd strings.
    unsafe {
        for i in 0..len {
            libc::free(list.add(i).read().cast());
        }
        libc::free(list.cast());
    }
}

/// Takes back ownership of a handle (for calls that consume it).
///
/// # Safety
/// As [`destroy`]; `p` is non-NULL.
pub unsafe fn take<T>(p: *mut T) -> T {
    // SAFETY: per the contract, `p` is a live `Box<T>` leaked by new_handle.
    *unsafe { Box::from_raw(p) }
}

/// Borrows handle `p` (C parameter `param` of `func`) for the call.
///
/// # Safety
/// `p` is NULL or a live handle of type `T` (contract 1) that no other
/// thread mutates during the call (contract 4).
pub unsafe fn handle<'a, T>(p: *const T, func: &str, param: &str) -> Result<&'a T, Error> {
    // SAFETY: per the contract a non-NULL `p` is a live, aligned `Box<T>`.
    unsafe { p.as_ref() }.ok_or_else(|| null_arg(func, param))
}

/// Borrows handle `p` mutably for the call.
///
/// # Safety
/// As [`handle`], and no other reference to `*p` exists during the call
/// (the caller does not use the handle from another thread meanwhile).
pub unsafe fn handle_mut<'a, T>(p: *mut T, func: &str, param: &str) -> Result<&'a mut T, Error> {
    // SAFETY: per the contract a non-NULL `p` is a live `Box<T>` used by
    // this call only.
    unsafe { p.as_mut() }.ok_or_else(|| null_arg(func, param))
}

/// The `len` bytes at `p`; NULL is an error even with `len` 0 (a NULL key
/// is a bug in the caller, not an empty key).
///
/// # Safety
/// A non-NULL `p` points to `len` readable bytes that stay unchanged during
/// the call (contract 3).
pub unsafe fn bytes<'a>(
    p: *const c_char,
    len: usize,
    func: &str,
    param: &str,
) -> Result<&'a [u8], Error> {
    if p.is_null() {
        return Err(null_arg(func, param));
    }
    // SAFETY: per the contract `p` points to `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) })
}

/// Like [`bytes`], but NULL with `len` 0 is the empty slice (a value).
///
/// # Safety
/// As [`bytes`].
pub unsafe fn value_bytes<'a>(
    p: *const c_char,
    len: usize,
    func: &str,
    param: &str,
) -> Result<&'a [u8], Error> {
    if p.is_null() && len == 0 {
        return Ok(&[]);
    }
    // SAFETY: forwarded contract.
    unsafe { bytes(p, len, func, param) }
}

/// An optional key: NULL means "none" (unbounded, for compact_range).
///
/// # Safety
/// As [`bytes`].
pub unsafe fn opt_bytes<'a>(p: *const c_char, len: usize) -> Option<&'a [u8]> {
    // SAFETY: forwarded contract; NULL was handled.
    (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) })
}

/// The NUL-terminated string at `p` as UTF-8 (names, property names).
///
/// # Safety
/// A non-NULL `p` points to a NUL-terminated string that stays unchanged
/// during the call.
pub unsafe fn str_arg<'a>(p: *const c_char, func: &str, param: &str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(null_arg(func, param));
    }
    // SAFETY: per the contract `p` is NUL-terminated and readable.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str().map_err(|_| {
        Error::InvalidArgument(format!(
            "{func}: {param} is not UTF-8: {}",
            c.to_string_lossy()
        ))
    })
}

/// The NUL-terminated path at `p`, taken as raw bytes (any Unix path).
///
/// # Safety
/// As [`str_arg`].
pub unsafe fn path_arg<'a>(
    p: *const c_char,
    func: &str,
    param: &str,
) -> Result<&'a std::path::Path, Error> {
    use std::os::unix::ffi::OsStrExt;
    if p.is_null() {
        return Err(null_arg(func, param));
    }
    // SAFETY: per the contract `p` is NUL-terminated and readable.
    let c = unsafe { CStr::from_ptr(p) };
    Ok(std::path::Path::new(std::ffi::OsStr::from_bytes(
        c.to_bytes(),
    )))
}

/// The `n` elements at `p` (arrays of names or handles).
///
/// # Safety
/// A non-NULL `p` points to `n` readable, initialized `T`.
pub unsafe fn array<'a, T>(
    p: *const T,
    n: usize,
    func: &str,
    param: &str,
) -> Result<&'a [T], Error> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null_arg(func, param));
    }
    // SAFETY: per the contract `p` points to `n` initialized `T`.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// Writes `v` to out-parameter `p` when it is not NULL.
///
/// # Safety
/// A non-NULL `p` is valid for a write of `T`.
pub unsafe fn out<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: per the contract `p` is writable.
        unsafe { p.write(v) }
    }
}

/// The `n` writable slots at `p` (output arrays).
///
/// # Safety
/// A non-NULL `p` points to `n` writable `T` that nothing else uses during
/// the call.
pub unsafe fn out_array<'a, T>(
    p: *mut T,
    n: usize,
    func: &str,
    param: &str,
) -> Result<&'a mut [T], Error> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(null_arg(func, param));
    }
    // SAFETY: per the contract `p` points to `n` writable `T`. A `*mut T`
    // array of pointers or integers is valid in any bit pattern we then
    // overwrite; callers only write whole elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take_message(p: *mut c_char) -> String {
        assert!(!p.is_null());
        // SAFETY: `p` is a NUL-terminated string from c_string.
        let s = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
        // SAFETY: allocated by malloc_copy, freed once here.
        unsafe { free(p.cast()) };
        s
    }

    #[test]
    fn guard_turns_a_panic_into_an_aborted_error() {
        let mut err: *mut c_char = std::ptr::null_mut();
        let v = guard("talus_test", &mut err, 7, || -> Result<i32, Error> {
            panic!("boom {}", 42)
        });
        assert_eq!(v, 7);
        let msg = take_message(err);
        assert!(
            msg.starts_with("Operation aborted: panic in talus_test: boom 42"),
            "{msg}"
        );
    }

    #[test]
    fn guard_replaces_an_earlier_message_and_keeps_it_on_success() {
        let mut err: *mut c_char = std::ptr::null_mut();
        guard("f", &mut err, (), || Err(Error::NotFound("first".into())));
        guard("f", &mut err, (), || Err(Error::Busy("second".into())));
        let ok = guard("f", &mut err, 0, || Ok(1));
        assert_eq!(ok, 1);
        assert_eq!(take_message(err), "Resource busy: second");
    }

    #[test]
    fn null_arguments_are_errors_not_dereferences() {
        // SAFETY: NULL is allowed by every helper's contract.
        unsafe {
            let e = bytes(std::ptr::null(), 0, "talus_put", "key").unwrap_err();
            assert_eq!(e.to_string(), "Invalid argument: talus_put: key is NULL");
            assert_eq!(value_bytes(std::ptr::null(), 0, "f", "v").unwrap(), b"");
            assert!(value_bytes(std::ptr::null(), 1, "f", "v").is_err());
            assert!(handle::<u8>(std::ptr::null(), "f", "db").is_err());
            assert!(str_arg(std::ptr::null(), "f", "name").is_err());
        }
    }

    #[test]
    fn a_nul_inside_a_message_is_spelled_out() {
        assert_eq!(take_message(c_string("a\0b")), "a\\0b");
    }
}
