//! [`RateLimitedFile`]: a [`WritableFile`] whose appends are charged to a
//! [`RateLimiter`] before they reach the wrapped file — how flush and
//! compaction output is throttled without the table builder knowing.

use std::sync::Arc;

use super::{IoPriority, OpType, RateLimiter};
use crate::error::Result;
use crate::fs::WritableFile;
use crate::statistics::Statistics;

/// Wraps a [`WritableFile`] so that every appended byte is first granted by a
/// [`RateLimiter`] (as a write, at the wrapper's priority).
///
/// An append larger than the limiter's single burst is cut into burst-sized
/// pieces, each charged and then appended, so the bytes reach the inner file
/// (and, once it flushes, the disk) at the limited pace rather than in one
/// lump after a long wait. `flush`, `sync` and `len` pass straight through:
/// they move no new bytes. When the limiter's mode does not cover writes,
/// appends pass straight through too.
pub struct RateLimitedFile {
    inner: Box<dyn WritableFile>,
    limiter: Arc<RateLimiter>,
    priority: IoPriority,
    /// When set, asked for the priority of each append instead of `priority`.
    priority_fn: Option<PriorityFn>,
    stats: Option<Arc<Statistics>>,
}

/// Decides the priority of each append of a [`RateLimitedFile`] when it is
/// made (e.g. from whether writes are stalled right now). Called once per
/// append, outside the limiter's lock: it should be a few atomic loads.
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
        }
    }

    /// Charges each append at the priority `f` returns at that moment, so a
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

    /// The priority the next append is charged at.
    pub fn priority(&self) -> IoPriority {
        self.priority_fn.as_ref().map_or(self.priority, |f| f())
    }

    /// Unwraps the inner file.
    pub fn into_inner(self) -> Box<dyn WritableFile> {
        self.inner
    }
}

impl WritableFile for RateLimitedFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if !self.limiter.is_rate_limited(OpType::Write) {
            return self.inner.append(data);
        }
        let burst = usize::try_from(self.limiter.single_burst_bytes()).unwrap_or(usize::MAX);
        for piece in data.chunks(burst.max(1)) {
            self.limiter.request_with_stats(
                piece.len() as u64,
                self.priority(),
                OpType::Write,
                self.stats.as_deref(),
            );
            self.inner.append(piece)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }

    fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }

    fn len(&self) -> u64 {
        self.inner.len()
    }
}
