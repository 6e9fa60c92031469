//! Recycled block buffers: the contents of a block read from a table file
//! (decompressed, or copied when stored plain) go into a buffer taken from
//! the reading thread's pool ([`take`]), and a dropped [`super::block::Block`]
//! gives its buffer to the pool of the thread dropping it ([`give`]).
//!
//! Why: once the data read is larger than the block cache, every block a
//! lookup reads evicts another. Without the pool each such read allocated
//! the block's few KiB and each eviction freed as much; the allocator hands
//! pages that stay free for its purge delay back to the OS, and later reads
//! fault them in again (with transparent huge pages, zeroing 2 MiB at a
//! time), which profiles of point lookups over 20,000,000 rows showed as a
//! large share of a lookup's time (docs/results/reads.md). With the pool,
//! the buffer of the block an insert evicts holds the next block the same
//! thread reads: the cache drops evicted blocks in the inserting thread,
//! after its shard's lock is released.
//!
//! Bounds: a thread keeps at most [`POOL_BUFFERS`] buffers, each of a
//! capacity in `MIN_POOLED..=MAX_POOLED` (a full pool keeps the largest);
//! new buffers get a capacity rounded up to `CAPACITY_STEP` bytes; a buffer
//! serves a block of `len` bytes only if its capacity is at most
//! `len + MAX_SLACK`, so that no block holds much more memory than it is
//! charged for in the cache (the charge counts the capacity). A reused
//! buffer's old bytes are overwritten by the caller before the block is
//! parsed: [`take`] returns a buffer of exactly `len` initialized bytes,
//! which the decoders fill completely or fail; [`take_empty`] returns an
//! empty one for those that append (ZSTD, which then checks that it
//! produced `len` bytes, and the copy of a block stored plain). Pinned by
//! `a_full_pool_keeps_its_largest_buffers`,
//! `a_given_buffer_serves_the_next_block_that_fits_it` and
//! `take_empty_reuses_a_pooled_buffer_without_its_bytes`.
//!
//! Thread-safety: thread-local, no locks; after a thread's pool is torn
//! down at its exit, [`take`] allocates and [`give`] frees.

use std::cell::RefCell;

/// Buffers one thread keeps.
pub(crate) const POOL_BUFFERS: usize = 8;
/// Smallest capacity kept: smaller blocks are cheap to allocate.
const MIN_POOLED: usize = 512;
/// Largest capacity kept: a thread's pool holds at most
/// `POOL_BUFFERS × MAX_POOLED` bytes.
const MAX_POOLED: usize = 64 << 10;
/// Most bytes a reused buffer's capacity may exceed the block's length by.
const MAX_SLACK: usize = 512;
/// New buffers' capacities are multiples of this.
const CAPACITY_STEP: usize = 256;

