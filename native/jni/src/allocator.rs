//! The allocator of every Rust allocation in the library (the JVM's own memory
//! is untouched): mimalloc, its 2.x line, with the purge delay of its 3.x line.
//!
//! Why mimalloc: under glibc malloc, readers slept on arena locks when a cached
//! block allocated by one thread was evicted, and so freed, by another (a
//! scheduler profile of readwhilewriting: about half of the readers' context
//! switches); see the README section "The allocator".
//!
//! Why not mimalloc 3.x, the `mimalloc` crate's default (the workspace sets
//! feature `v2`): mimalloc 3.3 makes the first thread that allocates the
//! process's main thread, gives it statically allocated state, and tears that
//! state down when the thread exits. It tells threads apart by their thread
//! pointer, which glibc hands to the next thread that reuses the dead thread's
//! cached stack: that thread is taken for the main thread and faults on the
//! torn-down state in `mi_thread_init`, at its first allocation. In this library
//! the first thread is whichever Java thread loaded it, often a pool worker that
//! later retires. mimalloc 2.x keeps the main thread's heap when that thread
//! exits; the price is that blocks the loading thread allocated, once freed by
//! other threads, are not reused until a thread with its thread pointer comes
//! along. Pinned by the Java test `NativeLoadThreadsTest` (its
//! `regression_firstCallOnAThreadThatEndedCrashedTheJvmOnTheNextThread`).
//!
//! Why the purge delay: mimalloc returns freed memory to the OS after this
//! delay. 2.x waits 10 ms, so the blocks that block-cache evictions free were
//! handed back and faulted in again all the time, and reads spent markedly more
//! system time than under 3.x, which waits 1000 ms; [`configure`] sets 1000 ms.
//! talus-bench does the same (`native/bench/src/allocator.rs`), so that its
//! figures are the library's.

#![expect(
    unsafe_code,
    reason = "mimalloc's options are set through its C functions"
)]

use std::ffi::{c_int, c_long};

#[cfg(not(miri))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` of `mi_option_e` in `mimalloc.h` (formerly
/// `mi_option_reset_delay`, the same value). The enum is mimalloc's public API:
/// retired options keep their slot as `mi_option_deprecated_*`, so values do
/// not move. `tests::purge_delay_is_option_15_of_mimalloc_2` checks it.
const MI_OPTION_PURGE_DELAY: c_int = 15;

/// The purge delay set by [`configure`], in milliseconds: mimalloc 3.x's default.
pub const PURGE_DELAY_MS: c_long = 1000;

/// Environment variables that set the purge delay; mimalloc reads them when
/// the library is loaded, and [`configure`] then leaves the delay alone.
const PURGE_DELAY_VARS: [&str; 2] = ["MIMALLOC_PURGE_DELAY", "MIMALLOC_RESET_DELAY"];

unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_option_get(option: c_int) -> c_long;
    fn mi_version() -> c_int;
}

/// Sets mimalloc's purge delay to [`PURGE_DELAY_MS`] unless the environment
/// sets it. Called once, from `JNI_OnLoad`: inside `System.load`, before any
/// other thread can run code of the library.
pub fn configure() {
    if PURGE_DELAY_VARS
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        return;
    }
    // SAFETY: mi_option_set stores a value into mimalloc's option table at a
    // valid index (MI_OPTION_PURGE_DELAY, checked by the tests); it allocates
    // nothing. Its plain store is read by allocating threads; when called from
    // JNI_OnLoad no other thread runs library code yet.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
}

/// mimalloc's current purge delay in milliseconds.
pub fn purge_delay_ms() -> c_long {
    // SAFETY: mi_option_get reads mimalloc's option table at a valid index.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
}

/// The linked mimalloc's version, e.g. 20302 for 2.3.2.
pub fn mimalloc_version() -> c_int {
    // SAFETY: mi_version returns a constant and has no preconditions.
    unsafe { mi_version() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workspace asks for the 2.x line; 3.x (the crate's default, if the
    /// feature were lost) crashes the JVM as the module comment explains.
    #[test]
    fn the_library_links_mimalloc_2() {
        let v = mimalloc_version();
        assert_eq!(v / 10_000, 2, "mimalloc version {v}");
    }

    /// Option 15 is the purge delay: mimalloc 2.x's default for it is 10 ms
    /// (its neighbours 14 and 16 default to 1 and 0), and configure() sets it.
    /// No other test sets mimalloc options.
    #[test]
    fn purge_delay_is_option_15_of_mimalloc_2() {
        if PURGE_DELAY_VARS
            .iter()
            .any(|v| std::env::var_os(v).is_some())
        {
            return;
        }
        assert_eq!(purge_delay_ms(), 10, "mimalloc 2.x's default purge delay");
        configure();
        assert_eq!(purge_delay_ms(), PURGE_DELAY_MS);
    }
}
