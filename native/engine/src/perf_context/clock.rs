//! The clock behind perf-context timers: the CPU's time-stamp counter when it
//! is invariant (several times cheaper to read than `std::time::Instant::now`,
//! i.e. `clock_gettime` through the vDSO; docs/results/perf-context-overhead.md),
//! scaled to nanoseconds by a calibration done once per process; otherwise the
//! monotonic clock (whose ticks are nanoseconds). Timers accumulate raw ticks;
//! a context is converted to nanoseconds when it is read.
//!
//! The calibration (a short busy wait, once per process) runs on the first
//! use; opening a database and setting a timing level with
//! [`super::set_perf_level`] trigger it, so no write or measured operation
//! pays it.

use std::sync::OnceLock;

static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();

#[inline]
fn clock() -> &'static quanta::Clock {
    CLOCK.get_or_init(quanta::Clock::new)
}

/// Calibrates the clock now (idempotent).
pub(crate) fn warm_up() {
    clock();
}

/// A raw reading, never 0 (0 marks a timer that is off).
#[inline]
pub(crate) fn now() -> u64 {
    clock().raw().max(1)
}

/// Clock ticks between two raw readings (0 if `end` is not after `start`,
/// as when a thread moved to a core whose counter lags). Timers add ticks;
/// reading a context converts them ([`ticks_to_nanos`]), so the hot path
/// never scales.
#[inline(always)]
pub(super) fn ticks_between(start: u64, end: u64) -> u64 {
    end.saturating_sub(start)
}

/// Nanoseconds in `ticks` clock ticks.
pub(crate) fn ticks_to_nanos(ticks: u64) -> u64 {
    if ticks == 0 {
        return 0; // without touching (and calibrating) the clock
    }
    clock().delta_as_nanos(0, ticks)
}

/// Nanoseconds from the raw reading `start` to now, 0 if now is not after
/// it ([`ticks_between`]): for the statistics' histogram timers and the
/// write gate, which keep raw readings and convert each interval at once.
#[inline]
pub(crate) fn nanos_since(start: u64) -> u64 {
    ticks_to_nanos(ticks_between(start, now()))
}

/// Clock ticks in `nanos` nanoseconds (for durations measured elsewhere).
pub(super) fn nanos_to_ticks(nanos: u64) -> u64 {
    if nanos == 0 {
        return 0;
    }
    const PROBE: u64 = 1 << 32;
    let nanos_per_probe = clock().delta_as_nanos(0, PROBE).max(1);
    (u128::from(nanos) * u128::from(PROBE) / u128::from(nanos_per_probe)) as u64
}
