//! Moving bytes between Java arrays or direct buffers and Rust slices, with
//! the bounds checked: an array region by the JVM's own copy, and before it
//! when large ([`read_region`]); a buffer region before any access. Every
//! violation is an `IndexOutOfBoundsException` naming the argument. Direct
//! buffers are reached only
//! through a [`DirectFrame`], whose rules keep views of overlapping regions
//! sound.

#![expect(
    unsafe_code,
    reason = "jbyte/u8 slice views, and direct-buffer views and copies, need pointer casts"
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

/// Regions up to this many bytes are read without asking the array's
/// length first (see [`read_region`]); for a larger `len` the length is
/// checked before room is made, so a bad length never reserves memory the
/// array could not fill.
const UNCHECKED_REGION_MAX: jint = 64 * 1024;

/// Copies `array[offset..offset+len]` into `dst` (which is resized to `len`).
///
/// A small region (the keys of every read) costs one JNI copy and its
/// exception check, through `copy_region`, straight into `dst`'s spare
/// room rather than over a zero fill.
pub fn read_region(
    env: &mut JNIEnv<'_>,
    array: &JByteArray<'_>,
    what: &str,
    offset: jint,
    len: jint,
    dst: &mut Vec<u8>,
) -> JniResult<()> {
    dst.clear();
    if !(0..=UNCHECKED_REGION_MAX).contains(&len) {
        let alen = env.get_array_length(array)?;
        check_bounds(what, alen, offset, len)?;
    }
    // `len` is non-negative here: a negative one failed the check above.
    reserve(dst, len as usize, what)?;
    // SAFETY: `dst` has room for `len` bytes (just reserved).
    unsafe { copy_region(env, array, what, offset, len, dst.as_mut_ptr())? };
    // SAFETY: the copy succeeded, so all `len` bytes are written, within
    // the capacity.
    unsafe { dst.set_len(len as usize) };
    Ok(())
}

/// Copies `array[offset..offset+len]` to `dst` with one JNI copy. The JVM
/// checks the region itself and raises `ArrayIndexOutOfBoundsException`
/// when it is out of bounds; only then is the array's length asked, the
/// JVM's exception cleared, and the error reported as [`check_bounds`]
/// words it, naming the argument. Saves the length query of a check made
/// before every copy (a JNI call per key). Pinned by
/// `TalusDBMisuseTest.regressionNativeRegionChecksNameTheArgumentOnBothCopyPaths`.
///
/// # Safety
///
/// `dst` must be valid for writes of `len` bytes when `len` is positive.
unsafe fn copy_region(
    env: &mut JNIEnv<'_>,
    array: &JByteArray<'_>,
    what: &str,
    offset: jint,
    len: jint,
    dst: *mut u8,
) -> JniResult<()> {
    if array.is_null() {
        return Err(JniError::IllegalArgument(format!(
            "{what} must not be null"
        )));
    }
    let raw = env.get_raw();
    // SAFETY: `raw` is this thread's live JNIEnv, taken from `env`.
    let Some(copy) = (unsafe { (**raw).GetByteArrayRegion }) else {
        return Err(JniError::IllegalState(
            "the JVM has no GetByteArrayRegion".to_owned(),
        ));
    };
    // SAFETY: `array` is a live, non-null local reference of this thread;
    // GetByteArrayRegion writes the `len` bytes of the region to `dst`
    // (valid for them, by this function's contract) or, out of bounds,
    // none, and raises instead.
    unsafe { copy(raw, array.as_raw(), offset, len, dst.cast::<jbyte>()) };
    if !env.exception_check()? {
        return Ok(());
    }
    // JNI allows only a few calls with an exception pending; GetArrayLength
    // is not one of them, so the JVM's exception goes first.
    env.exception_clear()?;
    let alen = env.get_array_length(array)?;
    check_bounds(what, alen, offset, len)?;
    Err(JniError::IllegalState(format!(
        "copying the {what} ({len} bytes at {offset} of {alen}) failed"
    )))
}

