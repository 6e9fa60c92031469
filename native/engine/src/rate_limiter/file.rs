//! [`RateLimitedFile`]: a [`WritableFile`] whose appends are charged to a
//! [`RateLimiter`] before they reach the wrapped file — how flush and
//! compaction output is throttled without the table builder knowing — and
//! [`ReadCharger`], which charges the block reads of compactions to a
//! limiter whose mode covers reads (`ReadsOnly`, `AllIo`).

use std::sync::Arc;

use super::{IoPriority, OpType, RateLimiter};
use crate::error::Result;
use crate::fs::WritableFile;
use crate::statistics::Statistics;

/// Wraps a [`WritableFile`] so that every appended byte is granted by a
/// [`RateLimiter`] (as a write, at the wrapper's priority).
///
/// Appends are charged in units of [`CHARGE_UNIT`] (more at high priority,
/// below; never more than the limiter's single burst): bytes are counted as they are appended, and
/// the append that brings the count to a unit first waits for the whole
/// count to be granted; `flush`, `sync` and `into_inner` charge what is
/// left. So at most one unit is appended ahead of its grant, and a file
/// dropped without a flush leaves at most one unit uncharged. An append
/// larger than the single burst is cut into burst-sized pieces, each
/// charged and then appended, so the bytes reach the inner file (and, once
/// it flushes, the disk) at the limited pace rather than in one lump after
/// a long wait. When the limiter's mode does not cover writes, everything
/// passes straight through.
///
/// Why units and not one request per append: a table is appended one block
/// (about 4 KiB) at a time, and a writer that asks for 4 KiB at a time is
/// rarely the one waiting in the queue when a refill is served, so between
/// refills flushes and compactions took tokens first come, first served and
/// a flush got one share in five beside four compactions, whatever its
/// priority (a flush crawled under a limiter while writes were stopped
/// waiting for it). With units the bucket drains within a refill and
/// the queued requests are granted in priority order. RocksDB's file writer
/// asks for its 1 MiB buffer at a time.
///
/// At `High` or `User` priority (a flush, or work releasing a write stall)
/// the unit is a whole refill's worth when that is more: a writer has one
/// request waiting at a time, and a refill serves each queued request in
/// priority order, so with 1 MiB units a flush got one unit per refill and
/// the compactions' queued units the rest (flushes got a fraction of the
/// limiter's rate while writes were held). Asking for the refill, it is
/// granted the refill, and compactions the refills the flush leaves (and
/// one in `fairness`, when low priority is served first).
pub struct RateLimitedFile {
    inner: Box<dyn WritableFile>,
    limiter: Arc<RateLimiter>,
    priority: IoPriority,
    /// When set, asked for the priority of each charge instead of `priority`.
    priority_fn: Option<PriorityFn>,
    stats: Option<Arc<Statistics>>,
    /// Bytes appended and not yet charged (less than one unit between calls).
    owed: u64,
}

/// The unit a [`RateLimitedFile`] charges at `Low` priority, and the least
/// at `High` or `User`: 1 MiB, RocksDB's default
/// `writable_file_max_buffer_size`.
pub const CHARGE_UNIT: u64 = 1 << 20;

/// Decides the priority of a [`RateLimitedFile`]'s writes at the moment
/// (e.g. from whether writes are stalled right now). Called for each append
/// and each charge, outside the limiter's lock: it should be a few atomic
/// loads.
pub type PriorityFn = Box<dyn Fn() -> IoPriority + Send>;

impl RateLimitedFile {
    /// Charges appends to `inner` at `priority`: [`IoPriority::High`] for
    /// flush output, [`IoPriority::Low`] for compaction output.
    pub fn new(
        inner: Box<dyn WritableFile>,
        limiter: Arc<RateLimiter>,
        priority: IoPriority,
    ) -> Self {
        Self {
            inner,
            limiter,
            priority,
            priority_fn: None,
            stats: None,
            owed: 0,
        }
    }

    /// Makes each charge at the priority `f` returns at that moment, so a
    /// job that started before a write stall is served as the stall demands
    /// (the fixed priority is then unused).
    pub fn with_priority_fn(mut self, f: PriorityFn) -> Self {
        self.priority_fn = Some(f);
        self
    }

    /// Also counts the limiter drains these appends cause in `stats`.
    pub fn with_statistics(mut self, stats: Option<Arc<Statistics>>) -> Self {
        self.stats = stats;
        self
    }

    /// Changes the priority of later appends (e.g. to [`IoPriority::User`]
    /// while writes are stalled behind this job).
    pub fn set_priority(&mut self, priority: IoPriority) {
        self.priority = priority;
    }

    /// The priority the next charge is made at.
    pub fn priority(&self) -> IoPriority {
        self.priority_fn.as_ref().map_or(self.priority, |f| f())
    }

    /// Charges what is owed, then unwraps the inner file.
    pub fn into_inner(mut self) -> Box<dyn WritableFile> {
        self.settle();
        self.inner
    }

    /// Bytes appended and not yet charged.
    pub fn owed(&self) -> u64 {
        self.owed
    }

