//! The block cache: a sharded LRU cache of parsed blocks, shared by every
//! table reader of a database (and possibly several databases).
//!
//! [`LruCache`] maps a [`CacheKey`] — the id of the table reader that owns the
//! entry plus the entry's file offset — to a cloneable value (in practice an
//! `Arc` of a parsed block) with a *charge* in bytes. The sum of the charges is
//! the cache's *usage*, kept at or below its *capacity* by evicting the least
//! recently used entries. `lru.rs` documents the algorithm, its invariants
//! and the thread-safety contract.
//!
//! Values say whether they are *pinned* — still referenced outside the cache —
//! through the [`CacheValue`] trait. A pinned entry is in use: eviction passes
//! over it (its memory could not be freed anyway) and it counts in
//! [`LruCache::pinned_usage`]. For `Arc` values "pinned" means a strong count
//! above one.

mod lru;
mod table;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub use lru::{LruCache, auto_shard_bits};

/// Identifies one cache entry: the owner (one table reader, from
/// [`new_cache_owner_id`]) and the offset of the block in the owner's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey {
    /// Process-unique id of the entry's owner.
    pub owner: u64,
    /// Offset of the block within the owner's file.
    pub offset: u64,
}

/// Returns a process-unique owner id for [`CacheKey::owner`]. Ids are never
/// reused, so a reopened table never sees blocks cached by an earlier reader of
/// a file that may since have been replaced.
pub fn new_cache_owner_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Priority of an inserted entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Priority {
    /// Kept in the high-priority pool (index and filter blocks): survives
    /// scans that flood the cache with low-priority entries.
    High,
    /// Inserted at the midpoint (data blocks).
    Low,
}

/// A value that can live in an [`LruCache`].
pub trait CacheValue: Clone + Send + Sync + 'static {
    /// True when the value is still referenced outside the cache, which holds
    /// `cache_clones` clones of it itself, so evicting it would not free its
    /// memory. Called under a shard lock: must be cheap and must not touch
    /// the cache.
    fn is_pinned(&self, cache_clones: usize) -> bool {
        let _ = cache_clones;
        false
    }

    /// Disposes of a value the cache let go of (evicted, erased or
    /// replaced), after the shard's lock is released. Dropping it is the
    /// default; a value may instead keep its memory for reuse.
    fn retire(self) {}

    /// Asks the CPU to bring what a lookup's caller reads first (for a
    /// block, its reference count and fields) toward its caches, without
    /// waiting ([`LruCache::prefetch_value`]). A hint: does nothing by
    /// default. Called under a shard lock: must not touch the cache.
    fn prefetch(&self) {}
}

impl<T: ?Sized + Send + Sync + 'static> CacheValue for Arc<T> {
    /// Pinned while any clone besides the cache's own is alive. The cache
    /// holds the only route to new clones (lookups take the shard lock), so a
    /// count of `cache_clones` seen under the lock cannot rise concurrently.
    fn is_pinned(&self, cache_clones: usize) -> bool {
        Arc::strong_count(self) > cache_clones
    }
}