/// Copies `array[offset..offset+dst.len()]` into `dst`, through
/// `copy_region`.
pub fn fill_from(
    env: &mut JNIEnv<'_>,
    array: &JByteArray<'_>,
    what: &str,
    offset: jint,
    dst: &mut [u8],
) -> JniResult<()> {
    let len = jint::try_from(dst.len())
        .map_err(|_| JniError::IllegalArgument(format!("{what} is too long")))?;
    // SAFETY: `dst` is valid for writes of its whole length, `len`.
    unsafe { copy_region(env, array, what, offset, len, dst.as_mut_ptr()) }
}

/// A new Java `byte[]` holding `bytes` (the `what` of the error when it
/// cannot be one), made with two JNI calls and no exception check: a
/// value returned by a read costs three transitions into the JVM, not four
/// (each a full memory fence; profiles of gets showed the exception check
/// after the allocation as one of the larger JNI costs).
///
/// `NewByteArray` returns null exactly when it failed, with its exception
/// (an `OutOfMemoryError`) pending, which the caller's error then leaves in
/// place; `SetByteArrayRegion` of a whole new array cannot fail.
pub fn new_array<'l>(env: &mut JNIEnv<'l>, bytes: &[u8], what: &str) -> JniResult<JByteArray<'l>> {
    let len = jint::try_from(bytes.len()).map_err(|_| {
        JniError::IllegalState(format!(
            "the {what} of {} bytes does not fit a Java array",
            bytes.len()
        ))
    })?;
    let raw = env.get_raw();
    // SAFETY: `raw` is this thread's live JNIEnv, taken from `env`.
    let (Some(new), Some(set)) = (unsafe { ((**raw).NewByteArray, (**raw).SetByteArrayRegion) })
    else {
        return Err(JniError::IllegalState(
            "the JVM has no NewByteArray or SetByteArrayRegion".to_owned(),
        ));
    };
    // SAFETY: a JNI call on this thread's env with a non-negative length;
    // no exception is pending (every earlier call of this native method
    // returned without one, or the method would have returned).
    let array = unsafe { new(raw, len) };
    if array.is_null() {
        return Err(JniError::Jni(jni::errors::Error::JavaException));
    }
    // SAFETY: `array` is a live byte[] of exactly `len` elements, so the
    // region `[0, len)` is in bounds and the copy raises nothing; `bytes`
    // is valid for reads of `len` bytes and `jbyte` has `u8`'s layout.
    unsafe { set(raw, array, 0, len, bytes.as_ptr().cast::<jbyte>()) };
    // SAFETY: `array` is a local reference NewByteArray just returned to
    // this native frame.
    Ok(unsafe { JByteArray::from_raw(array) })
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

/// The direct `ByteBuffer`s of one native call: the only way this crate
/// reads or writes the memory of a direct buffer passed as an argument.
///
/// Java code may pass two views of one buffer (`buf.duplicate()`, slices,
/// the same buffer as key and value), so the regions of one call can
/// overlap, and Rust forbids a `&mut [u8]` that aliases any other live
/// reference, even one only read. Hence these rules, each enforced by the
/// types rather than by the callers' care:
///
/// 1. A [`DirectRegion`] is an address and a length, checked against the
///    buffer's capacity when resolved by [`region`](Self::region); resolving
///    makes no reference to the memory.
/// 2. Inputs are read through [`read`](Self::read): a `&[u8]` that borrows
///    the frame shared. Shared views may overlap each other.
/// 3. Outputs are written by [`write`](Self::write), a raw copy
///    ([`std::ptr::copy`]) that borrows the frame exclusively: the compiler
///    rejects a write while any view of the call is alive. So an operation
///    reads its inputs in full before its output changes a byte, the order
///    Java's heap-buffer paths follow (they copy the key to an array first).
///    No `&mut [u8]` of Java memory is ever made.
/// 4. A frame holds the call's `JNIEnv` borrowed exclusively, and its regions
///    and views carry that borrow's lifetime `'e`: while one is alive no
///    second frame can be made, so every view and write of a region goes
///    through the frame that resolved it; none outlives the native call.
///
/// What the Java caller guarantees, which no check here can: a buffer stays
/// reachable for the whole call (it is an argument, so a local reference
/// holds it and its memory is not freed), and no other thread writes a
/// region while the call reads it (buffers are not thread-safe; in Rust's
/// memory model that would be a data race on the view).
pub struct DirectFrame<'e> {
    _exclusive: std::marker::PhantomData<&'e mut ()>,
}

