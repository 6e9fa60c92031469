//! The benchmark's own throttles (`--benchmark_write_rate_limit` in bytes/s,
//! `--benchmark_read_rate_limit` in ops/s): one pacer shared by all
//! threads of a run hands out time slots in order, so the total rate holds
//! however many threads ask. Idle time earns a burst of at most
//! [`MAX_BURST`].
//!
//! A caller whose slot is in the future sleeps until the next boundary of a
//! [`REFILL_PERIOD`] grid at or after its slot, not until the slot itself:
//! db_bench throttles through RocksDB's rate limiter, which grants bytes
//! once per 100 ms refill, so its throttled writer runs in bursts and sleeps
//! about ten times a second. Sleeping to each slot instead (tens of
//! thousands of sleeps a second for small puts) woke the writer so often
//! that it preempted the readers of `readwhilewriting` and inflated their
//! p99 against RocksDB's at the same write rate, an artifact of the tool
//! (docs/results/db-bench.md).
//!
//! Thread-safety: the only shared state is the next free slot, behind a
//! mutex held for a few arithmetic operations (never while sleeping).

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most time an idle pacer lets callers catch up.
pub const MAX_BURST: Duration = Duration::from_millis(100);
/// Sleeps end on this grid (db_bench's rate limiter refills every 100 ms).
pub const REFILL_PERIOD: Duration = Duration::from_millis(100);

#[derive(Debug)]
pub struct Pacer {
    per_unit: f64,
    next_free: Mutex<Option<Instant>>,
    /// Origin of the refill grid.
    origin: Instant,
}

impl Pacer {
    /// A pacer for `rate` units per second (`rate` > 0).
    pub fn new(rate: u64) -> Pacer {
        Pacer {
            per_unit: 1.0 / rate.max(1) as f64,
            next_free: Mutex::new(None),
            origin: Instant::now(),
        }
    }

    /// The instant at which `units` may proceed, reserving them.
    fn reserve(&self, units: u64, now: Instant) -> Instant {
        let cost = Duration::from_secs_f64(units as f64 * self.per_unit);
        let mut next = self.next_free.lock().unwrap_or_else(|e| e.into_inner());
        let floor = now.checked_sub(MAX_BURST).unwrap_or(now);
        let slot = next.map_or(floor, |n| n.max(floor));
        *next = Some(slot + cost);
        slot
    }

    /// The first boundary of the refill grid at or after `at`.
    fn wake_at(&self, at: Instant) -> Instant {
        let period = REFILL_PERIOD.as_nanos();
        let since = at.saturating_duration_since(self.origin).as_nanos();
        let periods = since.div_ceil(period);
        self.origin + Duration::from_nanos((periods * period) as u64)
    }

    /// Waits until `units` may proceed: when their slot is in the future,
    /// until the refill boundary at or after it.
    pub fn request(&self, units: u64) {
        let now = Instant::now();
        let at = self.reserve(units, now);
        if at > now {
            let wake = self.wake_at(at);
            std::thread::sleep(wake - now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_follow_each_other_at_the_rate() {
        let p = Pacer::new(1000); // 1 ms per unit
        let t0 = Instant::now();
        let a = p.reserve(10, t0);
        let b = p.reserve(10, t0);
        let c = p.reserve(5, t0);
        assert_eq!(b - a, Duration::from_millis(10));
        assert_eq!(c - b, Duration::from_millis(10));
    }

    #[test]
    fn a_caller_ahead_of_its_slot_sleeps_to_the_next_refill_boundary() {
        let p = Pacer::new(1000);
        let o = p.origin;
        let ms = Duration::from_millis;
        assert_eq!(p.wake_at(o + ms(1)), o + ms(100));
        assert_eq!(p.wake_at(o + ms(100)), o + ms(100));
        assert_eq!(p.wake_at(o + ms(150)), o + ms(200));
        assert_eq!(p.wake_at(o), o);
    }

    #[test]
    fn the_rate_holds_over_bursts() {
        // 2,000 units/s for 300 units: about 150 ms, in 100 ms bursts.
        let p = Pacer::new(2000);
        let t0 = Instant::now();
        let mut sleeps = 0;
        for _ in 0..300 {
            let before = Instant::now();
            p.request(1);
            if before.elapsed() > Duration::from_millis(1) {
                sleeps += 1;
            }
        }
        let took = t0.elapsed();
        assert!(
            took >= Duration::from_millis(50),
            "{took:?}: faster than the rate"
        );
        assert!(sleeps <= 5, "{sleeps} sleeps: not in bursts");
    }

    #[test]
    fn idle_time_earns_at_most_the_burst() {
        let p = Pacer::new(1000);
        let t0 = Instant::now();
        p.reserve(1, t0);
        let later = t0 + Duration::from_secs(10);
        let slot = p.reserve(1, later);
        assert_eq!(later - slot, MAX_BURST);
    }
}
