//! Counters split into cache-line-sized stripes so that threads adding to
//! them do not fight over one cache line (no contended atomics on hot
//! paths). Each thread adds to its own stripe, chosen once per thread;
//! readers sum all stripes, so a read is exact only when writers are quiet.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Number of stripes; a power of two larger than the core counts we target.
pub const STRIPES: usize = 16;

#[derive(Debug, Default)]
#[repr(align(64))]
struct Stripe(AtomicU64);

/// The calling thread's stripe index, fixed for the life of the thread.
#[inline]
pub fn stripe_index() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static INDEX: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    INDEX.with(|c| {
        let i = c.get();
        if i != usize::MAX {
            return i;
        }
        let i = NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES;
        c.set(i);
        i
    })
}

/// A sum spread over stripes.
#[derive(Debug, Default)]
pub struct StripedCounter {
    stripes: [Stripe; STRIPES],
}

impl StripedCounter {
    /// A zero counter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `n` on the calling thread's stripe.
    #[inline]
    pub fn add(&self, n: u64) {
        self.stripes[stripe_index()]
            .0
            .fetch_add(n, Ordering::Relaxed);
    }

    /// Subtracts `n` (wrapping inside a stripe; the sum stays right).
    #[inline]
    pub fn sub(&self, n: u64) {
        self.stripes[stripe_index()]
            .0
            .fetch_sub(n, Ordering::Relaxed);
    }

    /// The sum of all stripes.
    pub fn sum(&self) -> u64 {
        self.stripes
            .iter()
            .fold(0u64, |acc, s| acc.wrapping_add(s.0.load(Ordering::Relaxed)))
    }

    /// Returns the sum and zeroes the counter.
    pub fn take(&self) -> u64 {
        self.stripes.iter().fold(0u64, |acc, s| {
            acc.wrapping_add(s.0.swap(0, Ordering::Relaxed))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn sums_across_threads() {
        let c = Arc::new(StripedCounter::new());
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let c = c.clone();
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        c.add(3);
                    }
                    c.sub(1000);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(c.sum(), 8 * 2000);
        assert_eq!(c.take(), 16000);
        assert_eq!(c.sum(), 0);
    }
}