/// A bounds-checked region `[pos, pos+len)` of a direct buffer of the
/// [`DirectFrame`] that resolved it (see rule 1 there).
#[derive(Clone, Copy, Debug)]
pub struct DirectRegion<'e> {
    ptr: *mut u8,
    len: usize,
    _frame: std::marker::PhantomData<&'e ()>,
}

impl DirectRegion<'_> {
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty region.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<'e> DirectFrame<'e> {
    /// The frame of the native call whose environment is `env`, and `env`
    /// again, shared, for the region lookups. `env` stays borrowed
    /// exclusively as long as the frame, its regions or its views are used
    /// (rule 4).
    pub fn new<'l>(env: &'e mut JNIEnv<'l>) -> (Self, &'e JNIEnv<'l>) {
        let frame = DirectFrame {
            _exclusive: std::marker::PhantomData,
        };
        (frame, env)
    }

    /// The bytes `[pos, pos+len)` of the direct buffer `buf`, after checking
    /// that it is direct and that they lie within its capacity.
    pub fn region(
        &self,
        env: &JNIEnv<'_>,
        buf: &'e JByteBuffer<'_>,
        what: &str,
        pos: jint,
        len: jint,
    ) -> JniResult<DirectRegion<'e>> {
        let ptr = env.get_direct_buffer_address(buf).map_err(|_| {
            JniError::IllegalArgument(format!("{what} must be a direct ByteBuffer"))
        })?;
        let cap = env.get_direct_buffer_capacity(buf)?;
        let cap = jint::try_from(cap).unwrap_or(jint::MAX);
        let r = check_bounds(what, cap, pos, len)?;
        // SAFETY: `ptr` is the non-null start of the buffer's memory, `cap`
        // bytes long, and `r.start <= cap` (checked above), so the result is
        // within or one past the end of that allocation.
        let start = unsafe { ptr.add(r.start) };
        Ok(DirectRegion {
            ptr: start,
            len: r.len(),
            _frame: std::marker::PhantomData,
        })
    }

    /// The bytes of `r`, borrowed from the frame shared (rule 2).
    pub fn read(&self, r: DirectRegion<'e>) -> &[u8] {
        if r.len == 0 {
            return &[];
        }
        // SAFETY: `r` lies within a direct buffer that stays allocated for
        // the whole native call (the caller's guarantee in the type docs),
        // which outlives 'e and so this borrow of the frame. No write to it
        // happens while the view is alive: writes need the frame exclusively
        // (rule 3), and every view and write of the call's regions goes
        // through this frame (rule 4). The view is shared, so overlapping
        // views are allowed.
        unsafe { std::slice::from_raw_parts(r.ptr, r.len) }
    }

    /// Copies the first `min(src.len(), r.len())` bytes of `src` to the
    /// start of `r`, and returns that count (rule 3).
    pub fn write(&mut self, r: DirectRegion<'e>, src: &[u8]) -> usize {
        let n = src.len().min(r.len);
        // SAFETY: `src` is valid for reads of `n` bytes. `r` lies within a
        // direct buffer allocated for the whole call and writable (only a
        // get writes, and `TalusDB.get` refuses a read-only value buffer
        // before the call), and `n <= r.len`. No reference covers the
        // destination: `&mut self` means no view made by `read` is alive
        // (rule 3), and `src` is not one either, as a view borrows this
        // frame. `ptr::copy` (not `copy_nonoverlapping`) because nothing
        // here needs the two to be apart; u8 needs no alignment.
        unsafe { std::ptr::copy(src.as_ptr(), r.ptr, n) };
        n
    }

    /// A region over `len` bytes at `ptr`, for the tests of the rules
    /// without a JVM.
    #[cfg(test)]
    fn raw_region(&self, ptr: *mut u8, len: usize) -> DirectRegion<'e> {
        DirectRegion {
            ptr,
            len,
            _frame: std::marker::PhantomData,
        }
    }

    /// A frame with no JVM behind it, for the tests.
    #[cfg(test)]
    fn for_test(_exclusive: &'e mut ()) -> Self {
        DirectFrame {
            _exclusive: std::marker::PhantomData,
        }
    }
}

