//! [`KeyTable`]: the map from [`CacheKey`] to an entry inside one shard of
//! the block cache, an open-addressing table whose buckets hold the key and
//! the entry together.
//!
//! # Why not a general-purpose hash map
//!
//! A cached block's lookup finds its entry and then takes a clone of the
//! block (a reference-count increment on the block). In a SwissTable map
//! (`std`'s `HashMap`) the entry sits in a bucket found through a separate
//! array of control bytes, so a lookup waited for three cache misses one
//! after the other: the control bytes, the bucket, the block's count
//! (annotation of `LruCache::lookup` in a profile of seek + 50 `next` over
//! a cached database: 21%, 34% and 37% of its samples on those three
//! loads). Here the bucket is found from the hash alone, and holds the key
//! it is compared with and the value that is cloned: two misses.
//!
//! # Layout and invariants
//!
//! `buckets` is a power-of-two array of `Option<(CacheKey, T)>`. A key's
//! *home* is `bucket_hash(key) & mask`; it lives in the first bucket at or
//! after its home (wrapping) that the insert found empty. Invariants,
//! checked by `KeyTable::check` in the tests:
//!
//! 1. Every key is stored once, and every bucket from its home up to its
//!    bucket holds an entry (linear probing's run): so a search that meets
//!    an empty bucket can stop.
//! 2. At most half the buckets are full, so a run is short (expected 1.5
//!    buckets probed for a key present, 2.5 for one absent) and an empty
//!    bucket always ends it.
//!
//! The price is memory: a bucket is 40 bytes for the block cache's values
//! (a 16-byte key, a 16-byte value, the slot index and the used mark), and
//! between a quarter and a half of them are full, so 80 to 160 bytes per
//! cached block, where the SwissTable's buckets (up to seven eighths full,
//! plus a control byte each) took 46 to 91: 2 to 4% of a 4 KiB block,
//! not charged to the cache's capacity (neither was the map before).
//!
//! Removal shifts later entries of the run back into the hole instead of
//! leaving a tombstone (entries whose home lies at or before the hole), so
//! invariant 1 holds without tombstones and runs never grow with churn: a
//! cache evicts and inserts all the time.
//!
//! # Thread-safety
//!
//! None of its own: a table belongs to one shard and is reached only
//! through that shard's mutex. The one exception is where its buckets
//! are (`buckets_at`), which the shard publishes for a lock-free prefetch
//! ([`prefetch_home_at`]); nothing reads the buckets through it. Growing
//! allocates the new array (under the shard lock, as the slab's growth
//! does); the table never shrinks, like the map it replaced.

use super::CacheKey;

/// Buckets of a new table.
const INITIAL_BUCKETS: usize = 16;

/// Hash choosing a key's home bucket. Unrelated to the hash choosing the
/// shard (`lru::shard_hash`): every key of a shard shares that hash's top
/// bits, and the table's spread must not depend on them.
#[inline]
fn bucket_hash(k: &CacheKey) -> u64 {
    let mut h = k.offset ^ k.owner.rotate_left(32).wrapping_mul(0xd6e8_feb8_6659_fd93);
    h ^= h >> 32;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 29;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 32)
}

/// Prefetches the bucket (both lines of it, when it straddles two) where a
/// search for `key` starts in a table of `T` whose [`KeyTable::buckets_at`]
/// were `base` and `mask`. They may be stale (read without the shard's
/// lock while the table grows): the address is then some other line, and a
/// prefetch never faults whatever the address (`prefetch.rs`), so a stale
/// pair costs a useless prefetch, nothing else. Nothing is dereferenced.
#[inline]
pub(super) fn prefetch_home_at<T>(base: *const u8, mask: usize, key: &CacheKey) {
    let size = size_of::<Option<(CacheKey, T)>>();
    let home = base.wrapping_add((bucket_hash(key) as usize & mask).wrapping_mul(size));
    crate::prefetch::line(home);
    crate::prefetch::line(home.wrapping_add(size - 1));
}

