//! A token-bucket IO rate limiter with priorities, shareable by several
//! databases: flush and compaction charge their IO to it so that background
//! work cannot take all of the disk from foreground writes and reads.
//!
//! # Model
//!
//! Tokens are bytes. With a refill period (`refill_period_us`) of up to
//! 100 ms — the default is 100 ms — every period the bucket is set to
//! `rate × period` tokens, as RocksDB's is: unused tokens do not accumulate
//! beyond one period, so after an idle spell at most one period's worth
//! passes at once. **A longer period is where we differ**: the bucket is
//! still refilled every 100 ms, each refill adding `rate × 100 ms` and the
//! bucket holding at most `rate × period`. The period thus bounds the burst
//! and the rate bounds the long run, as in RocksDB, but a request that finds
//! the bucket empty waits for its own bytes at the rate, not for the rest of
//! a period: RocksDB with an importer's 10.5 s period holds every flush
//! behind a drained bucket for up to 10.5 s, and writers stop behind the
//! flushes (see [`policy::refill_interval_us`]). [`RateLimiter::request`] blocks its caller until all
//! its bytes are granted; a request larger than
//! [`single_burst_bytes`](RateLimiter::single_burst_bytes) (default: one
//! period's tokens) is split into chunks of at most that size, each charged on
//! its own, so one huge write cannot monopolise several refills at once.
//! Requests for IO the [`RateLimiterMode`] does not cover return at once and
//! are not counted.
//!
//! A request first takes whatever tokens are there. If that is not enough it
//! joins the FIFO queue of its [`IoPriority`]. At each refill the queues are
//! served in order `User`, then `High`, `Low` — except that, with probability
//! `1 / fairness`, `Low` is served before `High` (`fairness` ≥ 1, values over
//! 100 act as 100). Serving a queue grants its head requests while tokens
//! last; the first request that does not fit gets what is left (a partial
//! grant) and waits for later refills for the rest. With every queue busy,
//! low priority therefore gets about one refill in `fairness`.
//!
//! # Waiting (no busy-wait)
//!
//! Every queued request parks on its own condition variable. One of them, the
//! *leader*, waits with a timeout until the next refill time; when it wakes it
//! refills and grants (waking each granted request). A request that finishes
//! while others are still queued wakes the head of the highest non-empty queue
//! so that there is always a leader. Each time a leader starts waiting for a
//! new refill time counts one *drain* (the bucket ran dry) — RocksDB's
//! `rocksdb.number.rate_limiter.drains`.
//!
//! # Auto-tune
//!
//! With `auto_tune`, the configured rate is a maximum: the limiter starts at
//! half of it and, every 100 refills (checked when a request arrives),
//! moves between `max / 20` and `max` according to how many of those periods
//! drained — see [`policy::tuned_rate`] for the exact table.
//! [`set_bytes_per_second`](RateLimiter::set_bytes_per_second) on an
//! auto-tuned limiter sets the maximum and clamps the current rate into the
//! new range (RocksDB sets the current rate only and keeps tuning toward the
//! old maximum; we find a new ceiling the more useful reading).
//!
//! # Thread-safety contract
//!
//! `RateLimiter` is `Send + Sync` and shared as an `Arc` (several databases
//! may use one). All bucket state lives in one `Mutex<State>`, taken once per
//! chunk (requests are IO-sized, so this lock is not on a per-key path); no
//! allocation, IO or syscall other than the condition-variable wait happens
//! under it, except the one small allocation of a queued request's slot. The
//! current rate is also kept in an atomic so readers do not take the lock.

mod clock;
mod file;
pub mod policy;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::statistics::{Statistics, Ticker};

pub use clock::{Clock, ManualClock, SystemClock};
pub use file::{CHARGE_UNIT, PriorityFn, RateLimitedFile, ReadCharger, SharedPriorityFn};
use policy::Bucket;

