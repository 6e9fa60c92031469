//! Moving bytes between Java arrays or direct buffers and Rust slices, with
//! the bounds checked before any copy.

#![expect(
    unsafe_code,
    reason = "jbyte/u8 slice views and direct-buffer slices need pointer casts"
)]

use std::cell::RefCell;

use jni::JNIEnv;
use jni::objects::{JByteArray, JByteBuffer};
use jni::sys::{jbyte, jint};

use crate::error::{JniError, JniResult, check_bounds};

/// Views a `u8` slice as `jbyte` (`i8`) for the JNI region calls.
pub fn as_jbytes_mut(b: &mut [u8]) -> &mut [jbyte] {
    // SAFETY: u8 and i8 have the same size and alignment and every bit
    // pattern is valid for both; the length and lifetime are carried over.
    unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast::<jbyte>(), b.len()) }
}

/// Views a `u8` slice as `jbyte` (`i8`).
pub fn as_jbytes(b: &[u8]) -> &[jbyte] {
    // SAFETY: as in `as_jbytes_mut`, for a shared slice.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<jbyte>(), b.len()) }
}

/// Copies `array[offset..offset+len]` into `dst` (which is resized to `len`).
pub fn read_region(
    env: &mut JNIEnv<'_>,
    array: &JByteArray<'_>,
    what: &str,
    offset: jint,
    len: jint,
    dst: &mut Vec<u8>,
) -> JniResult<()> {
    let alen = env.get_array_length(array)?;
    let r = check_bounds(what, alen, offset, len)?;
    dst.clear();
    reserve(dst, r.len(), what)?;
    dst.resize(r.len(), 0);
    env.get_byte_array_region(array, offset, as_jbytes_mut(dst))?;
    Ok(())
}

/// Makes room for `n` bytes in `dst`, or fails with [`JniError::OutOfMemory`]
/// naming `what`, where a plain allocation failure would abort the process.
pub fn reserve(dst: &mut Vec<u8>, n: usize, what: &str) -> JniResult<()> {
    dst.try_reserve_exact(n.saturating_sub(dst.len()))
        .map_err(|_| {
            JniError::OutOfMemory(format!(
                "cannot allocate {n} bytes of native memory for the {what}"
            ))
        })
}

/// Makes room for `additional` more elements in `v` (amortized growth, as
/// `Vec::reserve`), or fails with [`JniError::OutOfMemory`] naming `what`.
pub fn try_grow<T>(v: &mut Vec<T>, additional: usize, what: &str) -> JniResult<()> {
    v.try_reserve(additional).map_err(|_| {
        JniError::OutOfMemory(format!(
            "cannot allocate native memory for {what} ({} elements)",
            v.len().saturating_add(additional)
        ))
    })
}

/// Copies a whole Java array into `dst`.
pub fn read_all(env: &mut JNIEnv<'_>, array: &JByteArray<'_>, dst: &mut Vec<u8>) -> JniResult<()> {
    let alen = env.get_array_length(array)?;
    read_region(env, array, "array", 0, alen, dst)
}

/// Fills `dst` (exactly `len` bytes) from `array[offset..offset+len]`,
/// after checking the bounds.
pub fn fill_from(
    env: &mut JNIEnv<'_>,
    array: &JByteArray<'_>,
    what: &str,
    offset: jint,
    dst: &mut [u8],
) -> JniResult<()> {
    let alen = env.get_array_length(array)?;
    let len = jint::try_from(dst.len())
        .map_err(|_| JniError::IllegalArgument(format!("{what} is too long")))?;
    check_bounds(what, alen, offset, len)?;
    env.get_byte_array_region(array, offset, as_jbytes_mut(dst))?;
    Ok(())
}

/// The bytes `[pos, pos+len)` of a direct buffer, valid for the current
/// native call (the Java caller holds the buffer).
pub fn direct_slice<'a>(
    env: &mut JNIEnv<'_>,
    buf: &JByteBuffer<'_>,
    what: &str,
    pos: jint,
    len: jint,
) -> JniResult<&'a mut [u8]> {
    let ptr = env
        .get_direct_buffer_address(buf)
        .map_err(|_| JniError::IllegalArgument(format!("{what} must be a direct ByteBuffer")))?;
    let cap = env.get_direct_buffer_capacity(buf)?;
    let cap = jint::try_from(cap).unwrap_or(jint::MAX);
    let r = check_bounds(what, cap, pos, len)?;
    if r.is_empty() {
        return Ok(&mut []);
    }
    // SAFETY: `ptr` is the start of the direct buffer's memory, valid for
    // `cap` bytes while the buffer object is reachable, which the Java caller
    // guarantees for the duration of this native call; `r` lies within
    // `0..cap` (checked above). The slice is used only within the call.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr.add(r.start), r.len()) })
}

thread_local! {
    static KEY_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static VALUE_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's reusable key and value buffers (no
/// allocation per call once they have grown).
pub fn with_buffers<R>(f: impl FnOnce(&mut Vec<u8>, &mut Vec<u8>) -> R) -> R {
    KEY_BUF.with(|k| {
        VALUE_BUF.with(|v| {
            let (mut k, mut v) = (k.borrow_mut(), v.borrow_mut());
            let r = f(&mut k, &mut v);
            // Do not keep huge buffers alive on the thread.
            if k.capacity() > 1 << 20 {
                *k = Vec::new();
            }
            if v.capacity() > 4 << 20 {
                *v = Vec::new();
            }
            r
        })
    })
}
