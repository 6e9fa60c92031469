//! Recycled memtable arena blocks, so writers do not fault in fresh pages.
//!
//! Why: a memtable's arena takes a new 256 KiB block every few hundred
//! entries, on the writer's thread, inside its write group. Memory fresh
//! from the allocator is not mapped: the first touch of each page faults,
//! and the allocator hands freed memory back to the OS after a delay
//! (mimalloc's purge, 1 s), so every memtable faulted its whole size in
//! again. mimalloc asks for transparent huge pages, so one fault maps (and
//! clears) 2 MiB: a one-entry insert can then spend as long as the slowest
//! puts in a single page fault, while the writers queued behind that leader
//! wait (docs/results/allocator.md).
//!
//! The pool keeps the standard-size blocks of dropped memtables, up to
//! [`BlockPool::capacity_bytes`] (one write buffer), and hands them to the
//! next memtables: their pages are mapped already. Only the memtables
//! written before the first one is dropped take fresh memory. (Mapping
//! blocks ahead on a background thread was tried: it competed for the CPU
//! with the first flushes, and the slow puts it was meant to remove came
//! back while it ran.)
//!
//! Memory: the pool holds at most one write buffer of blocks that no
//! memtable uses ([`BlockPool::retained_bytes`]); they are freed when the
//! database closes. A block's contents are not cleared: the arena writes
//! every byte it hands out before anyone reads it.
//!
//! Thread-safety: all methods take `&self`; one mutex guards the free list,
//! taken once per block (every 256 KiB of entries), never per entry.

use parking_lot::Mutex;

/// Bytes of one arena block (the skiplist's `BLOCK`).
pub(crate) const BLOCK_BYTES: usize = 256 << 10;
const BLOCK_WORDS: usize = BLOCK_BYTES / 8;

/// See the module docs.
#[derive(Debug)]
pub struct BlockPool {
    free: Mutex<Vec<Vec<u64>>>,
    cap_blocks: usize,
}

impl BlockPool {
    /// A pool that keeps at most `capacity_bytes` (rounded down to whole
    /// blocks; at least one block).
    pub fn new(capacity_bytes: usize) -> BlockPool {
        BlockPool {
            free: Mutex::new(Vec::new()),
            cap_blocks: (capacity_bytes / BLOCK_BYTES).max(1),
        }
    }

    /// The most bytes the pool keeps.
    pub fn capacity_bytes(&self) -> usize {
        self.cap_blocks * BLOCK_BYTES
    }

    /// Bytes of blocks the pool holds now.
    pub fn retained_bytes(&self) -> usize {
        self.free.lock().len() * BLOCK_BYTES
    }

    /// A block of [`BLOCK_BYTES`]: a recycled one, or a new one.
    pub(crate) fn take(&self) -> Vec<u64> {
        if let Some(b) = self.free.lock().pop() {
            return b;
        }
        Vec::with_capacity(BLOCK_WORDS)
    }

    /// Keeps the standard-size blocks among `blocks` while there is room;
    /// frees the rest (after releasing the lock).
    pub(crate) fn give(&self, blocks: impl IntoIterator<Item = Vec<u64>>) {
        let mut rest = Vec::new();
        {
            let mut free = self.free.lock();
            for b in blocks {
                if b.capacity() == BLOCK_WORDS && free.len() < self.cap_blocks {
                    free.push(b);
                } else {
                    rest.push(b);
                }
            }
        }
        drop(rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_come_back_up_to_the_capacity() {
        let pool = BlockPool::new(3 * BLOCK_BYTES);
        let blocks: Vec<_> = (0..5).map(|_| pool.take()).collect();
        let addrs: Vec<_> = blocks.iter().map(|b| b.as_ptr() as usize).collect();
        pool.give(blocks);
        assert_eq!(pool.retained_bytes(), 3 * BLOCK_BYTES);
        // The kept blocks are handed out again, not new ones.
        for _ in 0..3 {
            assert!(addrs.contains(&(pool.take().as_ptr() as usize)));
        }
        assert_eq!(pool.retained_bytes(), 0);
    }

    #[test]
    fn odd_sized_blocks_are_not_kept() {
        let pool = BlockPool::new(4 * BLOCK_BYTES);
        pool.give([Vec::<u64>::with_capacity(BLOCK_WORDS * 2), Vec::new()]);
        assert_eq!(pool.retained_bytes(), 0);
    }
}
