//! Every raw-pointer cast between a Rust object and the Java `long` that names it.
//!
//! A Java object owning native memory (a subclass of `dev.talus.internal.NativeHandle`)
//! keeps a `long`: the address of a `Box<T>` leaked by [`into_handle`]. No other file
//! of this crate turns a `jlong` into a pointer.
//!
//! # Contract with the Java side
//!
//! 1. A handle is created once by [`into_handle`] and freed once by [`drop_handle`],
//!    which only `NativeHandle.disposeInternal` calls (its `close()` runs it exactly
//!    once).
//! 2. Every other entry point that receives a handle runs between the Java object's
//!    `acquire()` and `release()`. `close()` waits until no call is in flight before
//!    it disposes, so a handle borrowed by [`borrow_handle`] stays valid for the
//!    whole native call — never longer: do not keep the reference after the call.
//! 3. The Java side may use one object from many threads at once and may close it
//!    from any thread, so `T` must be `Send + Sync`; mutable state inside `T` needs
//!    its own synchronization (a lock, atomics).
//! 4. The same `T` is used at creation, on every borrow and on drop. A handle made
//!    from `Box<Db>` is never borrowed as another type; one Java class per `T`.

#![expect(
    unsafe_code,
    reason = "this module is where Java handles become Rust references; see the contract above"
)]

use jni::sys::jlong;

use crate::error::{JniError, JniResult};

/// Leaks `value` and returns its address as a Java `long` handle.
///
/// The result is never 0. Ownership moves to the Java object that stores it, which
/// must eventually pass it to [`drop_handle`] with the same `T`.
pub fn into_handle<T: Send + Sync + 'static>(value: Box<T>) -> jlong {
    Box::into_raw(value) as jlong
}

/// Borrows the object behind `handle` for the duration of one native call.
///
/// Returns [`JniError::IllegalState`] for a 0 handle instead of crashing the JVM.
///
/// # Safety
///
/// `handle` is 0 or was returned by [`into_handle::<T>`](into_handle) with this
/// very `T`, has not been passed to [`drop_handle`], and the Java object owning it
/// is acquired for at least `'a` (module invariant 2). The caller picks `'a`: keep
/// it within the entry point, by wrapping this in a safe function that ties `'a`
/// to the call's `JNIEnv<'a>` (the per-class wrappers such as `db::db`).
pub unsafe fn borrow_handle<'a, T: Send + Sync + 'static>(handle: jlong) -> JniResult<&'a T> {
    if handle == 0 {
        return Err(JniError::IllegalState(format!(
            "null native handle for {}",
            std::any::type_name::<T>()
        )));
    }
    // SAFETY: per this function's contract the address came from `Box::into_raw` of
    // a `Box<T>` (so it is non-null, aligned and points to an initialized `T`) and
    // the box is not freed while the Java object is acquired, which covers 'a.
    // Only shared references are ever made from a handle, and `T: Sync`.
    let value = unsafe { &*(handle as *const T) };
    Ok(value)
}

/// Frees the object behind `handle`. A 0 handle is ignored.
///
/// # Safety
///
/// `handle` is 0 or was returned by [`into_handle::<T>`](into_handle) with this
/// very `T` and is freed at most once (module invariant 1); no call borrowing it is
/// in flight (`NativeHandle.close()` waits for them before `disposeInternal`).
pub unsafe fn drop_handle<T: Send + Sync + 'static>(handle: jlong) {
    if handle == 0 {
        return;
    }
    // SAFETY: per this function's contract the address came from `Box::into_raw` of
    // a `Box<T>`, is not freed yet and no reference to it is alive, so rebuilding
    // the box and dropping it frees it exactly once.
    drop(unsafe { Box::from_raw(handle as *mut T) });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    struct Tracked {
        value: u64,
        drops: Arc<AtomicUsize>,
    }

    impl Drop for Tracked {
        fn drop(&mut self) {
            self.drops.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn handle_round_trip_borrows_then_frees_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let h = into_handle(Box::new(Tracked {
            value: 42,
            drops: Arc::clone(&drops),
        }));
        assert_ne!(h, 0);
        // SAFETY: `h` was just made from a `Box<Tracked>` and is not freed yet.
        let borrowed = unsafe { borrow_handle::<Tracked>(h) }.expect("non-null handle");
        assert_eq!(borrowed.value, 42);
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        // SAFETY: `h` came from `into_handle::<Tracked>`, is freed once, and
        // `borrowed` is not used after this point.
        unsafe { drop_handle::<Tracked>(h) };
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn null_handle_is_an_illegal_state_not_a_crash() {
        // SAFETY: 0 is explicitly allowed by the contract.
        let err = unsafe { borrow_handle::<u64>(0) }.expect_err("0 must be rejected");
        assert!(matches!(err, JniError::IllegalState(m) if m.contains("u64")));
        // SAFETY: 0 is explicitly allowed by the contract and ignored.
        unsafe { drop_handle::<u64>(0) };
    }
}