/// Default refill period, as RocksDB's: 100 ms.
pub const DEFAULT_REFILL_PERIOD_US: u64 = 100_000;
/// Default fairness, as RocksDB's: low priority first in 1 refill of 10.
pub const DEFAULT_FAIRNESS: i32 = 10;

/// Which IO a limiter charges. The discriminants are RocksJava's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum RateLimiterMode {
    /// Only reads are limited: the table blocks compactions read
    /// ([`ReadCharger`]).
    ReadsOnly = 0,
    /// Only writes are limited (the default): the table files flushes and
    /// compactions write ([`RateLimitedFile`]).
    #[default]
    WritesOnly = 1,
    /// Reads and writes are limited.
    AllIo = 2,
}

impl RateLimiterMode {
    /// The mode with RocksJava byte `b`, if any.
    pub fn from_byte(b: u8) -> Option<Self> {
        match b {
            0 => Some(Self::ReadsOnly),
            1 => Some(Self::WritesOnly),
            2 => Some(Self::AllIo),
            _ => None,
        }
    }

    /// True when IO of kind `op` is charged in this mode.
    pub fn covers(self, op: OpType) -> bool {
        matches!(
            (self, op),
            (Self::AllIo, _) | (Self::ReadsOnly, OpType::Read) | (Self::WritesOnly, OpType::Write)
        )
    }
}

/// The kind of IO being charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpType {
    /// A read.
    Read,
    /// A write.
    Write,
}

/// Priority of a request; see the module docs for how priorities are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum IoPriority {
    /// Compaction IO.
    Low = 0,
    /// Flush IO.
    High = 1,
    /// IO a user is waiting on right now (e.g. a flush or compaction while
    /// writes are stalled): always served first.
    User = 2,
}

impl IoPriority {
    /// Number of priorities.
    pub const COUNT: usize = 3;
    /// Every priority, lowest first.
    pub const ALL: [IoPriority; Self::COUNT] = [Self::Low, Self::High, Self::User];
}

/// The six construction parameters, for [`RateLimiter::from_config`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimiterConfig {
    /// Bytes per second; the maximum when `auto_tune`. Must be > 0.
    pub rate_bytes_per_sec: u64,
    /// Microseconds between refills. Must be > 0.
    pub refill_period_us: u64,
    /// Low priority is served first with probability `1 / fairness`. ≥ 1;
    /// values over 100 act as 100.
    pub fairness: i32,
    /// Which IO is charged.
    pub mode: RateLimiterMode,
    /// Tune the rate between `rate / 20` and `rate` (see the module docs).
    pub auto_tune: bool,
    /// Largest chunk one request is split into; 0 means one refill period's
    /// worth of tokens (and then follows rate changes).
    pub single_burst_bytes: u64,
}

impl RateLimiterConfig {
    /// RocksDB's defaults for everything but the rate.
    pub fn with_rate(rate_bytes_per_sec: u64) -> Self {
        Self {
            rate_bytes_per_sec,
            refill_period_us: DEFAULT_REFILL_PERIOD_US,
            fairness: DEFAULT_FAIRNESS,
            mode: RateLimiterMode::WritesOnly,
            auto_tune: false,
            single_burst_bytes: 0,
        }
    }

    fn validate(&self) -> Result<()> {
        if self.rate_bytes_per_sec == 0 {
            return Err(Error::InvalidArgument(
                "rate_bytes_per_sec must be positive, got 0".into(),
            ));
        }
        if self.refill_period_us == 0 {
            return Err(Error::InvalidArgument(
                "refill_period_us must be positive, got 0".into(),
            ));
        }
        if self.fairness < 1 {
            return Err(Error::InvalidArgument(format!(
                "fairness must be at least 1, got {}",
                self.fairness
            )));
        }
        Ok(())
    }
}

/// Where a queued request waits, and the flag its granter sets.
#[derive(Debug, Default)]
struct Slot {
    cv: Condvar,
    /// Written and read only under the limiter's mutex (the atomic only makes
    /// `Slot` shareable; the mutex orders the accesses).
    granted: AtomicBool,
}