thread_local! {
    static POOL: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of exactly `len` initialized bytes (old contents when reused,
/// zeros otherwise), for a block the caller overwrites entirely.
pub(crate) fn take(len: usize) -> Vec<u8> {
    let mut buf = reuse_or_new(len);
    if buf.len() >= len {
        buf.truncate(len);
    } else {
        buf.resize(len, 0);
    }
    buf
}

/// An empty buffer with room for `len` bytes, for a decoder that appends
/// into spare capacity (ZSTD, a plain block's copy): no zeroing of a new
/// buffer's bytes.
pub(crate) fn take_empty(len: usize) -> Vec<u8> {
    let mut buf = reuse_or_new(len);
    buf.clear();
    buf
}

/// A pooled buffer whose capacity fits `len` (see the module's slack
/// rule), or a new one.
fn reuse_or_new(len: usize) -> Vec<u8> {
    let reused = POOL
        .try_with(|pool| {
            let mut pool = pool.try_borrow_mut().ok()?;
            let i = pool
                .iter()
                .rposition(|b| b.capacity() >= len && b.capacity() - len <= MAX_SLACK)?;
            Some(pool.swap_remove(i))
        })
        .ok()
        .flatten();
    // A new buffer's capacity is rounded up to a multiple of CAPACITY_STEP
    // so that it can later hold any block up to that size: blocks of one
    // table differ by a few bytes, and exact capacities would serve only
    // the blocks no longer than the one they were made for. From 1 KiB up,
    // mimalloc's size classes are multiples of 256 bytes, so the rounding
    // stays inside the class the allocation takes anyway.
    reused.unwrap_or_else(|| Vec::with_capacity(len.next_multiple_of(CAPACITY_STEP)))
}

/// Keeps `buf` for a later [`take`] of this thread, or frees it when its
/// capacity is out of the kept range. A full pool keeps the larger of
/// `buf` and its smallest buffer: a larger buffer serves more block sizes,
/// and a pool of the smallest ones would serve none of the rest.
pub(crate) fn give(buf: Vec<u8>) {
    if !(MIN_POOLED..=MAX_POOLED).contains(&buf.capacity()) {
        return;
    }
    let _ = POOL.try_with(|pool| {
        let Ok(mut pool) = pool.try_borrow_mut() else {
            return;
        };
        if pool.len() < POOL_BUFFERS {
            pool.push(buf);
        } else if let Some(smallest) = pool.iter_mut().min_by_key(|b| b.capacity())
            && smallest.capacity() < buf.capacity()
        {
            *smallest = buf;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pooled() -> usize {
        POOL.with(|p| p.borrow().len())
    }

    #[test]
    fn take_empty_reuses_a_pooled_buffer_without_its_bytes() {
        POOL.with(|p| p.borrow_mut().clear());
        let mut b = take(4_000);
        b.fill(9);
        let ptr = b.as_ptr();
        give(b);
        let e = take_empty(3_900);
        assert_eq!(e.as_ptr(), ptr, "the pooled buffer fits 3,900 bytes");
        assert!(e.is_empty() && e.capacity() >= 3_900);
        let fresh = take_empty(20_000);
        assert!(fresh.is_empty() && fresh.capacity() >= 20_000);
        assert_eq!(fresh.capacity() % CAPACITY_STEP, 0);
    }

    #[test]
    fn a_given_buffer_serves_the_next_block_that_fits_it() {
        POOL.with(|p| p.borrow_mut().clear());
        let mut b = take(4_200);
        assert_eq!(b.len(), 4_200);
        assert_eq!(b.capacity(), 4_352, "rounded up to a multiple of 256");
        b.fill(7);
        let ptr = b.as_ptr();
        give(b);
        assert_eq!(pooled(), 1);
        // Too large for it, and too small (the slack would be charged).
        let big = take(4_353);
        assert_ne!(big.as_ptr(), ptr);
        let small = take(4_352 - MAX_SLACK - 1);
        assert_ne!(small.as_ptr(), ptr);
        assert_eq!(small, vec![0; 4_352 - MAX_SLACK - 1], "fresh buffers are zeroed");
        // A block of 4,100 bytes gets it, old bytes and all, exactly its length.
        let again = take(4_100);
        assert_eq!(again.as_ptr(), ptr);
        assert_eq!(again.len(), 4_100);
        assert_eq!(pooled(), 0);
        // Grown within the capacity (a block a little longer than the one the
        // buffer was made for): the new tail is zeroed.
        give(again);
        let grown = take(4_300);
        assert_eq!(grown.as_ptr(), ptr);
        assert!(grown[..4_100].iter().all(|&x| x == 7));
        assert!(grown[4_100..].iter().all(|&x| x == 0));
    }

    /// Regression: the pool kept its first buffers and freed later ones, so
    /// once it held the smallest capacities of a table's blocks (which differ
    /// by a few bytes) it served almost no block, and every read allocated.
    #[test]
    fn a_full_pool_keeps_its_largest_buffers() {
        POOL.with(|p| p.borrow_mut().clear());
        for i in 0..POOL_BUFFERS {
            give(Vec::with_capacity(4_096 + i));
        }
        give(Vec::with_capacity(4_352));
        give(Vec::with_capacity(1_000));
        let caps: Vec<usize> = POOL.with(|p| p.borrow().iter().map(Vec::capacity).collect());
        assert_eq!(caps.len(), POOL_BUFFERS);
        assert!(caps.contains(&4_352), "{caps:?}");
        assert!(!caps.contains(&4_096) && !caps.contains(&1_000), "{caps:?}");
        assert_eq!(take(4_300).capacity(), 4_352);
    }

    #[test]
    fn the_pool_is_bounded_in_count_and_size() {
        POOL.with(|p| p.borrow_mut().clear());
        for _ in 0..POOL_BUFFERS + 3 {
            give(vec![0; 4_096]);
        }
        assert_eq!(pooled(), POOL_BUFFERS);
        POOL.with(|p| p.borrow_mut().clear());
        give(vec![0; MAX_POOLED + 1]);
        give(Vec::with_capacity(MIN_POOLED - 1));
        assert_eq!(pooled(), 0);
    }
}
