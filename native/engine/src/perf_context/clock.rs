//! The clock behind perf-context timers: the CPU's time-stamp counter when it
//! is invariant (read in about 9 ns on the development machine, against about
//! 28 ns for `std::time::Instant::now`, i.e. `clock_gettime` through the vDSO),
//! scaled to nanoseconds by a calibration done once per process; otherwise the
//! monotonic clock. Timers store raw readings and convert only the difference.
//!
//! The calibration (about 1 ms) runs on the first use; setting a timing level
//! with [`super::set_perf_level`] triggers it, so the first measured operation
//! does not pay it.

use std::sync::OnceLock;

static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();

#[inline]
fn clock() -> &'static quanta::Clock {
    CLOCK.get_or_init(quanta::Clock::new)
}

/// Calibrates the clock now (idempotent).
pub(super) fn warm_up() {
    clock();
}

/// A raw reading, never 0 (0 marks a timer that is off).
#[inline]
pub(super) fn now() -> u64 {
    clock().raw().max(1)
}

/// Nanoseconds between two raw readings (0 if `end` is not after `start`).
#[inline]
pub(super) fn nanos_between(start: u64, end: u64) -> u64 {
    clock().delta_as_nanos(start, end)
}