/// Open-addressing map from [`CacheKey`] to `T` (module docs).
pub(super) struct KeyTable<T> {
    buckets: Box<[Option<(CacheKey, T)>]>,
    /// `buckets.len() - 1`.
    mask: usize,
    len: usize,
}

impl<T> KeyTable<T> {
    pub(super) fn new() -> Self {
        KeyTable {
            buckets: empty_buckets(INITIAL_BUCKETS),
            mask: INITIAL_BUCKETS - 1,
            len: 0,
        }
    }

    /// Number of keys.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The walk of `key`'s run from its home: `Ok` with the bucket holding
    /// `key`, or `Err` with the empty bucket that ends the run (where the
    /// key would go).
    #[inline]
    fn probe(&self, key: &CacheKey) -> Result<usize, usize> {
        let mut i = bucket_hash(key) as usize & self.mask;
        // Ends: invariant 2 leaves an empty bucket on every run's way.
        loop {
            match &self.buckets[i] {
                None => return Err(i),
                Some((k, _)) if k == key => return Ok(i),
                Some(_) => i = (i + 1) & self.mask,
            }
        }
    }

    /// The bucket holding `key`, if any.
    #[inline]
    fn find(&self, key: &CacheKey) -> Option<usize> {
        self.probe(key).ok()
    }

    /// Prefetches the bucket a search for `key` starts at (both lines of
    /// it, when it straddles two), without waiting for it.
    #[inline]
    pub(super) fn prefetch_home(&self, key: &CacheKey) {
        let (base, mask) = self.buckets_at();
        prefetch_home_at::<T>(base, mask, key);
    }

    /// Where the buckets are: the array's address and the mask. A shard
    /// publishes them for [`prefetch_home_at`] without its lock; they
    /// change only when the table grows.
    pub(super) fn buckets_at(&self) -> (*const u8, usize) {
        (self.buckets.as_ptr().cast(), self.mask)
    }

    pub(super) fn get(&self, key: &CacheKey) -> Option<&T> {
        let i = self.find(key)?;
        self.buckets[i].as_ref().map(|(_, v)| v)
    }

    pub(super) fn get_mut(&mut self, key: &CacheKey) -> Option<&mut T> {
        let i = self.find(key)?;
        self.buckets[i].as_mut().map(|(_, v)| v)
    }

    /// Inserts `key`, returning the value it replaces. One walk of the run:
    /// it ends at the key or at the empty bucket the key then takes. The
    /// table grows first when one more key would break invariant 2 (also
    /// when the key turns out to be present: a doubling a step early).
    pub(super) fn insert(&mut self, key: CacheKey, value: T) -> Option<T> {
        if 2 * (self.len + 1) > self.buckets.len() {
            self.grow();
        }
        match self.probe(&key) {
            Ok(i) => self.buckets[i]
                .as_mut()
                .map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                self.buckets[i] = Some((key, value));
                self.len += 1;
                None
            }
        }
    }

    /// Doubles the buckets and re-places every entry.
    fn grow(&mut self) {
        let n = 2 * self.buckets.len();
        let old = std::mem::replace(&mut self.buckets, empty_buckets(n));
        self.mask = n - 1;
        for (k, v) in old.into_vec().into_iter().flatten() {
            // Keys are distinct: each walk ends at an empty bucket.
            if let Err(i) = self.probe(&k) {
                self.buckets[i] = Some((k, v));
            }
        }
    }

    /// Removes `key`, returning its value.
    pub(super) fn remove(&mut self, key: &CacheKey) -> Option<T> {
        let mut hole = self.find(key)?;
        let (_, value) = self.buckets[hole].take()?;
        self.len -= 1;
        // Backward shift: an entry later in the run moves into the hole
        // when its home lies cyclically at or before the hole, i.e. its
        // distance from home is at least the hole's distance from it.
        // Others stay (moving them would put them before their home).
        // Ends: invariant 2 leaves an empty bucket on every run's way.
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let home = match &self.buckets[j] {
                None => break,
                Some((k, _)) => bucket_hash(k) as usize & self.mask,
            };
            if (j.wrapping_sub(home) & self.mask) >= (j.wrapping_sub(hole) & self.mask) {
                self.buckets[hole] = self.buckets[j].take();
                hole = j;
            }
        }
        Some(value)
    }

    /// Asserts the invariants of the module docs (tests).
    #[cfg(test)]
    pub(super) fn check(&self) {
        let mut n = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            let Some((k, _)) = b else { continue };
            n += 1;
            let mut at = bucket_hash(k) as usize & self.mask;
            while at != i {
                assert!(self.buckets[at].is_some(), "run of {k:?} broken at {at}");
                at = (at + 1) & self.mask;
            }
            assert_eq!(self.find(k), Some(i));
        }
        assert_eq!(n, self.len);
        assert!(2 * self.len <= self.buckets.len());
    }
}

