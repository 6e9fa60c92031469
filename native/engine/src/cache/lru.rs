//! [`LruCache`]: a sharded LRU cache with a high-priority pool.
//!
//! # Structure
//!
//! The cache is split into 2^`num_shard_bits` shards chosen by a hash of the
//! key; each shard is a `parking_lot::Mutex<Shard>` holding a hash map from
//! key to its value and slot index (a `KeyTable`, `cache/table.rs`: key and
//! value in one bucket), and a slab (`Vec`) of slots, each with a
//! second clone of its value ([`Live`] says why), threaded on two intrusive
//! doubly-linked lists, hottest first:
//!
//! ```text
//!   HIGH list: head (hot) ─ ... ─ tail        LOW list: head ─ ... ─ tail (evicted first)
//!              └─ High entries, at most              ├─ Low entries (inserted at the head:
//!                 high_pri_pool_ratio × capacity     │  the midpoint of the whole order)
//!                                                    └─ High entries spilled from the HIGH tail
//! ```
//!
//! Eviction takes the tail of the LOW list, and the tail of the HIGH list only
//! when no LOW entry can go, so a scan that floods the cache with Low entries
//! (data blocks) cannot push out High ones (index and filter blocks) while
//! those fit in the pool.
//!
//! A lookup does not move its entry: it marks it *used*, in the map entry
//! it has just read. Eviction gives a used entry met at a tail a second
//! chance instead: the mark is cleared and the entry moves to the head of
//! the list of its own priority (a High entry that had spilled returns to
//! the HIGH list), as a lookup of strict LRU would have moved it. This is
//! the CLOCK approximation of LRU: an entry used since it last reached a
//! tail survives one more pass of the list, however recently it was used.
//! It keeps a hit from writing the slot and its two neighbours on the lists
//! (three cache misses on a large cache, one after the other, with the
//! shard locked: profile of scans and gets over a cached database); a hit
//! touches the map entry and the value only.
//!
//! # Capacity
//!
//! Each shard gets an equal part of the capacity (the remainder spread over the
//! first shards, so the parts sum to the capacity). An insert first evicts
//! unpinned entries from the cold end until the new entry fits. If it still
//! does not fit — every remaining entry is pinned, or the entry alone is larger
//! than the shard — then with `strict_capacity_limit` the insert fails with
//! [`Error::Incomplete`]; without it the entry is inserted anyway and usage
//! exceeds capacity until later inserts evict enough.
//!
//! *Pinned* entries ([`CacheValue::is_pinned`]) are skipped by eviction and
//! rotated to the head of their list, as if they had just been used: they are
//! in use, and evicting them would not free memory. `pinned_usage()` walks all
//! entries and is meant for diagnostics, not hot paths.
//!
//! # Thread-safety contract
//!
//! 1. All methods take `&self`; the cache is `Send + Sync` and meant to be
//!    shared through an `Arc` by every table reader.
//! 2. A shard's state is reachable only through its mutex; an operation locks
//!    exactly one shard, except `usage`, `len`, `pinned_usage` and
//!    `set_capacity`, which lock the shards one after another (so their result
//!    is a sum of per-shard snapshots), and `prefetch_bucket`, which locks
//!    none: it reads the shard's published bucket address (`BucketHint`),
//!    only to prefetch. `set_capacity` calls are serialized.
//! 3. No allocation happens under a shard lock except growth of the map and of
//!    the slab. Values are cloned (an `Arc` increment) under the lock, and
//!    values evicted by an operation are dropped after the lock is released
//!    (up to [`GRAVE_SLOTS`] of them; any beyond that are dropped under it);
//!    a slot's clone is dropped under it, while the map's clone is alive, so
//!    that drop frees nothing.
//! 4. `CacheValue::is_pinned` is called under the shard lock.
//!
//! # Invariants of a shard (checked by `Shard::check` in tests)
//!
//! 1. Every key in `map` names a live slot whose `key` is that key, and every
//!    live slot is on exactly one of the two lists and holds a clone of the
//!    map entry's value; free slots are on the free chain and hold no value.
//! 2. `usage` = sum of the charges of live slots; `high_usage` = sum of the
//!    charges of slots on the HIGH list.
//! 3. Only High-priority entries are on the HIGH list, and after every
//!    operation `high_usage ≤ high_capacity`, unless the HIGH list is empty.
//! 4. After every operation, `usage ≤ capacity` unless every entry is pinned
//!    or the last insert was larger than what eviction could free (possible
//!    only without `strict_capacity_limit`).

use std::fmt;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use parking_lot::Mutex;

use super::table::KeyTable;
use super::{CacheKey, CacheValue, Priority};
use crate::error::{Error, Result};

/// Shard bits at or above this are rejected.
pub const MAX_SHARD_BITS: i32 = 20;
/// The automatic shard count aims at shards of at least this many bytes.
const MIN_AUTO_SHARD_BYTES: usize = 512 * 1024;
/// The automatic shard count is at most 2^6.
const MAX_AUTO_SHARD_BITS: u32 = 6;
/// Evicted values kept aside to be dropped after the shard lock is released.
pub const GRAVE_SLOTS: usize = 8;

const NIL: u32 = u32::MAX;
const HIGH: usize = 0;
const LOW: usize = 1;
/// Clones of each value the cache holds: one in its map entry, one in its
/// slot ([`Live`]), which [`CacheValue::is_pinned`] does not count as uses.
const CACHE_CLONES: usize = 2;

/// A thread-safe, sharded LRU cache. The algorithm, invariants and
/// thread-safety contract are documented at the top of `cache/lru.rs`.
pub struct LruCache<V: CacheValue> {
    shards: Box<[Mutex<Shard<V>>]>,
    /// Per shard, where its map's buckets are ([`BucketHint`]), for
    /// [`Self::prefetch_bucket`], which takes no lock.
    hints: Box<[BucketHint]>,
    shard_bits: u32,
    /// Total capacity; its lock also serializes `set_capacity`.
    capacity: Mutex<usize>,
    strict_capacity_limit: bool,
    high_pri_pool_ratio: f64,
}

