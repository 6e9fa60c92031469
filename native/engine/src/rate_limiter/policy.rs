//! The pure part of the rate limiter: the token bucket with its per-priority
//! queues, the refill-and-grant step, the fairness draw and the auto-tune
//! rule. No locks, threads or clocks here — the caller passes `now` and holds
//! whatever lock protects the [`Bucket`]; tests drive it from tables of cases.
//!
//! # Invariants of a [`Bucket`]
//!
//! 1. `available > 0` implies every queue is empty: a refill grants queued
//!    requests until the tokens or the queues run out, and a new request
//!    only queues after taking every available token.
//! 2. A queued request has `remaining > 0`; a request leaves its queue exactly
//!    when its last byte is granted (it is then handed to `on_grant`, once).
//! 3. Grants within one priority are FIFO; `bytes_through[p]` counts every
//!    granted byte of priority `p`, partial grants included.

use std::collections::VecDeque;

use super::IoPriority;

/// Fairness values above this behave like it (RocksDB caps fairness at 100 too).
pub const MAX_FAIRNESS: u32 = 100;

/// Refill periods between two auto-tune decisions.
pub const REFILLS_PER_TUNE: u64 = 100;

/// Bytes one refill adds: `rate × period`, at least 1 (so a tiny rate still
/// makes progress), saturating instead of overflowing.
pub fn refill_bytes(rate_bytes_per_sec: u64, refill_period_us: u64) -> u64 {
    let bytes = u128::from(rate_bytes_per_sec) * u128::from(refill_period_us) / 1_000_000;
    u64::try_from(bytes).unwrap_or(u64::MAX).max(1)
}

/// A small seeded generator (SplitMix64) for the fairness draw: deterministic
/// for a given seed, so tests can predict every refill's order.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 pseudo-random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// True with probability `1 / n` (always for `n <= 1`).
    pub fn one_in(&mut self, n: u32) -> bool {
        n <= 1 || self.next_u64().is_multiple_of(u64::from(n))
    }
}

/// The order in which one refill serves the queues: `User` always first; then
/// `High` before `Low`, except that with probability `1 / fairness` `Low` goes
/// before `High` (so low priority is never starved). One draw per refill.
pub fn service_order(fairness: u32, rng: &mut Rng) -> [IoPriority; IoPriority::COUNT] {
    if rng.one_in(fairness.min(MAX_FAIRNESS)) {
        [IoPriority::User, IoPriority::Low, IoPriority::High]
    } else {
        [IoPriority::User, IoPriority::High, IoPriority::Low]
    }
}

/// The auto-tune rule, applied every [`REFILLS_PER_TUNE`] refill periods.
///
/// `drains` is how many refill periods some request had to wait for (the
/// bucket ran dry) out of `elapsed_periods`; `drained% = drains × 100 /
/// elapsed_periods` (integer division). With `floor = max_rate / 20` (at
/// least 1):
///
/// | drained%   | new rate                                 |
/// |------------|------------------------------------------|
/// | 0          | `floor` (nobody waited: drop to the floor) |
/// | 1 – 49     | `rate × 100 / 105`, at least `floor`     |
/// | 50 – 90    | unchanged                                |
/// | 91 – 100   | `rate × 105 / 100`, at most `max_rate`   |
pub fn tuned_rate(rate: u64, max_rate: u64, drains: u64, elapsed_periods: u64) -> u64 {
    let floor = (max_rate / 20).max(1);
    let drained_pct = drains.saturating_mul(100) / elapsed_periods.max(1);
    let wide = |r: u64, num: u64, den: u64| {
        u64::try_from(u128::from(r) * u128::from(num) / u128::from(den)).unwrap_or(u64::MAX)
    };
    match drained_pct {
        0 => floor,
        1..50 => wide(rate, 100, 105).max(floor),
        50..=90 => rate,
        _ => wide(rate, 105, 100).min(max_rate),
    }
}

/// A queued request: bytes still to grant, and what to hand back when granted.
#[derive(Debug)]
struct Pending<W> {
    remaining: u64,
    waiter: W,
}

