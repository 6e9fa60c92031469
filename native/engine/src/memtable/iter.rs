//! [`MemTableIter`]: an [`InternalIterator`] over a memtable that keeps the
//! memtable alive.

use std::ops::Bound;
use std::sync::Arc;

use crossbeam_skiplist::map::Entry;

use super::SeekKey;
use super::{MemEntry, MemTable};
use crate::error::Result;
use crate::iterator::InternalIterator;
use crate::{perf_count, perf_timer};

type Pos<'a> = Option<Entry<'a, MemEntry, ()>>;

self_cell::self_cell!(
    struct Cursor {
        owner: Arc<MemTable>,
        #[covariant]
        dependent: Pos,
    }
);

/// Iterates one memtable in internal-key order. Sees entries inserted after
/// it was created too; the DB iterator above filters by sequence number.
pub struct MemTableIter {
    cursor: Cursor,
}

impl MemTableIter {
    /// An unpositioned iterator over `mem`.
    pub fn new(mem: Arc<MemTable>) -> Self {
        MemTableIter {
            cursor: Cursor::new(mem, |_| None),
        }
    }

    fn entry(&self) -> &MemEntry {
        self.cursor
            .borrow_dependent()
            .as_ref()
            .expect("MemTableIter used while not valid")
            .key()
    }
}

impl InternalIterator for MemTableIter {
    fn valid(&self) -> bool {
        self.cursor.borrow_dependent().is_some()
    }

    fn seek_to_first(&mut self) {
        self.cursor
            .with_dependent_mut(|m, pos| *pos = m.map.front());
    }

    fn seek_to_last(&mut self) {
        self.cursor.with_dependent_mut(|m, pos| *pos = m.map.back());
    }

    fn seek(&mut self, target: &[u8]) {
        perf_count!(seek_on_memtable_count);
        perf_timer!(seek_on_memtable_time);
        self.cursor.with_dependent_mut(|m, pos| {
            let k = SeekKey::from_internal(target);
            *pos = m.map.lower_bound(Bound::Included(k.pkey()));
        });
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        perf_count!(seek_on_memtable_count);
        perf_timer!(seek_on_memtable_time);
        self.cursor.with_dependent_mut(|m, pos| {
            let k = SeekKey::from_internal(target);
            *pos = m.map.upper_bound(Bound::Included(k.pkey()));
        });
    }

    fn next(&mut self) {
        perf_count!(next_on_memtable_count);
        self.cursor.with_dependent_mut(|_, pos| {
            *pos = pos.as_ref().and_then(|e| e.next());
        });
    }

    fn prev(&mut self) {
        perf_count!(prev_on_memtable_count);
        self.cursor.with_dependent_mut(|_, pos| {
            *pos = pos.as_ref().and_then(|e| e.prev());
        });
    }

    fn key(&self) -> &[u8] {
        self.entry().ikey()
    }

    fn value(&self) -> &[u8] {
        self.entry().value()
    }

    fn status(&self) -> Result<()> {
        Ok(())
    }
}