impl<V: CacheValue> fmt::Debug for LruCache<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LruCache")
            .field("capacity", &self.capacity())
            .field("usage", &self.usage())
            .field("len", &self.len())
            .field("shards", &self.shards.len())
            .field("strict_capacity_limit", &self.strict_capacity_limit)
            .field("high_pri_pool_ratio", &self.high_pri_pool_ratio)
            .finish()
    }
}

impl<V: CacheValue> LruCache<V> {
    /// A cache of `capacity` bytes in 2^`num_shard_bits` shards (`-1` picks
    /// the count from the capacity, see [`auto_shard_bits`]). High-priority
    /// entries may use up to `high_pri_pool_ratio` of each shard's capacity
    /// before they spill into the low-priority list.
    ///
    /// Fails with `InvalidArgument` when `num_shard_bits` is below -1 or at
    /// least 20, or the ratio is outside `[0, 1]`.
    pub fn new(
        capacity: usize,
        num_shard_bits: i32,
        strict_capacity_limit: bool,
        high_pri_pool_ratio: f64,
    ) -> Result<Self> {
        let shard_bits = match num_shard_bits {
            -1 => auto_shard_bits(capacity),
            b if (0..MAX_SHARD_BITS).contains(&b) => b as u32,
            b => {
                return Err(Error::InvalidArgument(format!(
                    "num_shard_bits must be -1 or in 0..{MAX_SHARD_BITS}, got {b}"
                )));
            }
        };
        if !(0.0..=1.0).contains(&high_pri_pool_ratio) {
            return Err(Error::InvalidArgument(format!(
                "high_pri_pool_ratio must be in [0, 1], got {high_pri_pool_ratio}"
            )));
        }
        let n = 1usize << shard_bits;
        let shards: Box<[Mutex<Shard<V>>]> = (0..n)
            .map(|i| {
                let cap = shard_capacity(capacity, n, i);
                Mutex::new(Shard::new(cap, high_capacity(cap, high_pri_pool_ratio)))
            })
            .collect();
        let hints = shards
            .iter()
            .map(|s| {
                let hint = BucketHint::default();
                hint.publish(&s.lock().map);
                hint
            })
            .collect();
        Ok(LruCache {
            shards,
            hints,
            shard_bits,
            capacity: Mutex::new(capacity),
            strict_capacity_limit,
            high_pri_pool_ratio,
        })
    }

    /// Number of shards.
    pub fn num_shards(&self) -> usize {
        self.shards.len()
    }

    fn shard_index(&self, key: &CacheKey) -> usize {
        if self.shard_bits == 0 {
            0
        } else {
            (shard_hash(key) >> (64 - self.shard_bits)) as usize
        }
    }

    fn shard_of(&self, key: &CacheKey) -> &Mutex<Shard<V>> {
        &self.shards[self.shard_index(key)]
    }

    /// Inserts (or replaces) `key` with a value charged `charge` bytes.
    ///
    /// Fails with `Incomplete` only under `strict_capacity_limit`, when the
    /// entry does not fit even after evicting every unpinned entry of its
    /// shard; the value is then dropped and the cache keeps no entry for `key`.
    pub fn insert(&self, key: CacheKey, value: V, charge: usize, priority: Priority) -> Result<()> {
        let mut grave = Graveyard::new();
        let idx = self.shard_index(&key);
        let mut shard = self.shards[idx].lock();
        let r = shard.insert(
            key,
            value,
            charge,
            priority,
            self.strict_capacity_limit,
            &mut grave,
        );
        // The only call that grows a shard's map (the table never shrinks).
        self.hints[idx].publish(&shard.map);
        let (usage, cap) = (shard.usage, shard.capacity);
        drop(shard);
        drop(grave);
        match r {
            Ok(()) => Ok(()),
            Err(rejected) => {
                drop(rejected);
                Err(Error::Incomplete(format!(
                    "block cache is full: an entry of {charge} bytes does not fit in a shard of \
                     {cap} bytes ({usage} bytes in use and pinned) with strict_capacity_limit"
                )))
            }
        }
    }

    /// A clone of the value cached for `key`, marking it used (the module
    /// docs say what eviction makes of the mark).
    ///
    /// A miss in a full shard also prefetches what an insert's eviction
    /// will read (`Shard::prefetch_victim`): the caller is about to read
    /// the block and insert it into this shard.
    pub fn lookup(&self, key: &CacheKey) -> Option<V> {
        let mut shard = self.shard_of(key).lock();
        let found = shard.lookup(key);
        if found.is_none() {
            shard.prefetch_victim();
        }
        found
    }

    /// Prefetches the bucket of this cache's map where a lookup of `key`
    /// starts, without waiting for it or searching: the first half of a
    /// lookup's cache misses, for a key looked up soon after (the next
    /// blocks of a scan). A hint: changes nothing. Takes no lock: it reads
    /// the shard's `BucketHint`, which may be stale while the map grows
    /// (a useless prefetch then). With the lock, readers on two cores
    /// passed each shard's mutex line back and forth for hints alone
    /// (profile of seek + 50 `next` at 8 threads on 2 cores: this call
    /// nearly three times its one-thread cost per scan).
    pub fn prefetch_bucket(&self, key: &CacheKey) {
        let (base, mask) = self.hints[self.shard_index(key)].at();
        super::table::prefetch_home_at::<Live<V>>(base, mask, key);
    }

    /// Finds `key` without cloning or marking it and prefetches what its
    /// value's user reads first ([`CacheValue::prefetch`]): the second
    /// half of a lookup's misses, which waits for the bucket (prefetched
    /// earlier with [`Self::prefetch_bucket`]) but not for the value. A
    /// hint: changes nothing, eviction order included.
    pub fn prefetch_value(&self, key: &CacheKey) {
        if let Some(live) = self.shard_of(key).lock().map.get(key) {
            live.value.prefetch();
        }
    }

