//! [`MemTableIter`]: an [`InternalIterator`] over a memtable that keeps the
//! memtable alive.

use std::sync::Arc;

use super::MemTable;
use super::skiplist::Cursor;
use crate::error::Result;
use crate::iterator::InternalIterator;
use crate::{perf_count, perf_timer};

/// Iterates one memtable in internal-key order. Sees entries inserted after
/// it was created too; the DB iterator above filters by sequence number.
pub struct MemTableIter {
    /// Keeps the skiplist `pos` points into alive.
    mem: Arc<MemTable>,
    pos: Cursor,
}

impl MemTableIter {
    /// An unpositioned iterator over `mem`.
    pub fn new(mem: Arc<MemTable>) -> Self {
        MemTableIter {
            mem,
            pos: Cursor::NONE,
        }
    }
}

impl InternalIterator for MemTableIter {
    fn valid(&self) -> bool {
        self.pos.is_valid()
    }

    fn seek_to_first(&mut self) {
        self.pos = self.mem.map.front();
    }

    fn seek_to_last(&mut self) {
        self.pos = self.mem.map.back();
    }

    fn seek(&mut self, target: &[u8]) {
        perf_count!(seek_on_memtable_count);
        perf_timer!(seek_on_memtable_time);
        self.pos = self.mem.map.lower_bound(target);
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        perf_count!(seek_on_memtable_count);
        perf_timer!(seek_on_memtable_time);
        self.pos = self.mem.map.upper_bound(target);
    }

    fn next(&mut self) {
        perf_count!(next_on_memtable_count);
        if self.pos.is_valid() {
            self.pos = self.mem.map.next(self.pos);
        }
    }

    fn prev(&mut self) {
        perf_count!(prev_on_memtable_count);
        if self.pos.is_valid() {
            self.pos = self.mem.map.prev(self.pos);
        }
    }

    fn key(&self) -> &[u8] {
        self.mem
            .map
            .key(self.pos)
            .expect("MemTableIter used while not valid")
    }

    fn value(&self) -> &[u8] {
        self.mem
            .map
            .value(self.pos)
            .expect("MemTableIter used while not valid")
    }

    fn status(&self) -> Result<()> {
        Ok(())
    }
}
