//! The internal iterator interface shared by memtables, blocks, tables,
//! levels and the merging iterator. Keys are internal keys ([`crate::key`]);
//! positions follow internal-key order.
//!
//! Contract: `key()`/`value()` may be called only while `valid()`; after a
//! failure the iterator becomes invalid and `status()` returns the error.

use crate::error::Result;

/// A cursor over internal key/value entries in internal-key order.
pub trait InternalIterator: Send {
    /// True when positioned on an entry.
    fn valid(&self) -> bool;
    /// Moves to the first entry.
    fn seek_to_first(&mut self);
    /// Moves to the last entry.
    fn seek_to_last(&mut self);
    /// Moves to the first entry with key ≥ `target` (an internal key).
    fn seek(&mut self, target: &[u8]);
    /// Moves to the last entry with key ≤ `target` (an internal key).
    fn seek_for_prev(&mut self, target: &[u8]);
    /// Moves to the next entry. Precondition: `valid()`.
    fn next(&mut self);
    /// Moves to the previous entry. Precondition: `valid()`.
    fn prev(&mut self);
    /// The current internal key.
    fn key(&self) -> &[u8];
    /// The current value.
    fn value(&self) -> &[u8];
    /// The first error met, if any.
    fn status(&self) -> Result<()>;
}