    /// Sets the charge of `key`'s entry, if present, to `charge` bytes (a
    /// cached value that grew, such as a block given its entry directory),
    /// then evicts as an insert would until the shard fits. The entry
    /// itself stays, under `strict_capacity_limit` too: its caller holds
    /// the value, so it is pinned. An entry replaced since the caller's
    /// value was cached takes the new
    /// charge too; it overstates that entry's memory by the growth, until
    /// it is replaced or evicted.
    pub fn set_charge(&self, key: &CacheKey, charge: usize) {
        let mut grave = Graveyard::new();
        let mut shard = self.shard_of(key).lock();
        shard.set_charge(key, charge, &mut grave);
        drop(shard);
        drop(grave);
    }

    /// Removes `key` if present.
    pub fn erase(&self, key: &CacheKey) {
        let mut grave = Graveyard::new();
        let mut shard = self.shard_of(key).lock();
        shard.erase(key, &mut grave);
        drop(shard);
        drop(grave);
    }

    /// Sum of the charges of all entries.
    pub fn usage(&self) -> usize {
        self.shards.iter().map(|s| s.lock().usage).sum()
    }

    /// Sum of the charges of pinned entries ([`CacheValue::is_pinned`]).
    /// Walks every entry: for diagnostics and properties, not hot paths.
    pub fn pinned_usage(&self) -> usize {
        self.shards.iter().map(|s| s.lock().pinned_usage()).sum()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().map.len()).sum()
    }

    /// True when the cache holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The configured capacity in bytes.
    pub fn capacity(&self) -> usize {
        *self.capacity.lock()
    }

    /// True when inserts fail rather than exceed the capacity.
    pub fn strict_capacity_limit(&self) -> bool {
        self.strict_capacity_limit
    }

    /// Changes the capacity, evicting unpinned entries until each shard fits.
    pub fn set_capacity(&self, capacity: usize) {
        let mut total = self.capacity.lock();
        *total = capacity;
        let n = self.shards.len();
        for (i, s) in self.shards.iter().enumerate() {
            let cap = shard_capacity(capacity, n, i);
            let high = high_capacity(cap, self.high_pri_pool_ratio);
            let mut grave = Graveyard::new();
            let mut shard = s.lock();
            shard.set_capacity(cap, high, &mut grave);
            drop(shard);
            drop(grave);
        }
    }
}

/// The automatic shard count for `capacity`: floor(log2(capacity / 512 KiB)),
/// between 0 and 6.
pub fn auto_shard_bits(capacity: usize) -> u32 {
    let units = capacity / MIN_AUTO_SHARD_BYTES;
    if units == 0 {
        0
    } else {
        units.ilog2().min(MAX_AUTO_SHARD_BITS)
    }
}

/// Capacity of shard `i` of `n`: an equal split, the remainder going one byte
/// each to the first shards, so the parts sum to `capacity`.
fn shard_capacity(capacity: usize, n: usize, i: usize) -> usize {
    capacity / n + usize::from(i < capacity % n)
}

fn high_capacity(shard_capacity: usize, ratio: f64) -> usize {
    (shard_capacity as f64 * ratio) as usize
}

/// Final mix of a 64-bit value (full avalanche).
#[inline]
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Hash choosing the shard (top bits). Deliberately unrelated to the map's
/// hash (`table::bucket_hash`): the map would degrade if all keys of a
/// shard shared hash bits.
#[inline]
fn shard_hash(k: &CacheKey) -> u64 {
    fmix64(k.owner.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k.offset)
}

/// Values evicted under a shard lock, handed to [`CacheValue::retire`]
/// after it is released (which drops them by default: their destructors may
/// free whole blocks). Fixed size so that burying never
/// allocates; values beyond [`GRAVE_SLOTS`] are dropped on the spot.
struct Graveyard<V: CacheValue> {
    buried: [Option<V>; GRAVE_SLOTS],
    len: usize,
}

/// Hands each buried value to [`CacheValue::retire`].
impl<V: CacheValue> Drop for Graveyard<V> {
    fn drop(&mut self) {
        for v in self.buried.iter_mut().take(self.len) {
            if let Some(v) = v.take() {
                v.retire();
            }
        }
    }
}

impl<V: CacheValue> Graveyard<V> {
    fn new() -> Self {
        Graveyard {
            buried: std::array::from_fn(|_| None),
            len: 0,
        }
    }

    fn bury(&mut self, v: V) {
        if let Some(slot) = self.buried.get_mut(self.len) {
            *slot = Some(v);
            self.len += 1;
        }
    }
}

/// The map's entry for a cached key: the value and the slot that places it
/// on the lists. The map and the slot each hold a clone of the value, so
/// that both of the shard's walks load the slot and the value independently
/// and their cache misses overlap: a lookup finds both in the map's entry,
/// an eviction checks the pin through the slot's clone while it probes the
/// map for the key. With the value in the slot only, a lookup's load of
/// the value waited for the slot's (profile of cached gets: each a miss, one
/// after the other); with it in the map only, an eviction's waited for the
/// map probe (profile of `multiGet` over a database larger than the cache).
struct Live<V> {
    value: V,
    slot: u32,
    /// Looked up since the entry was inserted or last given its second
    /// chance (module docs).
    used: bool,
}

struct Slot<V> {
    key: CacheKey,
    /// `None` exactly when the slot is on the free chain.
    value: Option<V>,
    charge: usize,
    prev: u32,
    /// Next on the slot's list, or next free slot.
    next: u32,
    /// The list the slot is on: `HIGH` or `LOW`.
    list: usize,
    /// Inserted with `Priority::High`.
    high_pri: bool,
}

