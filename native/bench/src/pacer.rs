//! The benchmark's own throttles (`--benchmark_write_rate_limit` in bytes/s,
//! `--benchmark_read_rate_limit` in ops/s): one pacer shared by all
//! threads of a run hands out time slots in order, so the total rate holds
//! however many threads ask. Idle time earns a burst of at most
//! [`MAX_BURST`].
//!
//! Thread-safety: the only shared state is the next free slot, behind a
//! mutex held for a few arithmetic operations (never while sleeping).

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most time an idle pacer lets callers catch up.
pub const MAX_BURST: Duration = Duration::from_millis(100);

#[derive(Debug)]
pub struct Pacer {
    per_unit: f64,
    next_free: Mutex<Option<Instant>>,
}

impl Pacer {
    /// A pacer for `rate` units per second (`rate` > 0).
    pub fn new(rate: u64) -> Pacer {
        Pacer {
            per_unit: 1.0 / rate.max(1) as f64,
            next_free: Mutex::new(None),
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

    /// Waits until `units` may proceed.
    pub fn request(&self, units: u64) {
        let now = Instant::now();
        let at = self.reserve(units, now);
        if at > now {
            std::thread::sleep(at - now);
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
    fn idle_time_earns_at_most_the_burst() {
        let p = Pacer::new(1000);
        let t0 = Instant::now();
        p.reserve(1, t0);
        let later = t0 + Duration::from_secs(10);
        let slot = p.reserve(1, later);
        assert_eq!(later - slot, MAX_BURST);
    }
}
