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
    /// A prefix seek: as [`Self::seek`], where `prefix` is the prefix of
    /// `target`'s user key. A source that can tell from its prefix filter
    /// that it holds no key with `prefix` may leave itself invalid instead
    /// (it then holds no key with `prefix` at or after `target`), and says
    /// so by returning true; the caller must then not show keys outside
    /// `prefix` (it may have skipped some). The default seeks and returns
    /// false.
    fn seek_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        let _ = prefix;
        self.seek(target);
        false
    }
    /// As [`Self::seek_prefix`], for [`Self::seek_for_prev`]: a source left
    /// invalid holds no key with `prefix` at or before `target`.
    fn seek_for_prev_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        let _ = prefix;
        self.seek_for_prev(target);
        false
    }
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

/// A boxed iterator is an iterator: merges whose sources vary (flushes,
/// compactions, tests) hold them boxed; the user iterator's merge holds its
/// sources unboxed (`db::read`), so that its steps are direct calls.
impl<T: InternalIterator + ?Sized> InternalIterator for Box<T> {
    fn valid(&self) -> bool {
        (**self).valid()
    }
    fn seek_to_first(&mut self) {
        (**self).seek_to_first()
    }
    fn seek_to_last(&mut self) {
        (**self).seek_to_last()
    }
    fn seek(&mut self, target: &[u8]) {
        (**self).seek(target)
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        (**self).seek_for_prev(target)
    }
    fn seek_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        (**self).seek_prefix(target, prefix)
    }
    fn seek_for_prev_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        (**self).seek_for_prev_prefix(target, prefix)
    }
    fn next(&mut self) {
        (**self).next()
    }
    fn prev(&mut self) {
        (**self).prev()
    }
    fn key(&self) -> &[u8] {
        (**self).key()
    }
    fn value(&self) -> &[u8] {
        (**self).value()
    }
    fn status(&self) -> Result<()> {
        (**self).status()
    }
}

mod merging;

pub use merging::MergingIterator;

/// An iterator over nothing, optionally carrying an error (e.g. a table that failed to open).
pub struct EmptyIterator {
    status: Result<()>,
}

impl EmptyIterator {
    /// An empty iterator.
    pub fn new() -> Self {
        EmptyIterator { status: Ok(()) }
    }

    /// An empty iterator whose `status()` is `err`.
    pub fn with_error(err: crate::error::Error) -> Self {
        EmptyIterator { status: Err(err) }
    }
}

impl Default for EmptyIterator {
    fn default() -> Self {
        Self::new()
    }
}

impl InternalIterator for EmptyIterator {
    fn valid(&self) -> bool {
        false
    }
    fn seek_to_first(&mut self) {}
    fn seek_to_last(&mut self) {}
    fn seek(&mut self, _target: &[u8]) {}
    fn seek_for_prev(&mut self, _target: &[u8]) {}
    fn next(&mut self) {}
    fn prev(&mut self) {}
    fn key(&self) -> &[u8] {
        &[]
    }
    fn value(&self) -> &[u8] {
        &[]
    }
    fn status(&self) -> Result<()> {
        self.status.clone()
    }
}

/// Test helper: an iterator over a sorted vector of (internal key, value).
#[cfg(test)]
pub(crate) struct VecIter {
    pub(crate) entries: Vec<(Vec<u8>, Vec<u8>)>,
    pos: Option<usize>,
}

#[cfg(test)]
impl VecIter {
    pub(crate) fn new(mut entries: Vec<(Vec<u8>, Vec<u8>)>) -> Self {
        entries.sort_by(|a, b| crate::key::compare_internal(&a.0, &b.0));
        VecIter { entries, pos: None }
    }
}

#[cfg(test)]
impl InternalIterator for VecIter {
    fn valid(&self) -> bool {
        self.pos.is_some()
    }
    fn seek_to_first(&mut self) {
        self.pos = (!self.entries.is_empty()).then_some(0);
    }
    fn seek_to_last(&mut self) {
        self.pos = self.entries.len().checked_sub(1);
    }
    fn seek(&mut self, target: &[u8]) {
        let i = self
            .entries
            .partition_point(|e| crate::key::compare_internal(&e.0, target).is_lt());
        self.pos = (i < self.entries.len()).then_some(i);
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        let i = self
            .entries
            .partition_point(|e| crate::key::compare_internal(&e.0, target).is_le());
        self.pos = i.checked_sub(1);
    }
    fn next(&mut self) {
        self.pos = self
            .pos
            .and_then(|p| (p + 1 < self.entries.len()).then_some(p + 1));
    }
    fn prev(&mut self) {
        self.pos = self.pos.and_then(|p| p.checked_sub(1));
    }
    fn key(&self) -> &[u8] {
        &self.entries[self.pos.unwrap()].0
    }
    fn value(&self) -> &[u8] {
        &self.entries[self.pos.unwrap()].1
    }
    fn status(&self) -> Result<()> {
        Ok(())
    }
}