impl<V: CacheValue> Slot<V> {
    /// A live slot whose value is referenced outside the cache.
    fn is_pinned(&self) -> bool {
        self.value.as_ref().is_some_and(|v| v.is_pinned(CACHE_CLONES))
    }
}

#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
    len: usize,
}

impl List {
    const EMPTY: List = List {
        head: NIL,
        tail: NIL,
        len: 0,
    };
}

/// Where a shard's map keeps its buckets, published under the shard's lock
/// whenever an insert may have grown the map, and read without it by
/// [`LruCache::prefetch_bucket`]. Only a prefetch reads it: the address is
/// never dereferenced, so a stale or torn pair (a base and mask of two
/// sizes) is harmless. A separate array from the mutexes, written only when
/// a map grows, so that its lines stay shared in every core's cache.
#[derive(Default)]
struct BucketHint {
    base: AtomicPtr<u8>,
    mask: AtomicUsize,
}

impl BucketHint {
    /// The published address and mask (possibly a torn pair, see above).
    fn at(&self) -> (*const u8, usize) {
        let base = self.base.load(Ordering::Relaxed).cast_const();
        (base, self.mask.load(Ordering::Relaxed))
    }

    /// Records where `map`'s buckets are now, when that changed.
    fn publish<T>(&self, map: &KeyTable<T>) {
        let (base, mask) = map.buckets_at();
        if self.at().0 != base {
            self.base.store(base.cast_mut(), Ordering::Relaxed);
            self.mask.store(mask, Ordering::Relaxed);
        }
    }
}

struct Shard<V> {
    map: KeyTable<Live<V>>,
    slots: Vec<Slot<V>>,
    free_head: u32,
    lists: [List; 2],
    usage: usize,
    high_usage: usize,
    capacity: usize,
    high_capacity: usize,
}

impl<V: CacheValue> Shard<V> {
    fn new(capacity: usize, high_capacity: usize) -> Self {
        Shard {
            map: KeyTable::new(),
            slots: Vec::new(),
            free_head: NIL,
            lists: [List::EMPTY; 2],
            usage: 0,
            high_usage: 0,
            capacity,
            high_capacity,
        }
    }

    fn slot(&self, i: u32) -> &Slot<V> {
        &self.slots[i as usize]
    }

    fn slot_mut(&mut self, i: u32) -> &mut Slot<V> {
        &mut self.slots[i as usize]
    }

    /// Takes slot `i` off its list.
    fn unlink(&mut self, i: u32) {
        let (prev, next, list, charge) = {
            let s = self.slot(i);
            (s.prev, s.next, s.list, s.charge)
        };
        if prev == NIL {
            self.lists[list].head = next;
        } else {
            self.slot_mut(prev).next = next;
        }
        if next == NIL {
            self.lists[list].tail = prev;
        } else {
            self.slot_mut(next).prev = prev;
        }
        self.lists[list].len -= 1;
        if list == HIGH {
            self.high_usage -= charge;
        }
    }

    /// Puts unlinked slot `i` at the head of `list`.
    fn push_head(&mut self, i: u32, list: usize) {
        let old_head = self.lists[list].head;
        let charge = {
            let s = self.slot_mut(i);
            s.prev = NIL;
            s.next = old_head;
            s.list = list;
            s.charge
        };
        if old_head == NIL {
            self.lists[list].tail = i;
        } else {
            self.slot_mut(old_head).prev = i;
        }
        self.lists[list].head = i;
        self.lists[list].len += 1;
        if list == HIGH {
            self.high_usage += charge;
        }
    }

    /// Clears the used mark of live slot `i`, returning whether it was set.
    fn take_used(&mut self, i: u32) -> bool {
        let key = self.slot(i).key;
        self.map
            .get_mut(&key)
            .is_some_and(|live| std::mem::replace(&mut live.used, false))
    }

    /// Moves slot `i` to the head of the list of its priority.
    fn touch(&mut self, i: u32) {
        self.unlink(i);
        let list = if self.slot(i).high_pri { HIGH } else { LOW };
        self.push_head(i, list);
        self.spill();
    }

    /// Moves the oldest HIGH entries to the head of LOW until the pool fits.
    fn spill(&mut self) {
        while self.high_usage > self.high_capacity {
            let t = self.lists[HIGH].tail;
            if t == NIL {
                break;
            }
            self.unlink(t);
            self.push_head(t, LOW);
        }
    }

    /// Removes live slot `i` entirely and returns its value.
    fn remove(&mut self, i: u32) -> Option<V> {
        self.unlink(i);
        let free_head = self.free_head;
        let s = self.slot_mut(i);
        // Not the last clone (the map's is alive): dropped under the lock,
        // it frees nothing.
        drop(s.value.take());
        let (key, charge) = (s.key, s.charge);
        s.next = free_head;
        s.prev = NIL;
        self.free_head = i;
        self.usage -= charge;
        self.map.remove(&key).map(|live| live.value)
    }

    /// Evicts the coldest unpinned entry not used since it last reached a
    /// tail, LOW list first. Pinned entries met on the way are rotated to
    /// the head of their list, used ones given their second chance (module
    /// docs). Returns false when nothing could be evicted.
    fn evict_one(&mut self, grave: &mut Graveyard<V>) -> bool {
        for list in [LOW, HIGH] {
            // Each entry is met at most twice: once used, then with its mark
            // cleared. Second chances may bring High entries over from LOW,
            // and spill them back; the bound only has to be finite.
            for _ in 0..2 * self.lists[list].len {
                let t = self.lists[list].tail;
                if t == NIL {
                    break;
                }
                if self.slot(t).is_pinned() {
                    self.unlink(t);
                    self.push_head(t, list);
                    continue;
                }
                if self.take_used(t) {
                    self.touch(t);
                    continue;
                }
                if let Some(v) = self.remove(t) {
                    grave.bury(v);
                }
                return true;
            }
        }
        false
    }