/// Everything the limiter's mutex protects.
#[derive(Debug)]
struct State {
    bucket: Bucket<Arc<Slot>>,
    /// The request currently waiting for the refill time, if any.
    leader: Option<Arc<Slot>>,
    /// The refill time the last drain was counted for (a leader woken early
    /// and waiting again for the same refill is not a new drain).
    drain_counted_for: Option<u64>,
    /// Drains since the last auto-tune.
    drains_since_tune: u64,
    /// Drains ever.
    total_drains: u64,
    /// The configured rate: the ceiling when auto-tuning.
    max_rate: u64,
    /// Clock time of the last auto-tune decision.
    tuned_at_us: u64,
}

/// A token-bucket rate limiter. See the module docs.
#[derive(Debug)]
pub struct RateLimiter {
    clock: Arc<dyn Clock>,
    mode: RateLimiterMode,
    refill_period_us: u64,
    /// Time between refills: [`policy::refill_interval_us`] of the period.
    interval_us: u64,
    fairness: u32,
    auto_tune: bool,
    raw_single_burst_bytes: u64,
    /// Current rate (tuned, when auto-tuning); a copy of what `state` uses,
    /// for lock-free reads.
    rate: AtomicU64,
    state: Mutex<State>,
}

impl RateLimiter {
    /// A limiter on real time. Fails with `InvalidArgument` naming the
    /// parameter when `rate_bytes_per_sec` or `refill_period_us` is 0 or
    /// `fairness` is below 1. `single_burst_bytes` 0 means one refill
    /// period's worth of tokens.
    pub fn new(
        rate_bytes_per_sec: u64,
        refill_period_us: u64,
        fairness: i32,
        mode: RateLimiterMode,
        auto_tune: bool,
        single_burst_bytes: u64,
    ) -> Result<Arc<RateLimiter>> {
        Self::from_config(RateLimiterConfig {
            rate_bytes_per_sec,
            refill_period_us,
            fairness,
            mode,
            auto_tune,
            single_burst_bytes,
        })
    }

