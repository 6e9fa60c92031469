//! The time source of a [`RateLimiter`](super::RateLimiter): real time in
//! production, a hand-driven clock in tests so that token arithmetic and
//! fairness can be checked without sleeping.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A monotonic microsecond clock, and how long to block until it reaches a time.
///
/// The limiter never sleeps on its own: a thread waiting for the next refill
/// blocks on a condition variable for [`wait_time`](Clock::wait_time), then
/// reads [`now_micros`](Clock::now_micros) again. A clock whose time does not
/// follow real time returns a short (or zero) wait and the waiter re-checks.
pub trait Clock: Send + Sync + fmt::Debug + 'static {
    /// Microseconds since an arbitrary fixed origin; never decreases.
    fn now_micros(&self) -> u64;

    /// Real time a thread should block, at most, before it looks at the clock
    /// again because it waits for the clock to read `deadline_us`. Waiters are
    /// also woken early by notifications, so returning less is always safe.
    fn wait_time(&self, deadline_us: u64) -> Duration;
}

/// Real monotonic time ([`Instant`]), counted from when the clock was made.
#[derive(Debug)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    /// A clock reading 0 now.
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now_micros(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn wait_time(&self, deadline_us: u64) -> Duration {
        Duration::from_micros(deadline_us.saturating_sub(self.now_micros()))
    }
}

/// A clock that moves only when told to: for deterministic tests of anything
/// that takes a [`Clock`].
///
/// In *manual* mode ([`ManualClock::new`]) time moves only by
/// [`advance`](Self::advance) / [`set`](Self::set); a limiter waiting on it
/// re-reads the clock every [`ManualClock::POLL`] of real time. In
/// *auto-advance* mode ([`ManualClock::auto_advance`]) a wait jumps the clock
/// straight to its deadline and returns at once, so a single thread can run
/// through many refill periods instantly with exact arithmetic.
#[derive(Debug)]
pub struct ManualClock {
    now_us: AtomicU64,
    auto_advance: bool,
}

impl ManualClock {
    /// Real time a waiter blocks between looks at a manual clock.
    pub const POLL: Duration = Duration::from_micros(200);

    /// A manual clock reading `start_us`.
    pub fn new(start_us: u64) -> Self {
        Self {
            now_us: AtomicU64::new(start_us),
            auto_advance: false,
        }
    }

    /// A clock reading `start_us` that jumps to any deadline it is asked to wait for.
    pub fn auto_advance(start_us: u64) -> Self {
        Self {
            now_us: AtomicU64::new(start_us),
            auto_advance: true,
        }
    }

    /// Moves the clock forward by `us` microseconds.
    pub fn advance(&self, us: u64) {
        self.now_us.fetch_add(us, Ordering::SeqCst);
    }

    /// Moves the clock to `us`, if that is later than now (it never goes back).
    pub fn set(&self, us: u64) {
        self.now_us.fetch_max(us, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_micros(&self) -> u64 {
        self.now_us.load(Ordering::SeqCst)
    }

    fn wait_time(&self, deadline_us: u64) -> Duration {
        if self.auto_advance {
            self.set(deadline_us);
            Duration::ZERO
        } else {
            Self::POLL
        }
    }
}