    fn insert(
        &mut self,
        key: CacheKey,
        value: V,
        charge: usize,
        priority: Priority,
        strict: bool,
        grave: &mut Graveyard<V>,
    ) -> std::result::Result<(), V> {
        if let Some(old) = self.map.get(&key).map(|live| live.slot)
            && let Some(v) = self.remove(old)
        {
            grave.bury(v);
        }
        while self.usage.saturating_add(charge) > self.capacity && self.evict_one(grave) {}
        if strict && self.usage.saturating_add(charge) > self.capacity {
            return Err(value);
        }
        let high_pri = priority == Priority::High;
        let i = if self.free_head != NIL {
            let i = self.free_head;
            self.free_head = self.slot(i).next;
            let s = self.slot_mut(i);
            s.key = key;
            s.value = Some(value.clone());
            s.charge = charge;
            s.high_pri = high_pri;
            i
        } else {
            let Ok(i) = u32::try_from(self.slots.len()) else {
                return Err(value);
            };
            if i == NIL {
                return Err(value);
            }
            self.slots.push(Slot {
                key,
                value: Some(value.clone()),
                charge,
                prev: NIL,
                next: NIL,
                list: LOW,
                high_pri,
            });
            i
        };
        self.map.insert(
            key,
            Live {
                value,
                slot: i,
                used: false,
            },
        );
        self.usage += charge;
        self.push_head(i, if high_pri { HIGH } else { LOW });
        self.spill();
        Ok(())
    }

    fn lookup(&mut self, key: &CacheKey) -> Option<V> {
        let live = self.map.get_mut(key)?;
        // Written only when it changes: a hot entry's map line stays clean.
        if !live.used {
            live.used = true;
        }
        Some(live.value.clone())
    }

    /// When an insert of an entry of the average charge would evict: loads
    /// the slot eviction meets first (the tail of LOW, else of HIGH) and
    /// prefetches what `evict_one` then waits for, one miss after the
    /// other: its value's first lines ([`CacheValue::prefetch`]: the
    /// pinned check reads the count), its map bucket (the used mark, the
    /// removal) and its neighbour on the list (the unlink). Profile of
    /// 8-thread gets over 20,000,000 rows, a block evicted per lookup:
    /// `evict_one` 4.4% of samples, 73% of it on the value's count and 15%
    /// on the slot; the map's removal another 1.8%. After a lookup's miss
    /// the caller reads the block from the file, so these arrive
    /// meanwhile. A hint: reads, never writes
    /// (`prefetches_neither_mark_nor_move_an_entry`).
    fn prefetch_victim(&self) {
        let n = self.map.len();
        if n == 0 || self.usage.saturating_add(self.usage / n) <= self.capacity {
            return;
        }
        let list = if self.lists[LOW].tail != NIL { LOW } else { HIGH };
        let t = self.lists[list].tail;
        if t == NIL {
            return;
        }
        let s = self.slot(t);
        if let Some(v) = &s.value {
            v.prefetch();
        }
        self.map.prefetch_home(&s.key);
        if s.prev != NIL {
            // Unlinking the victim writes its neighbour on the list.
            crate::prefetch::line(&raw const self.slots[s.prev as usize]);
        }
    }

    fn set_charge(&mut self, key: &CacheKey, charge: usize, grave: &mut Graveyard<V>) {
        let Some(i) = self.map.get(key).map(|live| live.slot) else {
            return;
        };
        let s = self.slot_mut(i);
        let (old, list) = (std::mem::replace(&mut s.charge, charge), s.list);
        self.usage = self.usage - old + charge;
        if list == HIGH {
            self.high_usage = self.high_usage - old + charge;
            self.spill();
        }
        while self.usage > self.capacity && self.evict_one(grave) {}
    }

    fn erase(&mut self, key: &CacheKey, grave: &mut Graveyard<V>) {
        if let Some(i) = self.map.get(key).map(|live| live.slot)
            && let Some(v) = self.remove(i)
        {
            grave.bury(v);
        }
    }

    fn set_capacity(&mut self, capacity: usize, high_capacity: usize, grave: &mut Graveyard<V>) {
        self.capacity = capacity;
        self.high_capacity = high_capacity;
        self.spill();
        while self.usage > self.capacity && self.evict_one(grave) {}
    }