fn empty_buckets<T>(n: usize) -> Box<[Option<(CacheKey, T)>]> {
    std::iter::repeat_with(|| None).take(n).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    /// Keys shaped like the block cache's: a few owners, offsets a block
    /// apart, so runs form and removals shift entries.
    fn key(r: &mut Rng) -> CacheKey {
        CacheKey {
            owner: r.next() % 4,
            offset: (r.next() % 300) * 4096,
        }
    }

    #[test]
    fn inserts_lookups_and_removals_match_a_btreemap() {
        for seed in 1..20u64 {
            let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let mut t = KeyTable::new();
            let mut model = BTreeMap::new();
            for step in 0..4000u64 {
                let k = key(&mut r);
                match r.next() % 4 {
                    0 | 1 => assert_eq!(t.insert(k, step), model.insert(k, step)),
                    2 => assert_eq!(t.remove(&k), model.remove(&k)),
                    _ => {
                        if let Some(v) = t.get_mut(&k) {
                            *v += 1;
                        }
                        if let Some(v) = model.get_mut(&k) {
                            *v += 1;
                        }
                    }
                }
                assert_eq!(t.get(&k), model.get(&k));
                assert_eq!(t.len(), model.len());
                if step % 97 == 0 {
                    t.check();
                    for (k, v) in &model {
                        assert_eq!(t.get(k), Some(v));
                    }
                }
            }
            t.check();
        }
    }

    #[test]
    fn removal_shifts_back_a_run_that_wraps_around_the_end() {
        // Keys whose homes are the last two buckets: their run wraps to
        // the start; removing the first must let the others be found.
        let mut t = KeyTable::new();
        let last = INITIAL_BUCKETS - 1;
        let near_end: Vec<CacheKey> = (0..)
            .map(|offset| CacheKey { owner: 9, offset })
            .filter(|k| bucket_hash(k) as usize & t.mask >= last - 1)
            .take(4)
            .collect();
        for (i, k) in near_end.iter().enumerate() {
            t.insert(*k, i);
        }
        t.check();
        assert_eq!(t.remove(&near_end[0]), Some(0));
        t.check();
        for (i, k) in near_end.iter().enumerate().skip(1) {
            assert_eq!(t.get(k), Some(&i));
        }
        assert_eq!(t.get(&near_end[0]), None);
    }

    #[test]
    fn growth_keeps_every_key_and_half_the_buckets_empty() {
        let mut t = KeyTable::new();
        for offset in 0..10_000u64 {
            t.insert(CacheKey { owner: 1, offset }, offset);
        }
        t.check();
        assert_eq!(t.len(), 10_000);
        assert!(t.buckets.len() >= 20_000);
        for offset in (0..10_000u64).step_by(7) {
            assert_eq!(t.get(&CacheKey { owner: 1, offset }), Some(&offset));
        }
    }
}
