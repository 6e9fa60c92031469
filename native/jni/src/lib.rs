//! JNI glue between the `talus` engine and the `dev.talus` Java package; built as
//! the shared library `talusjni` (`libtalusjni.so`) that `dev.talus.NativeLibrary`
//! loads. This crate is the only one that knows JNI.
//!
//! # Modules
//!
//! - [`error`]: [`guard`](error::guard), the wrapper every entry point runs inside;
//!   [`JniError`](error::JniError) and the Java exception each variant becomes;
//!   argument helpers ([`require_non_null`](error::require_non_null),
//!   [`check_bounds`](error::check_bounds), [`string_arg`](error::string_arg)).
//! - [`handle`]: ALL casts between Java `long` handles and Rust objects
//!   ([`into_handle`](handle::into_handle), [`borrow_handle`](handle::borrow_handle),
//!   [`drop_handle`](handle::drop_handle)) and their safety contract.
//! - [`native_library`]: `dev.talus.NativeLibrary` (the library version).
//! - [`allocator`]: the global allocator (mimalloc 2.x) and its settings.
//! - `JNI_OnLoad` (below): sets the allocator's options and caches class and
//!   method ids once, at load.
//!
//! # Adding bindings
//!
//! One file per Java class, named after it (`db.rs` for `TalusDB`, `options.rs`
//! for `Options`, ...), declared below. In each file:
//!
//! 1. Open with `#![expect(unsafe_code, reason = "JNI entry points are found by their
//!    #[unsafe(no_mangle)] names")]`: the workspace denies `unsafe_code`, and every
//!    `unsafe` block needs a `// SAFETY:` comment (`clippy::undocumented_unsafe_blocks`
//!    is on for this crate).
//! 2. Make every `extern "system"` function exactly `guard(&mut env, |env| { ... })`,
//!    so no panic unwinds into the JVM and every error becomes a Java exception.
//!    Use `?` on `talus::Result` (becomes `TalusException` with its `Status`) and on
//!    `jni::errors::Result` (a pending Java exception is kept).
//! 3. Check reference arguments with `require_non_null(&arg, "<java param name>")?`
//!    and `(offset, len)` pairs with `check_bounds(..)?`, even where Java checked.
//!    Read a Java `String` with `string_arg(..)?`, never `get_string(..)?.into()`
//!    (which silently replaces an unpaired surrogate with U+FFFD).
//! 4. Native objects live in a `Box<T>` (`T: Send + Sync`) leaked by
//!    `into_handle`; the Java class extends `dev.talus.internal.NativeHandle`, whose
//!    `disposeInternal(long)` calls a `disposeInternal` entry point that does
//!    `drop_handle::<T>(handle)`. Every other method runs between the Java object's
//!    `acquire()` and `release()`, so `borrow_handle::<T>(handle)?` is valid for
//!    the call. Wrap it once per class in a safe function that takes the call's
//!    `&JNIEnv<'l>` and returns `&'l T` (like `db` in [`db`]), so the reference
//!    cannot outlive the call; never let the caller pick the lifetime.
//! 5. Reach a direct `ByteBuffer` argument only through a
//!    [`DirectFrame`](bytes::DirectFrame): shared views for inputs, raw copies
//!    for outputs, as two arguments may be overlapping views of one buffer.
//!    Never make a `&mut [u8]` of Java memory.
//! 6. Cross the boundary rarely: one JNI call per operation, batches and
//!    iterators that move many entries per call. Enums cross as explicit bytes.
//! 7. If a binding calls Java methods or builds Java objects, cache its classes
//!    (`GlobalRef`) and method ids once, from `JNI_OnLoad`, like [`error`] does.
//!
//! ```ignore
//! #[unsafe(no_mangle)]
//! pub extern "system" fn Java_dev_talus_TalusDB_put<'local>(
//!     mut env: JNIEnv<'local>, _this: JObject<'local>,
//!     handle: jlong, key: JByteArray<'local>, value: JByteArray<'local>,
//! ) {
//!     guard(&mut env, |env| {
//!         require_non_null(&key, "key")?;
//!         require_non_null(&value, "value")?;
//!         // SAFETY: `handle` came from into_handle::<Db>; TalusDB.put holds acquire().
//!         let db = unsafe { borrow_handle::<Db>(handle) }?;
//!         let (key, value) = (env.convert_byte_array(&key)?, env.convert_byte_array(&value)?);
//!         Ok(db.put(&key, &value)?) // talus::Error -> dev.talus.TalusException
//!     })
//! }
//! ```
//!
//! Panics are caught only because the workspace builds with `panic = "unwind"`;
//! the `compile_error!` below keeps it that way.

#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(panic = "abort")]
compile_error!(
    "talus-jni needs panic = \"unwind\": guard() turns panics into Java exceptions, \
     and with panic = \"abort\" any panic would kill the JVM"
);

pub mod allocator;
pub mod backup;
pub mod bytes;
pub mod cache;
pub mod db;
pub mod env;
pub mod error;
pub mod family;
pub mod files_out;
pub mod handle;
pub mod ingest;
pub mod iterator;
pub mod logger;
pub mod merge_operator;
pub mod native_library;
pub mod options;
pub mod packed;
pub mod perf_context;
pub mod rate_limiter;
pub mod statistics;

use std::ffi::c_void;

use jni::JavaVM;
use jni::sys::{JNI_ERR, JNI_VERSION_1_8, jint};

/// Called by the JVM from `System.load`: caches the classes and method ids the
/// bindings use, while the class loader of `dev.talus.NativeLibrary` is current.
///
/// On failure it leaves a Java exception pending (the JVM rethrows it from
/// `System.load`) and returns `JNI_ERR`.
#[unsafe(no_mangle)]
#[expect(
    unsafe_code,
    reason = "the JVM finds JNI_OnLoad by its #[unsafe(no_mangle)] name"
)]
pub extern "system" fn JNI_OnLoad(vm: JavaVM, _reserved: *mut c_void) -> jint {
    allocator::configure();
    let Ok(mut env) = vm.get_env() else {
        return JNI_ERR;
    };
    let loaded = error::catch_panic(|| Ok(error::init(&mut env)?));
    match loaded {
        Ok(()) => JNI_VERSION_1_8,
        Err(err) => {
            if !env.exception_check().unwrap_or(true) {
                let _ = env.throw_new(
                    "java/lang/UnsatisfiedLinkError",
                    format!("talusjni: JNI_OnLoad failed: {err}"),
                );
            }
            JNI_ERR
        }
    }
}
