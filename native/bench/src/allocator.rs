//! talus-bench's allocator, set up as the JNI library's (see
//! `native/jni/src/allocator.rs` for the reasons): mimalloc 2.x (the workspace
//! sets feature `v2`) with a purge delay of 1000 ms, so that the benchmark's
//! figures are the library's. glibc malloc made readers sleep on its arena
//! locks (a cache block allocated by one thread and evicted, so freed, by
//! another), see the README section on the allocator.

#![expect(
    unsafe_code,
    reason = "mimalloc's options are set through its C functions"
)]

use std::ffi::{c_int, c_long};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in `mimalloc.h`; see the JNI library's copy, whose
/// tests check the value.
const MI_OPTION_PURGE_DELAY: c_int = 15;

/// The purge delay set by [`configure`], in milliseconds, as the JNI library's.
const PURGE_DELAY_MS: c_long = 1000;

unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
}

/// Sets mimalloc's purge delay to [`PURGE_DELAY_MS`] unless the environment
/// sets it (`MIMALLOC_PURGE_DELAY`, or its old name `MIMALLOC_RESET_DELAY`,
/// which mimalloc reads at start-up). Called first in `main`, before any
/// other thread exists.
pub fn configure() {
    if ["MIMALLOC_PURGE_DELAY", "MIMALLOC_RESET_DELAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        return;
    }
    // SAFETY: mi_option_set stores a value into mimalloc's option table at a
    // valid index and allocates nothing; no other thread runs yet.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
}
