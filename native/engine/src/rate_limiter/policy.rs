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

/// Refills between two auto-tune decisions.
pub const REFILLS_PER_TUNE: u64 = 100;

/// The longest time between two refills: 100 ms (RocksDB's default refill
/// period). A limiter configured with a longer period still refills every
/// 100 ms, each refill adding `rate × 100 ms` up to one period's worth; see
/// [`refill_interval_us`].
pub const MAX_REFILL_INTERVAL_US: u64 = 100_000;

/// Microseconds between two refills for a configured `refill_period_us`:
/// the period itself up to [`MAX_REFILL_INTERVAL_US`], that maximum above.
///
/// RocksDB refills once per period, so with a 10 s period, as some
/// importers set (`10 * 1024 * 1024` µs), a drained bucket holds
/// every flush and compaction write for up to 10.5 s, and writers stop
/// behind the flushes. Refilling every 100 ms keeps the period's meaning as
/// the largest burst (the bucket holds at most `rate × period`) and the
/// rate as the long-run bound, while a waiting write waits for its own bytes
/// at the rate rather than for the rest of the period.
pub fn refill_interval_us(refill_period_us: u64) -> u64 {
    refill_period_us.clamp(1, MAX_REFILL_INTERVAL_US)
}

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

/// The auto-tune rule, applied every [`REFILLS_PER_TUNE`] refills.
///
/// `drains` is how many refills some request had to wait for (the bucket
/// ran dry) out of `elapsed_periods` refill intervals; `drained% = drains ×
/// 100 / elapsed_periods` (integer division). With `floor = max_rate / 20` (at
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
    /// The most tokens the bucket holds: one refill period's worth (rate ×
    /// period).
    pub refill_bytes: u64,
    /// Tokens one refill interval adds (rate × interval); equal to
    /// `refill_bytes` when the period is the interval.
    pub tick_bytes: u64,
    /// When the interval the next refill pays for began (`None` before the
    /// first refill, which fills the bucket).
    interval_start_us: Option<u64>,
    queues: [VecDeque<Pending<W>>; IoPriority::COUNT],
    /// Bytes granted, per priority.
    pub bytes_through: [u64; IoPriority::COUNT],
    /// Requests made (one per burst-sized chunk), per priority.
    pub requests: [u64; IoPriority::COUNT],
    rng: Rng,
}

impl<W> Bucket<W> {
    /// An empty bucket whose first refill is due at `now_us`, refilled once
    /// per period with `refill_bytes` (RocksDB's bucket).
    pub fn new(refill_bytes: u64, now_us: u64, seed: u64) -> Self {
        Self::with_interval(refill_bytes, refill_bytes, now_us, seed)
    }

    /// An empty bucket holding at most `refill_bytes`, each refill interval
    /// adding `tick_bytes` (see [`refill_interval_us`]); the first refill,
    /// due at `now_us`, fills it.
    pub fn with_interval(refill_bytes: u64, tick_bytes: u64, now_us: u64, seed: u64) -> Self {
        let refill_bytes = refill_bytes.max(1);
        Self {
            available: 0,
            next_refill_us: now_us,
            refill_bytes,
            tick_bytes: tick_bytes.clamp(1, refill_bytes),
            interval_start_us: None,
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

    /// The refill step, for `now_us >= next_refill_us` (`interval_us` is the
    /// refill interval, [`refill_interval_us`] of the period): adds
    /// `tick_bytes` for each whole interval since the last refill's interval
    /// began (at least one; the first refill fills the bucket), never above
    /// `refill_bytes` — so when the interval is the period the bucket is set
    /// to one period's worth, as RocksDB's is, and unused tokens never pile
    /// up beyond that. Schedules the next refill one interval after the one
    /// due (or after `now_us` when more than an interval late, so an idle
    /// limiter does not owe bursts), then grants queue heads in
    /// [`service_order`]. The first request that cannot be granted in full
    /// gets a partial grant and the step ends. Each fully granted waiter is
    /// passed to `on_grant`.
    pub fn refill(
        &mut self,
        now_us: u64,
        interval_us: u64,
        fairness: u32,
        mut on_grant: impl FnMut(IoPriority, W),
    ) {
        debug_assert!(now_us >= self.next_refill_us);
        let interval_us = interval_us.max(1);
        let add = match self.interval_start_us {
            None => self.refill_bytes,
            Some(start) => {
                let intervals = (now_us.saturating_sub(start) / interval_us).max(1);
                self.tick_bytes.saturating_mul(intervals)
            }
        };
        self.available = self.available.saturating_add(add).min(self.refill_bytes);
        let due_next = self.next_refill_us.saturating_add(interval_us);
        self.next_refill_us = if now_us < due_next {
            due_next
        } else {
            now_us.saturating_add(interval_us)
        };
        self.interval_start_us = Some(self.next_refill_us.saturating_sub(interval_us));
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