    /// Bytes charged at a time: [`charge_unit`] at the moment's priority.
    fn unit(&self) -> u64 {
        charge_unit(&self.limiter, self.priority())
    }

    /// Waits until the owed bytes are granted.
    fn settle(&mut self) {
        if self.owed > 0 {
            let pri = self.priority();
            self.limiter
                .request_with_stats(self.owed, pri, OpType::Write, self.stats.as_deref());
            self.owed = 0;
        }
    }
}

impl WritableFile for RateLimitedFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if !self.limiter.is_rate_limited(OpType::Write) {
            return self.inner.append(data);
        }
        let burst = self.limiter.single_burst_bytes().max(1);
        for piece in data.chunks(usize::try_from(burst).unwrap_or(usize::MAX)) {
            self.owed += piece.len() as u64;
            if self.owed >= self.unit() {
                self.settle();
            }
            self.inner.append(piece)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.settle();
        self.inner.flush()
    }

    fn sync(&mut self) -> Result<()> {
        self.settle();
        self.inner.sync()
    }

    fn sync_written(&mut self) -> Result<()> {
        // Writes nothing: the bytes written out were charged as they went.
        self.inner.sync_written()
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn preallocate(&mut self, len: u64) {
        self.inner.preallocate(len)
    }
}

/// Bytes charged to `limiter` at a time at priority `pri`: [`CHARGE_UNIT`],
/// or one refill's worth at `High` or `User` priority when that is more
/// ([`RateLimitedFile`] says why); never more than the single burst, the
/// most one request may ask for.
fn charge_unit(limiter: &RateLimiter, pri: IoPriority) -> u64 {
    let unit = if pri >= IoPriority::High {
        limiter.refill_interval_bytes().max(CHARGE_UNIT)
    } else {
        CHARGE_UNIT
    };
    unit.min(limiter.single_burst_bytes().max(1))
}

/// Decides the priority of a compaction's reads at the moment; shared by
/// every table reader of a database, so `Sync`.
pub type SharedPriorityFn = Arc<dyn Fn() -> IoPriority + Send + Sync>;

thread_local! {
    /// Bytes this thread has been granted for reads and not yet read, and
    /// the limiter that granted them (its address; credit from another
    /// limiter is dropped). See [`ReadCharger::charge`].
    static READ_CREDIT: std::cell::Cell<(usize, u64)> = const { std::cell::Cell::new((0, 0)) };
}

/// Charges block reads from table files to a [`RateLimiter`] whose mode
/// covers reads, as RocksDB does in its `kReadsOnly` and `kAllIo` modes:
/// the reads of compaction inputs are charged at the priority the
/// compaction's writes would have at the moment (`Low`, or `User` while
/// writes are held other than by the memtable limit); reads for
/// `get`, iterators and checksum verification are not charged (RocksDB
/// charges those only when a read asks for it, which its default
/// `ReadOptions` do not). Reads served by the block cache are not charged.
///
/// A table is read one block (about 4 KiB) at a time, so, as with
/// [`RateLimitedFile`]'s appends, reads are charged in units
/// ([`CHARGE_UNIT`], or a refill's worth at `High` or `User` priority when
/// that is more; at most the single burst): the read that finds its
/// thread's credit short asks
/// for a whole unit (or its own size, if larger) and the reads after it
/// spend the credit. A thread is thus granted at most one unit ahead of
/// what it reads; credit left when a compaction ends is spent by the
/// thread's next one.
#[derive(Clone)]
pub struct ReadCharger {
    limiter: Arc<RateLimiter>,
    priority: SharedPriorityFn,
    stats: Option<Arc<Statistics>>,
}

impl std::fmt::Debug for ReadCharger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadCharger")
            .field("mode", &self.limiter.mode())
            .finish()
    }
}

impl ReadCharger {
    /// A charger for `limiter`, or `None` when its mode does not cover reads
    /// (then nothing is charged and no reader needs one). `priority` is
    /// asked for each charge; `stats` gets the limiter's drain ticker.
    pub fn new(
        limiter: Arc<RateLimiter>,
        priority: SharedPriorityFn,
        stats: Option<Arc<Statistics>>,
    ) -> Option<Self> {
        limiter.is_rate_limited(OpType::Read).then(|| Self {
            limiter,
            priority,
            stats,
        })
    }

    /// Takes `bytes` of this thread's read credit, first waiting for a grant
    /// of at least the shortfall when the credit is short.
    pub fn charge(&self, bytes: u64) {
        let id = Arc::as_ptr(&self.limiter) as usize;
        let (owner, credit) = READ_CREDIT.with(|c| c.get());
        let mut credit = if owner == id { credit } else { 0 };
        if credit < bytes {
            let pri = (self.priority)();
            let want = (bytes - credit).max(charge_unit(&self.limiter, pri));
            self.limiter
                .request_with_stats(want, pri, OpType::Read, self.stats.as_deref());
            credit += want;
        }
        READ_CREDIT.with(|c| c.set((id, credit - bytes)));
    }
}