    /// [`RateLimiter::new`] from a [`RateLimiterConfig`].
    pub fn from_config(config: RateLimiterConfig) -> Result<Arc<RateLimiter>> {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x5EED, |d| d.as_nanos() as u64);
        Self::with_clock(config, Arc::new(SystemClock::new()), seed)
    }

    /// A limiter on `clock`, with the fairness draws seeded by `seed`: for
    /// tests and simulations that need exact, repeatable behaviour.
    pub fn with_clock(
        config: RateLimiterConfig,
        clock: Arc<dyn Clock>,
        seed: u64,
    ) -> Result<Arc<RateLimiter>> {
        config.validate()?;
        let max_rate = config.rate_bytes_per_sec;
        let rate = if config.auto_tune {
            (max_rate / 2).max(1)
        } else {
            max_rate
        };
        let now = clock.now_micros();
        let interval_us = policy::refill_interval_us(config.refill_period_us);
        let bucket = Bucket::with_interval(
            policy::refill_bytes(rate, config.refill_period_us),
            policy::refill_bytes(rate, interval_us),
            now,
            seed,
        );
        Ok(Arc::new(RateLimiter {
            clock,
            mode: config.mode,
            refill_period_us: config.refill_period_us,
            interval_us,
            fairness: u32::try_from(config.fairness)
                .unwrap_or(1)
                .min(policy::MAX_FAIRNESS),
            auto_tune: config.auto_tune,
            raw_single_burst_bytes: config.single_burst_bytes,
            rate: AtomicU64::new(rate),
            state: Mutex::new(State {
                bucket,
                leader: None,
                drain_counted_for: None,
                drains_since_tune: 0,
                total_drains: 0,
                max_rate,
                tuned_at_us: now,
            }),
        }))
    }

    /// Charges `bytes` of IO of kind `op` at priority `pri`, blocking until
    /// they are granted. Returns at once, uncounted, when the mode does not
    /// cover `op` or `bytes` is 0. Larger-than-burst requests are split (see
    /// the module docs).
    pub fn request(&self, bytes: u64, pri: IoPriority, op: OpType) {
        self.request_with_stats(bytes, pri, op, None);
    }

    /// [`request`](Self::request), also adding each drain this request causes
    /// to `stats`' `NUMBER_RATE_LIMITER_DRAINS` ticker (one limiter may serve
    /// several databases, each with its own statistics).
    pub fn request_with_stats(
        &self,
        bytes: u64,
        pri: IoPriority,
        op: OpType,
        stats: Option<&Statistics>,
    ) {
        if self.mode.covers(op) {
            self.charge(bytes, pri, stats);
        }
    }

    /// Charges `bytes` at `pri` whatever the mode — RocksJava's
    /// `RateLimiter.request(long)`, which names no operation.
    pub fn request_any(&self, bytes: u64, pri: IoPriority) {
        self.charge(bytes, pri, None);
    }

    fn charge(&self, bytes: u64, pri: IoPriority, stats: Option<&Statistics>) {
        let mut left = bytes;
        while left > 0 {
            let chunk = left.min(self.single_burst_bytes());
            self.request_chunk(chunk, pri, stats);
            left -= chunk;
        }
    }

    /// One chunk (`bytes` > 0) through the bucket: the leader/follower protocol
    /// of the module docs.
    fn request_chunk(&self, bytes: u64, pri: IoPriority, stats: Option<&Statistics>) {
        let mut st = self.state.lock();
        if self.auto_tune {
            self.maybe_tune(&mut st);
        }
        let missing = st.bucket.take(pri, bytes);
        if missing == 0 {
            return;
        }
        let slot = Arc::new(Slot::default());
        st.bucket.enqueue(pri, missing, Arc::clone(&slot));
        loop {
            let now = self.clock.now_micros();
            if now >= st.bucket.next_refill_us {
                st.bucket
                    .refill(now, self.interval_us, self.fairness, |_, granted| {
                        granted.granted.store(true, Ordering::Relaxed);
                        granted.cv.notify_one();
                    });
            } else if st.leader.is_none() {
                let deadline = st.bucket.next_refill_us;
                if st.drain_counted_for != Some(deadline) {
                    st.drain_counted_for = Some(deadline);
                    st.drains_since_tune += 1;
                    st.total_drains += 1;
                    if let Some(stats) = stats {
                        stats.record_tick(Ticker::NumberRateLimiterDrains, 1);
                    }
                }
                st.leader = Some(Arc::clone(&slot));
                let wait = self.clock.wait_time(deadline);
                if !wait.is_zero() {
                    slot.cv.wait_for(&mut st, wait);
                }
                st.leader = None;
            } else {
                slot.cv.wait(&mut st);
            }
            if slot.granted.load(Ordering::Relaxed) {
                break;
            }
        }
        // Someone must wait for the next refill on behalf of those still queued.
        if st.leader.is_none()
            && let Some(next) = st.bucket.first_waiter()
        {
            next.cv.notify_one();
        }
    }

    /// Applies the auto-tune rule when 100 refill intervals have passed.
    fn maybe_tune(&self, st: &mut State) {
        let now = self.clock.now_micros();
        let elapsed = now.saturating_sub(st.tuned_at_us);
        let window = self.interval_us.saturating_mul(policy::REFILLS_PER_TUNE);
        if elapsed < window {
            return;
        }
        let periods = elapsed.div_ceil(self.interval_us);
        let rate = policy::tuned_rate(
            self.rate.load(Ordering::Relaxed),
            st.max_rate,
            st.drains_since_tune,
            periods,
        );
        self.set_rate_locked(st, rate);
        st.drains_since_tune = 0;
        st.tuned_at_us = now;
    }

    fn set_rate_locked(&self, st: &mut State, rate: u64) {
        self.rate.store(rate, Ordering::Relaxed);
        st.bucket.refill_bytes = policy::refill_bytes(rate, self.refill_period_us);
        st.bucket.tick_bytes = self.refill_interval_bytes().min(st.bucket.refill_bytes);
    }

    /// Changes the rate at run time; the new rate applies from the next
    /// refill. With auto-tune this sets the maximum and clamps the current
    /// rate into `[rate / 20, rate]`. The waiting leader is woken to re-check.
    /// Fails with `InvalidArgument` for 0.
    pub fn set_bytes_per_second(&self, rate_bytes_per_sec: u64) -> Result<()> {
        if rate_bytes_per_sec == 0 {
            return Err(Error::InvalidArgument(
                "bytes_per_second must be positive, got 0".into(),
            ));
        }
        let mut st = self.state.lock();
        let rate = if self.auto_tune {
            st.max_rate = rate_bytes_per_sec;
            let floor = (rate_bytes_per_sec / 20).max(1);
            self.rate
                .load(Ordering::Relaxed)
                .clamp(floor, rate_bytes_per_sec)
        } else {
            rate_bytes_per_sec
        };
        self.set_rate_locked(&mut st, rate);
        if let Some(leader) = &st.leader {
            leader.cv.notify_one();
        }
        Ok(())
    }

    /// The current rate in bytes per second (the tuned rate when auto-tuning).
    pub fn bytes_per_second(&self) -> u64 {
        self.rate.load(Ordering::Relaxed)
    }

    /// The configured maximum rate: equal to [`bytes_per_second`](Self::bytes_per_second)
    /// unless auto-tuning.
    pub fn max_bytes_per_second(&self) -> u64 {
        self.state.lock().max_rate
    }

    /// Largest chunk a request is split into: the configured single burst, or
    /// one refill period's tokens at the current rate when that was 0.
    pub fn single_burst_bytes(&self) -> u64 {
        if self.raw_single_burst_bytes > 0 {
            self.raw_single_burst_bytes
        } else {
            policy::refill_bytes(self.bytes_per_second(), self.refill_period_us)
        }
    }

    /// Tokens one refill adds at the current rate: one refill period's worth,
    /// or 100 ms worth for a longer period ([`policy::refill_interval_us`]).
    pub fn refill_interval_bytes(&self) -> u64 {
        policy::refill_bytes(self.bytes_per_second(), self.interval_us)
    }

    /// Bytes granted so far at `pri`, or at every priority for `None`.
    pub fn total_bytes_through(&self, pri: Option<IoPriority>) -> u64 {
        let st = self.state.lock();
        match pri {
            Some(p) => st.bucket.bytes_through[p as usize],
            None => st.bucket.bytes_through.iter().sum(),
        }
    }

    /// Requests made so far at `pri`, or at every priority for `None`; a
    /// request split into chunks counts once per chunk.
    pub fn total_requests(&self, pri: Option<IoPriority>) -> u64 {
        let st = self.state.lock();
        match pri {
            Some(p) => st.bucket.requests[p as usize],
            None => st.bucket.requests.iter().sum(),
        }
    }

    /// Times the bucket ran dry and a request had to wait for a refill.
    pub fn total_drains(&self) -> u64 {
        self.state.lock().total_drains
    }

    /// Requests waiting at `pri` right now.
    pub fn queued(&self, pri: IoPriority) -> usize {
        self.state.lock().bucket.queued(pri)
    }

    /// Which IO this limiter charges.
    pub fn mode(&self) -> RateLimiterMode {
        self.mode
    }

    /// True when IO of kind `op` is charged ([`RateLimiterMode::covers`]).
    pub fn is_rate_limited(&self, op: OpType) -> bool {
        self.mode.covers(op)
    }

    /// Microseconds between refills.
    pub fn refill_period_us(&self) -> u64 {
        self.refill_period_us
    }

    /// The effective fairness (the configured value, at most 100).
    pub fn fairness(&self) -> u32 {
        self.fairness
    }

    /// Whether the rate is auto-tuned.
    pub fn auto_tune(&self) -> bool {
        self.auto_tune
    }
}