/// A thread's reusable key and value buffers: one thread-local, so one
/// TLS lookup per call (in a shared library each costs a call to
/// `__tls_get_addr`).
struct Buffers {
    key: Vec<u8>,
    value: Vec<u8>,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = const {
        RefCell::new(Buffers { key: Vec::new(), value: Vec::new() })
    };
}

/// Runs `f` with this thread's reusable key and value buffers (no
/// allocation per call once they have grown).
pub fn with_buffers<R>(f: impl FnOnce(&mut Vec<u8>, &mut Vec<u8>) -> R) -> R {
    BUFFERS.with(|b| {
        let b = &mut *b.borrow_mut();
        let r = f(&mut b.key, &mut b.value);
        // Do not keep huge buffers alive on the thread.
        if b.key.capacity() > 1 << 20 {
            b.key = Vec::new();
        }
        if b.value.capacity() > 4 << 20 {
            b.value = Vec::new();
        }
        r
    })
}

#[cfg(test)]
mod tests {
    //! The rules of [`DirectFrame`] on Rust memory standing in for a direct
    //! buffer. Beside `cargo test`, Miri checks the aliasing of these
    //! sequences (`cargo +nightly miri test -p talus-jni --lib bytes`).

    use super::*;

    /// Three regions of one 16-byte buffer: `[lo, lo+len)` each.
    fn regions<'e>(
        frame: &DirectFrame<'e>,
        mem: &mut [u8],
        spans: [(usize, usize); 3],
    ) -> [DirectRegion<'e>; 3] {
        let base = mem.as_mut_ptr();
        spans.map(|(lo, len)| {
            assert!(lo + len <= mem.len());
            // SAFETY: `lo + len <= mem.len()` (asserted above).
            frame.raw_region(unsafe { base.add(lo) }, len)
        })
    }

    #[test]
    fn overlapping_inputs_are_read_in_full_before_the_output_is_written() {
        let mut mem: Vec<u8> = (0..16).collect();
        let mut token = ();
        let mut frame = DirectFrame::for_test(&mut token);
        // Key [0, 8), value [4, 12), output [2, 10): all overlap.
        let [key, value, out] = regions(&frame, &mut mem, [(0, 8), (4, 8), (2, 8)]);
        let sum: Vec<u8> = {
            let (k, v) = (frame.read(key), frame.read(value));
            assert_eq!(k, &[0, 1, 2, 3, 4, 5, 6, 7]);
            assert_eq!(v, &[4, 5, 6, 7, 8, 9, 10, 11]);
            k.iter().zip(v).map(|(a, b)| a * 16 + b).collect()
        };
        assert_eq!(frame.write(out, &sum), 8);
        // A view made after the write sees the new bytes.
        assert_eq!(frame.read(key)[2..], sum[..6]);
        let mut want: Vec<u8> = (0..16).collect();
        want[2..10].copy_from_slice(&sum);
        assert_eq!(mem, want);
    }

    #[test]
    fn identical_regions_read_twice_then_written() {
        let mut mem: Vec<u8> = (0..16).collect();
        let mut token = ();
        let mut frame = DirectFrame::for_test(&mut token);
        let [a, b, out] = regions(&frame, &mut mem, [(3, 5), (3, 5), (3, 5)]);
        let joined = [frame.read(a), frame.read(b)].concat();
        assert_eq!(joined, [3, 4, 5, 6, 7, 3, 4, 5, 6, 7]);
        // Longer than the region: only what fits is written.
        let reversed: Vec<u8> = joined.iter().rev().copied().collect();
        assert_eq!(frame.write(out, &reversed), 5);
        assert_eq!(mem[..9], [0, 1, 2, 7, 6, 5, 4, 3, 8]);
        assert_eq!(mem[9..], [9, 10, 11, 12, 13, 14, 15]);
    }

    #[test]
    fn empty_regions_read_empty_and_take_nothing() {
        let mut mem: Vec<u8> = (0..16).collect();
        let mut token = ();
        let mut frame = DirectFrame::for_test(&mut token);
        let [empty, _, _] = regions(&frame, &mut mem, [(16, 0), (0, 0), (0, 0)]);
        assert!(frame.read(empty).is_empty());
        assert_eq!(frame.write(empty, b"abc"), 0);
        assert_eq!(mem, (0..16).collect::<Vec<u8>>());
    }
}