/// Token bucket plus one FIFO queue per priority. `W` identifies a waiting
/// request (the limiter uses its wake-up slot; tests use plain ids).
#[derive(Debug)]
pub struct Bucket<W> {
    /// Tokens (bytes) that can be taken without waiting.
    available: u64,
    /// Clock time of the next refill.
    pub next_refill_us: u64,
    /// Tokens one refill provides (rate × period).
    pub refill_bytes: u64,
    queues: [VecDeque<Pending<W>>; IoPriority::COUNT],
    /// Bytes granted, per priority.
    pub bytes_through: [u64; IoPriority::COUNT],
    /// Requests made (one per burst-sized chunk), per priority.
    pub requests: [u64; IoPriority::COUNT],
    rng: Rng,
}

impl<W> Bucket<W> {
    /// An empty bucket whose first refill is due at `now_us`.
    pub fn new(refill_bytes: u64, now_us: u64, seed: u64) -> Self {
        Self {
            available: 0,
            next_refill_us: now_us,
            refill_bytes: refill_bytes.max(1),
            queues: std::array::from_fn(|_| VecDeque::new()),
            bytes_through: [0; IoPriority::COUNT],
            requests: [0; IoPriority::COUNT],
            rng: Rng::new(seed),
        }
    }

    /// Tokens available right now.
    pub fn available(&self) -> u64 {
        self.available
    }

    /// Requests waiting at priority `pri`.
    pub fn queued(&self, pri: IoPriority) -> usize {
        self.queues[pri as usize].len()
    }

    /// Counts a new request of `bytes` (> 0) at `pri`, takes what the bucket
    /// holds and returns the bytes still missing (0: granted in full).
    pub fn take(&mut self, pri: IoPriority, bytes: u64) -> u64 {
        debug_assert!(self.available == 0 || self.queues.iter().all(VecDeque::is_empty));
        self.requests[pri as usize] += 1;
        let now = bytes.min(self.available);
        self.available -= now;
        self.bytes_through[pri as usize] += now;
        bytes - now
    }

    /// Queues the rest of a request after [`take`](Self::take) left `remaining` (> 0).
    pub fn enqueue(&mut self, pri: IoPriority, remaining: u64, waiter: W) {
        debug_assert!(remaining > 0 && self.available == 0);
        self.queues[pri as usize].push_back(Pending { remaining, waiter });
    }

    /// The waiter at the head of the first non-empty queue (User, High, Low).
    pub fn first_waiter(&self) -> Option<&W> {
        [IoPriority::User, IoPriority::High, IoPriority::Low]
            .into_iter()
            .find_map(|p| self.queues[p as usize].front().map(|q| &q.waiter))
    }

    /// The refill step, for `now_us >= next_refill_us`: sets the tokens to one
    /// period's worth (unused tokens do not accumulate beyond that), schedules
    /// the next refill one period after the one due (or after `now_us` when
    /// more than a period late, so an idle limiter does not owe bursts), then
    /// grants queue heads in [`service_order`]. The first request that cannot
    /// be granted in full gets a partial grant and the step ends. Each fully
    /// granted waiter is passed to `on_grant`.
    pub fn refill(
        &mut self,
        now_us: u64,
        period_us: u64,
        fairness: u32,
        mut on_grant: impl FnMut(IoPriority, W),
    ) {
        debug_assert!(now_us >= self.next_refill_us);
        self.available = self.refill_bytes;
        let due_next = self.next_refill_us.saturating_add(period_us);
        self.next_refill_us = if now_us < due_next {
            due_next
        } else {
            now_us.saturating_add(period_us)
        };
        for pri in service_order(fairness, &mut self.rng) {
            let queue = &mut self.queues[pri as usize];
            while let Some(head) = queue.front_mut() {
                if head.remaining > self.available {
                    head.remaining -= self.available;
                    self.bytes_through[pri as usize] += self.available;
                    self.available = 0;
                    return;
                }
                self.available -= head.remaining;
                self.bytes_through[pri as usize] += head.remaining;
                let done = queue.pop_front().expect("front_mut returned Some");
                on_grant(pri, done.waiter);
            }
        }
    }
}
