//! [`ReadSource`]: one source a user iterator merges (a memtable, an L0
//! table, a level ≥ 1, or a table that failed to open), as an enum rather
//! than a boxed trait object.
//!
//! Why: a scan asks its merge for the current key, value and validity
//! several times per entry, and each ask of a boxed source is a dynamic
//! call that cannot be inlined. Through the enum each ask is one
//! predictable branch and direct calls the compiler may inline (a level
//! holds its table iterator unboxed for the same reason, `level_iter.rs`).
//! Flushes and compactions merge boxed sources: they copy every entry into
//! a table, where these calls are a small share.

use crate::error::Result;
use crate::iterator::{EmptyIterator, InternalIterator};
use crate::memtable::MemTableIter;
use crate::table::TableIter;

use super::level_iter::LevelIter;

/// A source of a user iterator's merge. See the module docs.
pub(crate) enum ReadSource {
    /// The active memtable or an immutable one.
    Mem(MemTableIter),
    /// One L0 table.
    Table(TableIter),
    /// The files of one level ≥ 1.
    Level(LevelIter),
    /// A table that could not be opened without IO under a no-IO read:
    /// empty, its status the error.
    Failed(EmptyIterator),
}

/// Forwards one call to the variant's iterator.
macro_rules! each {
    ($self:expr, $it:ident => $call:expr) => {
        match $self {
            ReadSource::Mem($it) => $call,
            ReadSource::Table($it) => $call,
            ReadSource::Level($it) => $call,
            ReadSource::Failed($it) => $call,
        }
    };
}

impl InternalIterator for ReadSource {
    #[inline]
    fn valid(&self) -> bool {
        each!(self, it => it.valid())
    }
    fn seek_to_first(&mut self) {
        each!(self, it => it.seek_to_first())
    }
    fn seek_to_last(&mut self) {
        each!(self, it => it.seek_to_last())
    }
    fn seek(&mut self, target: &[u8]) {
        each!(self, it => it.seek(target))
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        each!(self, it => it.seek_for_prev(target))
    }
    fn seek_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        each!(self, it => it.seek_prefix(target, prefix))
    }
    fn seek_for_prev_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        each!(self, it => it.seek_for_prev_prefix(target, prefix))
    }
    #[inline]
    fn next(&mut self) {
        each!(self, it => it.next())
    }
    #[inline]
    fn prev(&mut self) {
        each!(self, it => it.prev())
    }
    #[inline]
    fn key(&self) -> &[u8] {
        each!(self, it => it.key())
    }
    #[inline]
    fn value(&self) -> &[u8] {
        each!(self, it => it.value())
    }
    fn status(&self) -> Result<()> {
        each!(self, it => it.status())
    }
}