    fn pinned_usage(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.is_pinned())
            .map(|s| s.charge)
            .sum()
    }

    /// Keys of `list` from head to tail (tests).
    #[cfg(test)]
    fn keys(&self, list: usize) -> Vec<CacheKey> {
        let mut out = Vec::new();
        let mut i = self.lists[list].head;
        while i != NIL {
            out.push(self.slot(i).key);
            i = self.slot(i).next;
        }
        out
    }

    /// Asserts the invariants of the module docs.
    #[cfg(test)]
    fn check(&self) {
        self.map.check();
        let mut seen = 0;
        let mut usage = 0;
        for list in [HIGH, LOW] {
            let mut prev = NIL;
            let mut i = self.lists[list].head;
            let mut n = 0;
            let mut charges = 0;
            while i != NIL {
                let s = self.slot(i);
                assert_eq!(s.prev, prev);
                assert_eq!(s.list, list);
                assert!(s.value.is_some());
                assert_eq!(self.map.get(&s.key).map(|live| live.slot), Some(i));
                if list == HIGH {
                    assert!(s.high_pri);
                }
                charges += s.charge;
                n += 1;
                prev = i;
                i = s.next;
            }
            assert_eq!(self.lists[list].tail, prev);
            assert_eq!(self.lists[list].len, n);
            if list == HIGH {
                assert_eq!(self.high_usage, charges);
                assert!(n == 0 || self.high_usage <= self.high_capacity);
            }
            usage += charges;
            seen += n;
        }
        assert_eq!(seen, self.map.len());
        assert_eq!(usage, self.usage);
        let live = self.slots.iter().filter(|s| s.value.is_some()).count();
        assert_eq!(live, seen);
        let mut free = 0;
        let mut i = self.free_head;
        while i != NIL {
            assert!(self.slot(i).value.is_none());
            free += 1;
            i = self.slot(i).next;
        }
        assert_eq!(free + seen, self.slots.len());
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A value that is never pinned, so eviction can always free it.
    #[derive(Clone, Debug, PartialEq)]
    struct Plain(u64);
    impl CacheValue for Plain {}

    fn k(offset: u64) -> CacheKey {
        CacheKey { owner: 7, offset }
    }

    fn single<V: CacheValue>(capacity: usize, strict: bool, ratio: f64) -> LruCache<V> {
        LruCache::new(capacity, 0, strict, ratio).unwrap()
    }

    fn low_keys<V: CacheValue>(c: &LruCache<V>) -> Vec<u64> {
        c.shards[0]
            .lock()
            .keys(LOW)
            .iter()
            .map(|k| k.offset)
            .collect()
    }

    fn high_keys<V: CacheValue>(c: &LruCache<V>) -> Vec<u64> {
        c.shards[0]
            .lock()
            .keys(HIGH)
            .iter()
            .map(|k| k.offset)
            .collect()
    }

    /// A value that records its id when the cache retires it.
    #[derive(Clone, Debug)]
    struct Retiring(u64, Arc<std::sync::Mutex<Vec<u64>>>);
    impl CacheValue for Retiring {
        fn retire(self) {
            self.1.lock().unwrap().push(self.0);
        }
    }

    /// `prefetch_bucket` reads each shard's published bucket address
    /// without the lock: after inserts that grow the maps (several times
    /// over), every hint names the shard's current buckets, so a stale
    /// address lasts at most until the insert that grew the map returns.
    #[test]
    fn bucket_hints_follow_every_map_growth() {
        let c = LruCache::<Plain>::new(1 << 20, 2, false, 0.0).unwrap();
        let current = |c: &LruCache<Plain>| -> Vec<(*const u8, usize)> {
            c.shards.iter().map(|s| s.lock().map.buckets_at()).collect()
        };
        let hinted = |c: &LruCache<Plain>| -> Vec<(*const u8, usize)> {
            c.hints.iter().map(BucketHint::at).collect()
        };
        assert_eq!(hinted(&c), current(&c));
        let first = current(&c);
        for i in 0..2_000 {
            c.insert(k(i), Plain(i), 1, Priority::Low).unwrap();
            assert_eq!(hinted(&c), current(&c), "after insert {i}");
            c.prefetch_bucket(&k(i));
        }
        assert!(current(&c).iter().zip(&first).all(|(now, then)| now.1 > then.1));
        for i in 0..2_000 {
            assert_eq!(c.lookup(&k(i)), Some(Plain(i)));
        }
    }

    #[test]
    fn values_let_go_of_are_retired_once_each() {
        let retired = Arc::new(std::sync::Mutex::new(Vec::new()));
        let v = |id| Retiring(id, retired.clone());
        let c = single::<Retiring>(3, false, 0.0);
        for i in 1..=3 {
            c.insert(k(i), v(i), 1, Priority::Low).unwrap();
        }
        assert!(retired.lock().unwrap().is_empty());
        c.insert(k(4), v(4), 1, Priority::Low).unwrap(); // evicts 1
        c.insert(k(2), v(20), 1, Priority::Low).unwrap(); // replaces 2
        c.erase(&k(3));
        c.set_capacity(1); // evicts the older of 4 and 20
        assert_eq!(*retired.lock().unwrap(), vec![1, 2, 3, 4]);
        assert_eq!(c.lookup(&k(2)).map(|r| r.0), Some(20));
    }

    #[test]
    fn evicts_least_recently_used_first() {
        let c = single::<Plain>(3, false, 0.0);
        for i in 1..=3 {
            c.insert(k(i), Plain(i), 1, Priority::Low).unwrap();
        }
        assert_eq!(c.lookup(&k(1)), Some(Plain(1)));
        c.insert(k(4), Plain(4), 1, Priority::Low).unwrap();
        assert_eq!(c.lookup(&k(2)), None, "2 was the least recently used");
        assert_eq!(low_keys(&c), [4, 1, 3]);
        c.insert(k(5), Plain(5), 2, Priority::Low).unwrap();
        assert_eq!(low_keys(&c), [5, 4]);
        assert_eq!((c.usage(), c.len()), (3, 2));
        c.shards[0].lock().check();
    }

    #[test]
    fn prefetches_neither_mark_nor_move_an_entry() {
        let c = single::<Plain>(2, false, 0.0);
        for i in 1..=2 {
            c.insert(k(i), Plain(i), 1, Priority::Low).unwrap();
        }
        for i in 1..=3 {
            c.prefetch_bucket(&k(i));
            c.prefetch_value(&k(i));
        }
        // A miss in the full shard prefetches the victim, 1.
        assert_eq!(c.lookup(&k(3)), None);
        c.shards[0].lock().check();
        // Had the prefetch of 1 marked it used, the insert would have given
        // it a second chance and evicted 2.
        c.insert(k(3), Plain(3), 1, Priority::Low).unwrap();
        assert_eq!(c.lookup(&k(1)), None, "1 was the least recently used");
        assert_eq!(low_keys(&c), [3, 2]);
        c.shards[0].lock().check();
    }

    #[test]
    fn replacing_a_key_updates_value_and_usage() {
        let c = single::<Plain>(100, false, 0.5);
        c.insert(k(1), Plain(1), 10, Priority::Low).unwrap();
        c.insert(k(1), Plain(2), 30, Priority::High).unwrap();
        assert_eq!((c.usage(), c.len()), (30, 1));
        assert_eq!(c.lookup(&k(1)), Some(Plain(2)));
        assert_eq!(high_keys(&c), [1]);
        c.erase(&k(1));
        c.erase(&k(1));
        assert_eq!((c.usage(), c.len()), (0, 0));
        assert!(c.is_empty());
        c.shards[0].lock().check();
    }

    #[test]
    fn high_priority_entries_survive_a_scan_of_low_ones() {
        let c = single::<Plain>(10, false, 0.5);
        c.insert(k(100), Plain(0), 1, Priority::High).unwrap();
        c.insert(k(101), Plain(0), 1, Priority::High).unwrap();
        for i in 0..50 {
            c.insert(k(i), Plain(i), 1, Priority::Low).unwrap();
            c.shards[0].lock().check();
        }
        assert!(c.lookup(&k(100)).is_some());
        assert!(c.lookup(&k(101)).is_some());
        assert_eq!(c.usage(), 10);

        // Without a pool, the same scan flushes them out.
        let c = single::<Plain>(10, false, 0.0);
        c.insert(k(100), Plain(0), 1, Priority::High).unwrap();
        for i in 0..50 {
            c.insert(k(i), Plain(i), 1, Priority::Low).unwrap();
        }
        assert!(c.lookup(&k(100)).is_none());
    }

    #[test]
    fn high_pool_overflow_spills_to_the_midpoint() {
        let c = single::<Plain>(10, false, 0.3);
        for h in 1..=5 {
            c.insert(k(100 + h), Plain(h), 1, Priority::High).unwrap();
        }
        // Pool of 3: the two oldest High entries spilled to the head of LOW.
        assert_eq!(high_keys(&c), [105, 104, 103]);
        assert_eq!(low_keys(&c), [102, 101]);
        for l in 1..=5 {
            c.insert(k(l), Plain(l), 1, Priority::Low).unwrap();
        }
        assert_eq!(low_keys(&c), [5, 4, 3, 2, 1, 102, 101]);
        c.insert(k(6), Plain(6), 1, Priority::Low).unwrap();
        assert!(
            c.lookup(&k(101)).is_none(),
            "coldest spilled entry goes first"
        );
        // A hit marks a spilled High entry; when eviction reaches it, it
        // returns to the pool (its second chance), spilling the pool's
        // oldest, and the next unused entry goes instead.
        assert!(c.lookup(&k(102)).is_some());
        assert_eq!(high_keys(&c), [105, 104, 103], "a hit moves nothing");
        c.insert(k(7), Plain(7), 1, Priority::Low).unwrap();
        assert_eq!(high_keys(&c), [102, 105, 104]);
        assert_eq!(low_keys(&c), [7, 103, 6, 5, 4, 3, 2]);
        c.shards[0].lock().check();
    }

    #[test]
    fn strict_limit_rejects_what_cannot_fit() {
        let c = single::<Arc<u64>>(10, true, 0.0);
        let held: Vec<Arc<u64>> = (0..5).map(Arc::new).collect();
        for (i, v) in held.iter().enumerate() {
            c.insert(k(i as u64), v.clone(), 2, Priority::Low).unwrap();
        }
        assert_eq!(c.pinned_usage(), 10);
        let e = c.insert(k(9), Arc::new(9), 1, Priority::Low).unwrap_err();
        assert_eq!(e.code(), crate::error::Code::Incomplete);
        assert!(e.to_string().contains("strict_capacity_limit"), "{e}");
        assert!(c.lookup(&k(9)).is_none());
        // Entries larger than the whole cache never fit.
        assert!(c.insert(k(10), Arc::new(0), 11, Priority::Low).is_err());
        // Unpinning one entry makes room again.
        drop(held);
        assert_eq!(c.pinned_usage(), 0);
        c.insert(k(9), Arc::new(9), 1, Priority::Low).unwrap();
        assert_eq!(c.usage(), 9);
        c.shards[0].lock().check();
    }

    #[test]
    fn non_strict_limit_overshoots_only_for_pinned_entries() {
        let c = single::<Arc<u64>>(4, false, 0.0);
        let a = Arc::new(1);
        let b = Arc::new(2);
        c.insert(k(1), a.clone(), 2, Priority::Low).unwrap();
        c.insert(k(2), b.clone(), 2, Priority::Low).unwrap();
        c.insert(k(3), Arc::new(3), 2, Priority::Low).unwrap();
        assert_eq!(
            c.usage(),
            6,
            "everything else pinned: usage exceeds capacity"
        );
        // Pinned entries were rotated, not evicted; the unpinned one goes next.
        c.insert(k(4), Arc::new(4), 1, Priority::Low).unwrap();
        assert!(c.lookup(&k(3)).is_none());
        assert!(c.lookup(&k(1)).is_some() && c.lookup(&k(2)).is_some());
        drop((a, b));
        c.insert(k(5), Arc::new(5), 1, Priority::Low).unwrap();
        assert!(c.usage() <= 4);
        c.shards[0].lock().check();
    }

    #[test]
    fn lookups_match_a_model_clock_and_evictions_leave_no_clone_behind() {
        // One shard of 8 unit-charged entries against a plain list (head
        // first) with a used mark per key: a lookup marks, an eviction
        // moves a marked tail to the head and clears its mark (the module
        // docs' second chance). The cache holds two clones of each value
        // (map entry and slot); an evicted, erased or replaced value must
        // lose both, or the cache would keep its memory alive.
        let c = single::<Arc<u64>>(8, false, 0.0);
        let mut order: Vec<u64> = Vec::new();
        let mut used: std::collections::HashSet<u64> = std::collections::HashSet::new();
        let mut values: std::collections::HashMap<u64, std::sync::Weak<u64>> =
            std::collections::HashMap::new();
        let mut gone: Vec<std::sync::Weak<u64>> = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = x % 13;
            match (x >> 8) % 4 {
                0 | 1 => {
                    let got = c.lookup(&k(key)).map(|v| *v);
                    let want = order.contains(&key).then(|| values[&key].upgrade().map(|v| *v));
                    assert_eq!(got, want.flatten(), "lookup of {key} at step {step}");
                    if order.contains(&key) {
                        used.insert(key);
                    }
                }
                2 => {
                    let v = Arc::new(step);
                    if let Some(old) = values.insert(key, Arc::downgrade(&v)) {
                        gone.push(old);
                    }
                    c.insert(k(key), v, 1, Priority::Low).unwrap();
                    // The replaced entry goes first, then eviction makes
                    // room, then the new entry takes the head.
                    order.retain(|&o| o != key);
                    used.remove(&key);
                    while order.len() >= 8 {
                        let tail = order.pop().unwrap();
                        if used.remove(&tail) {
                            order.insert(0, tail);
                        } else {
                            gone.push(values.remove(&tail).unwrap());
                        }
                    }
                    order.insert(0, key);
                }
                _ => {
                    c.erase(&k(key));
                    if let Some(at) = order.iter().position(|&o| o == key) {
                        order.remove(at);
                        used.remove(&key);
                        gone.push(values.remove(&key).unwrap());
                    }
                }
            }
            if step % 97 == 0 {
                c.shards[0].lock().check();
            }
            for w in gone.drain(..) {
                assert_eq!(w.strong_count(), 0, "a value the cache let go is still held");
            }
            for key in &order {
                assert_eq!(values[key].strong_count(), CACHE_CLONES, "clones of {key}");
            }
        }
        assert_eq!(low_keys(&c), order);
    }

    #[test]
    fn a_grown_charge_is_accounted_and_evicts_what_no_longer_fits() {
        let c = single::<Plain>(10, false, 0.0);
        for i in 1..=4 {
            c.insert(k(i), Plain(i), 2, Priority::Low).unwrap();
        }
        c.set_charge(&k(4), 3);
        assert_eq!((c.usage(), c.len()), (9, 4));
        // Growing past the capacity evicts the coldest entry, not the grown one.
        c.set_charge(&k(3), 4);
        assert_eq!(low_keys(&c), [4, 3, 2]);
        assert_eq!(c.usage(), 9);
        c.set_charge(&k(99), 5);
        assert_eq!(c.usage(), 9, "an absent key changes nothing");
        c.shards[0].lock().check();
    }

    #[test]
    fn set_capacity_evicts_down_to_the_new_size() {
        let c = single::<Plain>(10, false, 0.5);
        for i in 0..10 {
            c.insert(k(i), Plain(i), 1, Priority::Low).unwrap();
        }
        c.set_capacity(4);
        assert_eq!((c.capacity(), c.usage()), (4, 4));
        assert_eq!(low_keys(&c), [9, 8, 7, 6]);
        c.set_capacity(100);
        c.insert(k(50), Plain(50), 50, Priority::High).unwrap();
        assert_eq!(c.usage(), 54);
        // The pool shrinks with the capacity: the High entry spills to the
        // head of LOW; eviction then takes LOW from the tail until it fits.
        c.set_capacity(20);
        assert!(c.lookup(&k(50)).is_none());
        assert_eq!(c.usage(), 0);
        c.shards[0].lock().check();
    }

    #[test]
    fn shard_bits_are_validated_and_derived_from_capacity() {
        assert_eq!(auto_shard_bits(0), 0);
        assert_eq!(auto_shard_bits(512 * 1024 - 1), 0);
        assert_eq!(auto_shard_bits(512 * 1024), 0);
        assert_eq!(auto_shard_bits(1 << 20), 1);
        assert_eq!(auto_shard_bits(3 << 20), 2);
        assert_eq!(auto_shard_bits(8 << 20), 4);
        assert_eq!(auto_shard_bits(32 << 20), 6);
        assert_eq!(auto_shard_bits(1 << 40), 6);
        let c = LruCache::<Plain>::new(8 << 20, -1, false, 0.5).unwrap();
        assert_eq!(c.num_shards(), 16);
        let c = LruCache::<Plain>::new(1000, 10, false, 0.5).unwrap();
        assert_eq!(c.num_shards(), 1 << 10);
        for bad in [20, 64, -2] {
            let e = LruCache::<Plain>::new(1000, bad, false, 0.5).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{bad}: {e}");
        }
        for bad in [-0.1, 1.01, f64::NAN] {
            assert!(LruCache::<Plain>::new(1000, 0, false, bad).is_err());
        }
        // Shard parts sum to the capacity.
        let parts: usize = (0..16).map(|i| shard_capacity(1003, 16, i)).sum();
        assert_eq!(parts, 1003);
    }

    #[test]
    fn concurrent_hammering_keeps_usage_within_capacity() {
        use rand::{Rng, SeedableRng, rngs::SmallRng};
        const CAP: usize = 64 * 1024;
        let c = Arc::new(LruCache::<Plain>::new(CAP, 3, false, 0.25).unwrap());
        let threads: Vec<_> = (0..8u64)
            .map(|t| {
                let c = c.clone();
                std::thread::spawn(move || {
                    let mut rng = SmallRng::seed_from_u64(t);
                    for _ in 0..20_000 {
                        let key = CacheKey {
                            owner: rng.random_range(0..4),
                            offset: rng.random_range(0..2000),
                        };
                        match rng.random_range(0..10) {
                            0..=3 => {
                                let prio = if rng.random_bool(0.2) {
                                    Priority::High
                                } else {
                                    Priority::Low
                                };
                                let charge = rng.random_range(1..512);
                                c.insert(key, Plain(key.offset), charge, prio).unwrap();
                            }
                            4..=8 => {
                                if let Some(v) = c.lookup(&key) {
                                    assert_eq!(v, Plain(key.offset));
                                }
                            }
                            _ => c.erase(&key),
                        }
                        assert!(c.usage() <= CAP);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(c.usage() <= CAP);
        for s in c.shards.iter() {
            s.lock().check();
        }
    }
}
