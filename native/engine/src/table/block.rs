//! Key/value blocks (data and index blocks): [`BlockBuilder`], the parsed
//! [`Block`] and its cursor [`BlockIter`].
//!
//! Format (**part of the table format**):
//!
//! ```text
//! block   := entry* restart: u32 LE * num_restarts   num_restarts: u32 LE
//! entry   := shared: varint32  unshared: varint32  value_len: varint32
//!            key_delta (unshared bytes)  value (value_len bytes)
//! ```
//!
//! An entry's key is the first `shared` bytes of the previous entry's key
//! followed by `key_delta`. Every `restart_interval`-th entry (starting with
//! the first) is a *restart point*: it has `shared = 0` and its offset is
//! listed in the restart array, so a seek can binary-search the restart
//! points and decode forward from one. A block always has at least one
//! restart point (offset 0), even when it has no entries.
//!
//! # Search samples (index blocks)
//!
//! A seek binary-searches the restart array, and each probe decodes a
//! restart key somewhere in the block: in an index block (one restart point
//! per entry, thousands of entries) every probe is a cache miss or two, and
//! a point lookup pays that once per table it visits. So an index block, when
//! loaded ([`Block::with_search_samples`]), also keeps the 8-byte key prefix
//! ([`crate::key::user_key_prefix`]) of every [`SAMPLE_EVERY`]-th restart
//! key in one small array: a seek first finds the window of
//! `SAMPLE_EVERY` restart points that can hold its answer there (integers,
//! contiguous, cache-resident), then binary-searches only that window,
//! after prefetching its entries so that their cache misses overlap
//! instead of following one another. The samples also keep each sampled
//! restart key's offset, so the window's entries, which lie between two
//! sampled offsets, are prefetched as one byte range, with their restart
//! offsets, without first waiting for the restart array's line. A
//! prefix strictly below the target's prefix means that restart key sorts
//! before the target, strictly above means after; equal prefixes decide
//! nothing, so keys sharing their first 8 bytes widen the window up to the
//! plain search. Samples are derived at load time and never stored in the
//! file; they cost 12 bytes per `SAMPLE_EVERY` index entries (192 bytes per
//! MiB of uncompressed data at 4 KiB blocks: 8 MB for the 40 GB import),
//! charged with the block.
//!
//! The samples of a large index block (a 64 MiB table has over a thousand)
//! are themselves searched in two steps: every [`SAMPLE_EVERY`]-th sample is
//! also kept in a second, 16 times smaller array, whose search finds the run
//! of at most `SAMPLE_EVERY - 1` samples left to search. The small arrays of
//! all open tables stay in the CPU caches, and the run is one or two cache
//! lines, where a plain binary search over the samples waits for a miss at
//! each of its last half-dozen probes (profile of point lookups over
//! tables larger than the CPU caches: that search was about 8% of a lookup
//! that reads a block). The top samples add a sixteenth to the samples'
//! bytes.
//!
//! # Entry directory (cached data blocks)
//!
//! A point lookup in a data block binary-searches its restart points (each
//! probe a restart key somewhere in the block) and then decodes entries
//! forward from one, up to `restart_interval - 1` of them: a few hundred
//! bytes to a few KiB of the block brought into the CPU cache for one
//! entry. A cached data block that a point lookup finds in the block cache
//! ([`Block::ensure_entry_directory`]) also keeps, for every entry, the
//! 8-byte prefix of its user key ([`crate::key::user_key_prefix`]) in one
//! array and where the entry starts in another, so [`Block::seek_for_get`]
//! binary-searches the prefixes (one or two cache lines) and decodes only
//! the entry it lands on. An entry's key is rebuilt from its own prefix and its delta, without
//! the entries before it, when the bytes it shares with the previous key
//! all lie within that prefix (`shared <= min(8, user key length)`, marked
//! per entry; for keys that do not share long prefixes, every entry);
//! when an entry the lookup needs is not so marked, or prefixes tie in a
//! way the directory cannot order, the lookup falls back to the restart
//! search. An iterator's seek into such a block starts decoding at the
//! first entry whose prefix is not below the target's, found the same way,
//! instead of at a restart point, unless more than a few entries share the
//! target's prefix. Like the search samples the directory is
//! derived, never stored, and charged with the block: 12 bytes per entry,
//! built only when that is at most an eighth of the block (entries of 96
//! bytes or more on average), so blocks of many tiny entries do not grow
//! by half. It is built on the
//! block's first reuse by a lookup, not at load: building decodes every
//! entry, more than the one restart search it saves, and over a database
//! larger than the cache most blocks a lookup reads are used once before
//! they are evicted (the A/B is in docs/results/reads.md). The reader then
//! raises the block's charge in the cache by the directory's size.
//!
//! Keys are internal keys ([`crate::key`]), at least 8 bytes long, strictly
//! increasing in internal-key order. Decoding checks every length against the
//! block bounds and reports violations as `Corruption` naming the file and
//! the block's offset; it never panics.

use std::cmp::Ordering;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use crate::coding::{Reader, decode_fixed32, put_varint32};
use crate::error::{Error, Result};
use crate::iterator::InternalIterator;
use crate::key::{self, TRAILER_LEN, compare_internal};

/// Builds one block. Keys must be added in strictly increasing order (the
/// table builder checks that).
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    restart_interval: usize,
    since_restart: usize,
    last_key: Vec<u8>,
    entries: usize,
}

impl BlockBuilder {
    /// An empty builder placing a restart point every `restart_interval`
    /// entries (at least 1).
    pub fn new(restart_interval: usize) -> Self {
        BlockBuilder {
            buf: Vec::new(),
            restarts: vec![0],
            restart_interval: restart_interval.max(1),
            since_restart: 0,
            last_key: Vec::new(),
            entries: 0,
        }
    }

    /// Forgets everything added, keeping the buffers.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.restarts.clear();
        self.restarts.push(0);
        self.since_restart = 0;
        self.last_key.clear();
        self.entries = 0;
    }

    /// Appends an entry. Preconditions: `key` sorts after the previous key;
    /// key, value and the block stay below 4 GiB.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        let shared = if self.since_restart < self.restart_interval {
            self.last_key
                .iter()
                .zip(key)
                .take_while(|(a, b)| a == b)
                .count()
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.since_restart = 0;
            0
        };
        put_varint32(&mut self.buf, shared as u32);
        put_varint32(&mut self.buf, (key.len() - shared) as u32);
        put_varint32(&mut self.buf, value.len() as u32);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.truncate(shared);
        self.last_key.extend_from_slice(&key[shared..]);
        self.since_restart += 1;
        self.entries += 1;
    }

    /// Size of the block if finished now.
    pub fn estimated_size(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    /// An upper bound of [`Self::estimated_size`] after adding `key` and
    /// `value`: as if the key shared no bytes with the previous one, with
    /// its restart point if the entry would start a restart interval.
    pub fn estimated_size_after(&self, key: &[u8], value: &[u8]) -> usize {
        let restart = if self.since_restart < self.restart_interval {
            0
        } else {
            4
        };
        // Three varint32 lengths, each at most 5 bytes.
        self.estimated_size() + restart + 15 + key.len() + value.len()
    }

    /// True when no entry was added since the last reset.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Appends the restart array and returns the finished block. Call
    /// [`reset`](Self::reset) before adding again.
    pub fn finish(&mut self) -> &[u8] {
        for r in &self.restarts {
            self.buf.extend_from_slice(&r.to_le_bytes());
        }
        self.buf
            .extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        &self.buf
    }
}

/// Restart points per search sample (module docs).
pub const SAMPLE_EVERY: usize = 16;
/// The most entry bytes of a sampled window [`Block::warm_window`]
/// prefetches as one range.
const MAX_WARM_BYTES: usize = 4096;

/// The search samples of an index block (module docs).
struct Samples {
    /// `all[j]` is the key prefix of restart key `j * SAMPLE_EVERY`.
    all: Box<[u64]>,
    /// `tops[t]` is `all[t * SAMPLE_EVERY]`.
    tops: Box<[u64]>,
    /// `at[j]` is the block offset of restart key `j * SAMPLE_EVERY`, where
    /// the entries of window `j` begin (module docs).
    at: Box<[u32]>,
}

impl Samples {
    /// How many samples sort strictly below prefix `p`, as
    /// `all.partition_point(|&s| s < p)`, through the top samples (module
    /// docs). Pinned by
    /// `search_samples_land_every_seek_where_the_plain_search_does`.
    #[inline]
    fn below(&self, p: u64) -> usize {
        let t = self.tops.partition_point(|&s| s < p);
        if t == 0 {
            // The first sample is not below `p`, so none is.
            return 0;
        }
        // all[(t - 1) * SAMPLE_EVERY] < p, and all[t * SAMPLE_EVERY] (when
        // there is one) is not: the answer lies in between.
        let from = (t - 1) * SAMPLE_EVERY + 1;
        let to = (t * SAMPLE_EVERY).min(self.all.len());
        // The offsets the window will need, `at[below - 1]` and
        // `at[above]`, lie in `at[from - 1..=to]`: their misses overlap the
        // run's.
        crate::prefetch::slice(&self.at[from - 1..to.min(self.at.len() - 1) + 1]);
        // A count rather than a binary search: its loads do not depend on
        // each other, so the run's cache misses overlap (and it vectorizes).
        let run = &self.all[from..to];
        from + run.iter().filter(|&&s| s < p).count()
    }

    /// Bytes of the three arrays and their box.
    fn bytes(&self) -> usize {
        std::mem::size_of::<Samples>() + 8 * (self.all.len() + self.tops.len()) + 4 * self.at.len()
    }
}

/// Bit of [`Directory::entries`] marking an entry whose key its prefix and
/// delta rebuild (module docs); the other 31 bits are its offset.
const REBUILDABLE: u32 = 1 << 31;

/// The most entries sharing the target's 8-byte prefix that an iterator's
/// seek decodes from the entry the directory gives it; past that it takes
/// the restart search ([`Block::directory_seek_start`]). Entries of one
/// user key's versions share a prefix, so a few are allowed.
const DIRECTORY_SEEK_RUN: usize = 4;

/// The block offset a [`Directory::entries`] word holds.
#[inline]
fn entry_offset(w: u32) -> usize {
    (w & !REBUILDABLE) as usize
}

/// Largest key buffer a thread keeps for its next [`BlockIter`]
/// ([`SPARE_KEY`]): keys are rarely longer, and a longer one is freed.
const MAX_SPARE_KEY: usize = 1 << 10;

thread_local! {
    /// The key buffer of the last [`BlockIter`] this thread dropped, emptied,
    /// for the next it makes: a point lookup makes two (index and data
    /// block), and each allocated its key buffer at its first decode and
    /// freed it after (profile of point lookups over 20,000,000 rows at 8
    /// threads: the allocator about 7% of samples, with these buffers and
    /// the blocks' own allocations, [`SHELLS`], its callers). Every
    /// positioning clears the key before decoding, so the buffer's old
    /// bytes are never read.
    static SPARE_KEY: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    /// Working space of [`Block::ensure_entry_directory`].
    static DIRECTORY_SCRATCH: std::cell::RefCell<(Vec<u64>, Vec<u32>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// The entry directory of a cached data block (module docs).
#[derive(Default)]
struct Directory {
    /// `prefixes[i]`: the user-key prefix of entry `i`; non-decreasing.
    prefixes: Box<[u64]>,
    /// `entries[i]`: entry `i`'s offset, with [`REBUILDABLE`].
    entries: Box<[u32]>,
}

impl Directory {
    /// Reads one word of every cache line of both arrays before
    /// [`Block::seek_for_get`]'s binary search, as [`Block::warm_window`]
    /// does for index blocks: the loads do not depend on each other, so
    /// their cache misses overlap, where the search would wait for a
    /// prefix's miss, then the next probe's, then the entry's offset's in
    /// turn (profile of cached present-key gets: those loads about half of
    /// the data block's search, the entry's own miss the other half). A
    /// hint only: no result depends on it.
    fn warm(&self) {
        const STEP_U64: usize = 64 / 8;
        const STEP_U32: usize = 64 / 4;
        let mut touched = 0u64;
        // Every 64th byte from the first, and the last element, which an
        // array not aligned to a line can leave alone on one more line.
        for &x in self.prefixes.iter().step_by(STEP_U64).chain(self.prefixes.last()) {
            touched ^= x;
        }
        for &w in self.entries.iter().step_by(STEP_U32).chain(self.entries.last()) {
            touched ^= u64::from(w);
        }
        std::hint::black_box(touched);
    }
}

/// What [`Block::seek_for_get`] found for a point lookup.
pub enum BlockGet {
    /// The first entry at or after the target is not of the target's user
    /// key, or there is none: the key is not in this block.
    NotHere,
    /// The first entry at or after the target, of the target's user key:
    /// its internal key's trailer and its value's byte range in the block.
    Entry { trailer: u64, value: (usize, usize) },
}

/// A parsed, validated block: its bytes plus where the restart array starts.
/// Immutable; shared through `Arc` by the cache and iterators.
pub struct Block {
    data: Vec<u8>,
    /// `None` unless built by [`Block::with_search_samples`]: boxed, so
    /// that data blocks, which never have them, are charged one word for
    /// them.
    samples: Option<Box<Samples>>,
    /// Unset until built by [`Block::ensure_entry_directory`]; set to an
    /// empty directory when the block is outside the directory's limits.
    dir: OnceLock<Directory>,
    /// End of the entries, start of the restart array.
    restarts_offset: usize,
    num_restarts: usize,
    file: Arc<str>,
    offset: u64,
}

/// The block's buffer goes back to this thread's pool for the next block
/// read (`table/buffers.rs`).
impl Drop for Block {
    fn drop(&mut self) {
        super::buffers::give(std::mem::take(&mut self.data));
    }
}

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Block")
            .field("file", &self.file)
            .field("offset", &self.offset)
            .field("len", &self.data.len())
            .field("num_restarts", &self.num_restarts)
            .finish()
    }
}

/// Most block allocations a thread keeps for its next blocks ([`SHELLS`]):
/// an insert into a full cache evicts about one block, so one or two
/// would do; a few more ride out evictions of several small blocks.
const SHELLS_KEPT: usize = 8;

thread_local! {
    /// The `Arc` allocations of blocks the block cache let go of, emptied
    /// (their buffers gone to `table/buffers.rs`'s pool), for the next
    /// blocks this thread reads ([`Block::into_shared`]). Once the data read
    /// is larger than the cache, every block read evicts another, mostly one
    /// another thread read: each read allocated a block and each eviction
    /// freed one across threads, which the allocator collects later, from
    /// free lists gone cold (profile of point lookups over 20,000,000 rows
    /// at 8 threads: `_mi_page_malloc` and `_mi_page_free_collect` about 5%
    /// of samples). Kept, an allocation is reused by the thread that
    /// evicted it. At most [`SHELLS_KEPT`], each holding only a block's
    /// fixed fields and the name of its file.
    static SHELLS: std::cell::RefCell<Vec<Arc<Block>>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Block {
    /// The block in an `Arc`, in an allocation this thread kept from a
    /// block the cache evicted ([`Block::recycle`]) when it has one.
    pub fn into_shared(self) -> Arc<Block> {
        let shell = SHELLS
            .try_with(|s| s.try_borrow_mut().ok()?.pop())
            .ok()
            .flatten();
        match shell {
            Some(mut shell) => match Arc::get_mut(&mut shell) {
                Some(b) => {
                    *b = self;
                    shell
                }
                None => Arc::new(self),
            },
            None => Arc::new(self),
        }
    }

    /// Keeps `block`'s allocation, emptied, for this thread's next
    /// [`Block::into_shared`] when no one else holds it; drops it otherwise
    /// (another holder keeps the block whole). Pinned by
    /// `a_recycled_block_allocation_holds_the_next_block`.
    pub fn recycle(mut block: Arc<Block>) {
        let Some(b) = Arc::get_mut(&mut block) else {
            return;
        };
        super::buffers::give(std::mem::take(&mut b.data));
        b.samples = None;
        b.dir = OnceLock::new();
        let _ = SHELLS.try_with(move |s| {
            if let Ok(mut s) = s.try_borrow_mut()
                && s.len() < SHELLS_KEPT
            {
                s.push(block);
            }
        });
    }

    /// Validates the restart array of `data`, the uncompressed bytes of the
    /// block at `offset` of `file`.
    pub fn new(data: Vec<u8>, file: Arc<str>, offset: u64) -> Result<Block> {
        let bad = |reason: String| Error::corruption(&*file, offset, reason);
        let len = data.len();
        if len < 4 {
            return Err(bad(format!("block of {len} bytes has no restart count")));
        }
        let num_restarts = decode_fixed32(&data[len - 4..]) as usize;
        let array_len = num_restarts
            .checked_add(1)
            .and_then(|n| n.checked_mul(4))
            .filter(|&n| n <= len);
        let Some(array_len) = array_len else {
            return Err(bad(format!(
                "block of {len} bytes claims {num_restarts} restart points"
            )));
        };
        if num_restarts == 0 {
            return Err(bad("block has no restart points".into()));
        }
        let restarts_offset = len - array_len;
        let mut prev = None;
        for i in 0..num_restarts {
            let r = decode_fixed32(&data[restarts_offset + 4 * i..]) as usize;
            let ordered = match prev {
                None => r == 0,
                Some(p) => r > p,
            };
            if !ordered || (r >= restarts_offset && restarts_offset != 0) || r > restarts_offset {
                return Err(bad(format!(
                    "restart point {i} at {r} is out of order or outside the {restarts_offset} \
                     bytes of entries"
                )));
            }
            prev = Some(r);
        }
        Ok(Block {
            data,
            samples: None,
            dir: OnceLock::new(),
            restarts_offset,
            num_restarts,
            file,
            offset,
        })
    }

    /// Adds the search samples (module docs): for index blocks, whose
    /// seeks dominate point lookups. Decodes every sampled restart key, so
    /// a damaged one fails here, at load.
    pub fn with_search_samples(mut self) -> Result<Block> {
        if self.num_restarts > SAMPLE_EVERY {
            let n = self.num_restarts.div_ceil(SAMPLE_EVERY);
            let (mut all, mut at) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for i in (0..self.num_restarts).step_by(SAMPLE_EVERY) {
                all.push(key::internal_key_prefix(self.restart_key(i)?));
                // Restart offsets lie within the block (checked by
                // `Block::new`), so below 4 GiB.
                at.push(self.restart_point(i) as u32);
            }
            let tops = all.iter().step_by(SAMPLE_EVERY).copied().collect();
            self.samples = Some(Box::new(Samples {
                all: all.into_boxed_slice(),
                tops,
                at: at.into_boxed_slice(),
            }));
        }
        Ok(self)
    }

    /// [`Self::ensure_entry_directory`] on a block about to be shared (tests).
    #[cfg(test)]
    fn with_entry_directory(self) -> Result<Block> {
        self.ensure_entry_directory()?;
        Ok(self)
    }

    /// Builds the entry directory (module docs) of a data block unless it
    /// has one: an empty one when it would cost more than an eighth of the
    /// block. Decodes every entry, so a damaged one fails here. True when
    /// this call built a non-empty directory (the block grew by
    /// [`Self::directory_bytes`]). Threads racing here may each build one;
    /// the first stored is kept, and only its builder is told it built.
    pub fn ensure_entry_directory(&self) -> Result<bool> {
        if self.dir.get().is_some() {
            return Ok(false);
        }
        // Built in this thread's scratch vectors and copied out at its
        // exact size: two allocations per block, where growing and
        // shrinking two vectors took about ten.
        let dir = DIRECTORY_SCRATCH.with(|cell| {
            let Ok(mut scratch) = cell.try_borrow_mut() else {
                return self.build_directory(&mut (Vec::new(), Vec::new()));
            };
            self.build_directory(&mut scratch)
        })?;
        let built = dir.as_ref().is_some_and(|d| !d.entries.is_empty());
        Ok(self.dir.set(dir.unwrap_or_default()).is_ok() && built)
    }

    /// Bytes of the entry directory, 0 without one.
    pub fn directory_bytes(&self) -> usize {
        self.dir.get().map_or(0, |d| 12 * d.entries.len())
    }

    /// The entry directory of [`Self::with_entry_directory`], `None` when
    /// the block is outside its limits; `scratch` is cleared and used as
    /// working space.
    fn build_directory(
        &self,
        (prefixes, entries): &mut (Vec<u64>, Vec<u32>),
    ) -> Result<Option<Directory>> {
        prefixes.clear();
        entries.clear();
        let budget = self.data.len() / 8;
        // The iterator decodes (and checks) each entry as a scan would.
        let mut it = BlockIter::new(self);
        it.seek_to_first();
        while it.valid() {
            if 12 * (entries.len() + 1) > budget || it.cur >= REBUILDABLE as usize {
                return Ok(None);
            }
            let shared = self
                .entry_at(it.cur)
                .map_err(|w| self.corruption(it.cur, w))?
                .shared;
            let user_key = key::user_key(it.key());
            let whole = shared <= user_key.len().min(8);
            prefixes.push(key::user_key_prefix(user_key));
            entries.push(it.cur as u32 | if whole { REBUILDABLE } else { 0 });
            it.next();
        }
        it.status()?;
        Ok(Some(Directory {
            prefixes: Box::from(&prefixes[..]),
            entries: Box::from(&entries[..]),
        }))
    }

    /// A point lookup of `target` (an internal key: the user key at the
    /// reader's sequence number) through the entry directory: the first
    /// entry at or after `target`, or `None` when the block has no
    /// directory or the directory cannot decide (module docs; the caller
    /// then seeks as an iterator would). Same answer as a [`BlockIter`]
    /// seek, pinned by `entry_directory_lookups_agree_with_the_iterator_seek`.
    pub fn seek_for_get(&self, target: &[u8]) -> Option<BlockGet> {
        let d = self.dir.get()?;
        if d.entries.is_empty() || target.len() < TRAILER_LEN {
            return None;
        }
        let user_key = key::user_key(target);
        let p = key::user_key_prefix(user_key);
        let prefix = p.to_be_bytes();
        d.warm();
        let start = d.prefixes.partition_point(|&x| x < p);
        // Entries before `start` sort before every key with prefix `p`;
        // the first after the run of `p` sorts after `target`, and its user
        // key differs from it.
        for i in start..d.prefixes.len() {
            if d.prefixes[i] != p {
                return Some(BlockGet::NotHere);
            }
            let w = d.entries[i];
            if w & REBUILDABLE == 0 {
                return None;
            }
            let at = entry_offset(w);
            let e = self.entry_at(at).ok()?;
            // The key is `prefix[..shared]` then the delta: compared in its
            // two pieces, without copying it anywhere.
            let delta = &self.data[e.key_start..e.value_start];
            let head = prefix.get(..e.shared)?;
            // A marked entry's user key holds its shared bytes (load-time
            // check); a damaged one falls back rather than panics.
            let ulen = (e.shared + delta.len())
                .checked_sub(TRAILER_LEN)
                .filter(|&u| u >= e.shared)?;
            match compare_split(head, &delta[..ulen - e.shared], user_key) {
                Ordering::Less => continue,
                Ordering::Greater => return Some(BlockGet::NotHere),
                Ordering::Equal => {
                    let trailer = key::trailer(&delta[delta.len() - TRAILER_LEN..]);
                    // Same user key: the newest entry at or below the
                    // target's sequence number comes first (trailers sort
                    // descending).
                    if trailer > key::trailer(target) {
                        continue;
                    }
                    return Some(BlockGet::Entry {
                        trailer,
                        value: (e.value_start, e.end),
                    });
                }
            }
        }
        Some(BlockGet::NotHere)
    }

    /// Prefetches the lines of the entry directory that
    /// [`Self::seek_for_get`] searches, when the block has one: a batch of
    /// lookups does so for every key's block before searching any. A hint
    /// only: no result depends on it.
    pub fn prefetch_for_get(&self) {
        if let Some(d) = self.dir.get() {
            crate::prefetch::slice(&d.prefixes);
            crate::prefetch::slice(&d.entries);
        }
    }

    /// Prefetches the entry [`Self::seek_for_get`] will decode first for
    /// `target` (an internal key), found through the entry directory, and
    /// the lines its value spans: a batch of lookups does so for every
    /// key's block before searching any, once the directories' lines have
    /// arrived ([`Self::prefetch_for_get`]). Nothing without a directory.
    /// A hint only: no result depends on it.
    pub fn prefetch_entry_for_get(&self, target: &[u8]) {
        let Some(d) = self.dir.get() else {
            return;
        };
        if target.len() < TRAILER_LEN {
            return;
        }
        let p = key::user_key_prefix(key::user_key(target));
        let i = d.prefixes.partition_point(|&x| x < p);
        let Some(&w) = d.entries.get(i) else {
            return;
        };
        let at = entry_offset(w);
        // The entry ends where the next begins (or the entries end).
        let end = d
            .entries
            .get(i + 1)
            .map_or(self.restarts_offset, |&n| entry_offset(n));
        if let Some(bytes) = self.data.get(at..end) {
            crate::prefetch::slice(bytes);
        }
    }

    /// The entry before the one at `at`, through the directory, when its
    /// key can be rebuilt alone: its offset and its user-key prefix's bytes
    /// (the first `shared` of which are its key's first bytes). `None`
    /// without a directory, at the first entry, or for an entry not so
    /// marked.
    fn directory_prev(&self, at: usize) -> Option<(usize, [u8; 8])> {
        let d = self.dir.get()?;
        let i = d.entries.partition_point(|&w| entry_offset(w) < at);
        if i == 0 || d.entries.get(i).map(|&w| entry_offset(w)) != Some(at) {
            return None;
        }
        let w = d.entries[i - 1];
        (w & REBUILDABLE != 0).then(|| (entry_offset(w), d.prefixes[i - 1].to_be_bytes()))
    }

    /// Where an iterator's seek to `target` (an internal key) may start
    /// decoding, through the directory: the first entry whose user-key
    /// prefix is not below the target's, with its prefix's bytes (as
    /// [`Self::directory_prev`] gives them), or `Some(None)` when every
    /// entry's prefix is below it (the seek ends past the block). Every
    /// entry before the one returned sorts before `target` (a prefix
    /// strictly below means a user key strictly below), so the seek goes
    /// on from it as from a restart point. `None` without a directory,
    /// when that entry's key cannot be rebuilt alone, or when more than
    /// [`DIRECTORY_SEEK_RUN`] entries from it share the target's prefix
    /// (keys with a common 8-byte prefix: the seek would decode the whole
    /// run, where the restart search decodes at most an interval): the
    /// caller searches the restart points. Same positions as the restart
    /// search, pinned by
    /// `iterator_seeks_through_the_directory_match_the_restart_search`.
    fn directory_seek_start(&self, target: &[u8]) -> Option<Option<(usize, [u8; 8])>> {
        let d = self.dir.get()?;
        // An empty directory marks a block outside the directory's limits.
        if d.entries.is_empty() || target.len() < TRAILER_LEN {
            return None;
        }
        let p = key::user_key_prefix(key::user_key(target));
        d.warm();
        let i = d.prefixes.partition_point(|&x| x < p);
        let Some(&w) = d.entries.get(i) else {
            return Some(None);
        };
        // Prefixes are non-decreasing: the run of `p` from `i` is short
        // exactly when the entry DIRECTORY_SEEK_RUN further on is past it.
        let short_run = d
            .prefixes
            .get(i + DIRECTORY_SEEK_RUN)
            .is_none_or(|&x| x != p);
        (w & REBUILDABLE != 0 && short_run)
            .then(|| Some((entry_offset(w), d.prefixes[i].to_be_bytes())))
    }

    /// `user_key_comparison_count` of a [`Self::seek_for_get`] that
    /// decided: the prefix search's depth plus the final comparison, as
    /// [`BlockIter`]'s seeks count theirs.
    pub fn directory_comparisons(&self) -> u64 {
        let n = self.dir.get().map_or(1, |d| d.entries.len().max(1));
        u64::from(usize::BITS - (n - 1).leading_zeros()) + 1
    }

    /// The value bytes of a [`BlockGet::Entry`].
    pub fn value_at(&self, range: (usize, usize)) -> &[u8] {
        &self.data[range.0..range.1]
    }

    /// Memory charged for this block in the block cache.
    pub fn size_in_bytes(&self) -> usize {
        self.data.capacity()
            + self.samples.as_ref().map_or(0, |s| s.bytes())
            + self.directory_bytes()
            + std::mem::size_of::<Block>()
    }

    /// The restart points `[lo, hi]` that can hold the last restart key
    /// below `target` (0 when none is): all of them without samples, else
    /// the window the samples leave (module docs).
    fn restart_window(&self, target: &[u8]) -> (usize, usize) {
        let last = self.num_restarts - 1;
        let Some(samples) = &self.samples else {
            return (0, last);
        };
        let p = key::internal_key_prefix(target);
        // Samples before `below` sort before `target`; samples from
        // `above` on sort after it.
        let below = samples.below(p);
        let above = below + equal_run(&samples.all[below..], p);
        let lo = below.saturating_sub(1) * SAMPLE_EVERY;
        let hi = if above < samples.all.len() {
            (above * SAMPLE_EVERY).saturating_sub(1)
        } else {
            last
        };
        (lo, hi)
    }

    /// Brings restart entries `lo..=hi` toward the CPU caches before the
    /// binary search of a sampled window (index blocks, at most
    /// `2 * SAMPLE_EVERY` restarts) probes them, so that their cache misses
    /// overlap where the search would wait for each probe's in turn
    /// (profiles of point lookups over tables larger than the CPU caches:
    /// the index search about a fifth of a lookup that reads a block).
    /// When the samples give the window's byte range
    /// ([`Self::window_bytes`]), its lines and the window's restart offsets
    /// are prefetched at once; else each entry's first byte is loaded,
    /// through the restart array, which waits for that array's line first
    /// (profile of 8-thread gets over 20M rows: the array's load 3.5% of
    /// samples). A hint only: no result depends on it.
    fn warm_window(&self, lo: usize, hi: usize) {
        let hi = hi.min(self.num_restarts - 1);
        if let Some((a, b)) = self.window_bytes(lo, hi)
            && b - a <= MAX_WARM_BYTES
            && let Some(entries) = self.data.get(a..b)
            && let Some(restarts) = self
                .data
                .get(self.restarts_offset + 4 * lo..self.restarts_offset + 4 * (hi + 1))
        {
            crate::prefetch::slice(restarts);
            crate::prefetch::slice(entries);
            return;
        }
        let mut touched = 0u8;
        for i in lo..=hi {
            // Restart offsets were checked at load (`Block::new`) to lie
            // within the block; `get` keeps a bad one harmless anyway.
            touched ^= self.data.get(self.restart_point(i)).copied().unwrap_or(0);
        }
        std::hint::black_box(touched);
    }

    /// The bytes `[a, b)` holding the entries of restart points `lo..=hi`,
    /// when the search samples give both ends: `lo` and `hi + 1` sampled
    /// (or `hi` the last). Every window [`Self::restart_window`] leaves is
    /// such a window, but `[0, 0]`, that of a target below every sample.
    fn window_bytes(&self, lo: usize, hi: usize) -> Option<(usize, usize)> {
        let s = self.samples.as_ref()?;
        if !lo.is_multiple_of(SAMPLE_EVERY) {
            return None;
        }
        let a = *s.at.get(lo / SAMPLE_EVERY)? as usize;
        let b = if hi + 1 == self.num_restarts {
            self.restarts_offset
        } else if (hi + 1).is_multiple_of(SAMPLE_EVERY) {
            *s.at.get((hi + 1) / SAMPLE_EVERY)? as usize
        } else {
            return None;
        };
        (a < b).then_some((a, b))
    }

    /// Offset of the block in its file.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// How many restart points lie before block byte `at`: a binary search,
    /// the restart offsets being strictly increasing (checked at load).
    fn restarts_before(&self, at: usize) -> usize {
        let (mut lo, mut hi) = (0, self.num_restarts);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.restart_point(mid) < at {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn restart_point(&self, i: usize) -> usize {
        decode_fixed32(&self.data[self.restarts_offset + 4 * i..]) as usize
    }

    fn corruption(&self, at: usize, what: &str) -> Error {
        Error::corruption(
            &*self.file,
            self.offset,
            format!("bad block entry at block byte {at}: {what}"),
        )
    }

    /// Decodes the header of the entry at `at`: `(shared, key_delta, value)`
    /// as byte ranges, or the reason it is malformed.
    fn entry_at(&self, at: usize) -> std::result::Result<Entry, &'static str> {
        let entries = &self.data[..self.restarts_offset];
        let src = entries.get(at..).ok_or("offset past the entries")?;
        // Fast path: shared and unshared lengths below 128 (one byte each,
        // almost every entry), then the value length (one or two bytes for
        // values under 16 KiB).
        let (shared, unshared, value_len, header) = match src {
            [a, b, c, ..] if (a | b | c) < 0x80 => (*a as usize, *b as usize, *c as usize, 3),
            [a, b, c, d, ..] if (a | b | d) < 0x80 => (
                *a as usize,
                *b as usize,
                (*c & 0x7f) as usize | (*d as usize) << 7,
                4,
            ),
            _ => {
                let mut r = Reader::new(src);
                let shared = r.varint32().ok_or("bad shared length")? as usize;
                let unshared = r.varint32().ok_or("bad key length")? as usize;
                let value_len = r.varint32().ok_or("bad value length")? as usize;
                (shared, unshared, value_len, r.pos())
            }
        };
        let key_start = at + header;
        let value_start = key_start
            .checked_add(unshared)
            .ok_or("key length overflows")?;
        let end = value_start
            .checked_add(value_len)
            .filter(|&e| e <= self.restarts_offset)
            .ok_or("entry runs past the end of the entries")?;
        Ok(Entry {
            shared,
            key_start,
            value_start,
            end,
        })
    }

    /// The full key of the restart entry `i` (which must not share a prefix).
    fn restart_key(&self, i: usize) -> std::result::Result<&[u8], Error> {
        let at = self.restart_point(i);
        let e = self.entry_at(at).map_err(|w| self.corruption(at, w))?;
        if e.shared != 0 {
            return Err(self.corruption(at, "restart entry shares a prefix"));
        }
        let key = &self.data[e.key_start..e.value_start];
        if key.len() < TRAILER_LEN {
            return Err(self.corruption(at, "key shorter than an internal-key trailer"));
        }
        Ok(key)
    }
}

struct Entry {
    shared: usize,
    key_start: usize,
    value_start: usize,
    end: usize,
}

/// Compares the user key `head ++ tail` with `other`, bytewise, without
/// joining the pieces.
fn compare_split(head: &[u8], tail: &[u8], other: &[u8]) -> Ordering {
    let n = head.len().min(other.len());
    match head[..n].cmp(&other[..n]) {
        Ordering::Equal if n < head.len() => Ordering::Greater,
        Ordering::Equal => tail.cmp(&other[n..]),
        o => o,
    }
}

/// A cursor over one block, implementing [`InternalIterator`]. Holds its
/// block through an `Arc` (the default), so a cached block stays pinned
/// while iterated, or through a plain borrow `&Block` for a lookup that
/// already holds the block (a table reader's own index block): cloning an
/// `Arc` shared by every reader thread would move its count's cache line
/// between cores on every lookup.
pub struct BlockIter<B: Deref<Target = Block> = Arc<Block>> {
    block: B,
    /// Offset of the current entry (meaningful while `valid`).
    cur: usize,
    /// Offset just past the current entry.
    next: usize,
    key: Vec<u8>,
    value: (usize, usize),
    valid: bool,
    err: Option<Error>,
    /// The restart interval last decoded for a step backward (see
    /// [`BackSteps`]); made on the first such step, so lookups never
    /// allocate it.
    back: Option<Box<BackSteps>>,
}

/// The entries of one restart interval, decoded once by a step backward
/// (or by `seek_to_last`), so that the next steps back within the interval
/// are lookups. Without it every `prev` decoded forward from the interval's
/// restart point: half an interval per step, most of a reverse scan's time
/// in entry decoding (profile of reverse scans over cached blocks without
/// an entry directory: `entry_at`, `decode_at` and `restart_point` about a
/// third of the samples).
///
/// Entries are keyed by their offset in the block: an entry's key and
/// value depend only on its block and offset, so whatever moved the
/// iterator meanwhile, a current entry found at `entries[pos]` has its
/// predecessor at `entries[pos - 1]`. `reset` (another block) empties it.
#[derive(Default)]
struct BackSteps {
    entries: Vec<BackEntry>,
    /// The entries' keys end to end (`BackEntry::key_end`).
    keys: Vec<u8>,
    /// Index in `entries` of the entry the iterator was left on.
    pos: usize,
}

#[derive(Clone, Copy)]
struct BackEntry {
    at: usize,
    /// Where its key ends in `BackSteps::keys` (it starts where the
    /// previous entry's ends).
    key_end: usize,
    value: (usize, usize),
    next: usize,
}

impl<B: Deref<Target = Block>> Drop for BlockIter<B> {
    /// Leaves the key buffer to the thread's next iterator (`SPARE_KEY`).
    fn drop(&mut self) {
        if self.key.capacity() <= MAX_SPARE_KEY {
            let mut key = std::mem::take(&mut self.key);
            key.clear();
            let _ = SPARE_KEY.try_with(|k| k.set(key));
        }
    }
}

impl<B: Deref<Target = Block>> BlockIter<B> {
    /// An unpositioned cursor over `block`.
    pub fn new(block: B) -> Self {
        BlockIter {
            block,
            cur: 0,
            next: 0,
            key: SPARE_KEY.try_with(|k| k.take()).unwrap_or_default(),
            value: (0, 0),
            valid: false,
            err: None,
            back: None,
        }
    }

    /// Switches to another block, keeping the key buffer. Unpositioned after.
    pub fn reset(&mut self, block: B) {
        self.block = block;
        self.valid = false;
        self.err = None;
        self.key.clear();
        if let Some(b) = &mut self.back {
            b.entries.clear();
        }
    }

    /// Positions on the last entry of restart interval `restart` that
    /// starts before `until`, decoding the interval from its restart point
    /// and keeping each entry in [`BackSteps`] for the steps back after.
    fn decode_interval_before(&mut self, restart: usize, until: usize) {
        let mut b = self.back.take().unwrap_or_default();
        b.entries.clear();
        b.keys.clear();
        self.seek_to_restart(restart);
        while self.valid {
            b.keys.extend_from_slice(&self.key);
            b.entries.push(BackEntry {
                at: self.cur,
                key_end: b.keys.len(),
                value: self.value,
                next: self.next,
            });
            if self.next >= until {
                break;
            }
            let next = self.next;
            self.decode_at(next);
        }
        b.pos = b.entries.len().saturating_sub(1);
        self.back = Some(b);
    }

    /// Steps back to the entry before the current one if the last decoded
    /// interval holds both; false when it does not.
    fn prev_from_back_steps(&mut self) -> bool {
        let Some(b) = self.back.as_deref_mut() else {
            return false;
        };
        if b.pos == 0 || b.entries.get(b.pos).is_none_or(|e| e.at != self.cur) {
            return false;
        }
        b.pos -= 1;
        let e = b.entries[b.pos];
        let key_start = if b.pos == 0 { 0 } else { b.entries[b.pos - 1].key_end };
        self.key.clear();
        self.key.extend_from_slice(&b.keys[key_start..e.key_end]);
        self.cur = e.at;
        self.next = e.next;
        self.value = e.value;
        true
    }

    /// The values of up to `N` entries after the current one, decoded
    /// without moving (an index cursor's next block handles, which a scan
    /// prefetches). Fewer at the block's end or at a malformed entry, which
    /// the move itself will report. All `None` when unpositioned.
    pub fn peek_values<const N: usize>(&self) -> [Option<&[u8]>; N] {
        let mut out = [None; N];
        if !self.valid {
            return out;
        }
        let mut at = self.next;
        for v in &mut out {
            if at >= self.block.restarts_offset {
                break;
            }
            let Ok(e) = self.block.entry_at(at) else {
                break;
            };
            *v = self.block.data.get(e.value_start..e.end);
            at = e.end;
        }
        out
    }

    /// The block iterated.
    pub fn block(&self) -> &B {
        &self.block
    }

    fn fail(&mut self, e: Error) {
        self.valid = false;
        if self.err.is_none() {
            self.err = Some(e);
        }
    }

    /// Decodes the entry at `at`, one the directory marks rebuildable
    /// alone, on top of its own user-key prefix `prefix` (module docs): the
    /// directory's seek start and step back.
    fn decode_on_prefix(&mut self, at: usize, prefix: &[u8; 8]) {
        self.key.clear();
        self.key.extend_from_slice(prefix);
        self.decode_at(at);
    }

    /// Decodes the entry at `at` on top of the key in `self.key`.
    fn decode_at(&mut self, at: usize) {
        if at >= self.block.restarts_offset {
            self.valid = false;
            return;
        }
        let e = match self.block.entry_at(at) {
            Ok(e) => e,
            Err(w) => return self.fail(self.block.corruption(at, w)),
        };
        if e.shared > self.key.len() {
            return self.fail(
                self.block
                    .corruption(at, "shared prefix longer than the previous key"),
            );
        }
        self.key.truncate(e.shared);
        self.key
            .extend_from_slice(&self.block.data[e.key_start..e.value_start]);
        if self.key.len() < TRAILER_LEN {
            return self.fail(
                self.block
                    .corruption(at, "key shorter than an internal-key trailer"),
            );
        }
        self.cur = at;
        self.next = e.end;
        self.value = (e.value_start, e.end);
        // Which restart interval the entry lies in is left to `prev`, the
        // one step that needs it: kept here, every step of a forward scan
        // read the restart array, a cache line at the block's end that a
        // scan otherwise never touches (profile of full scans: 6% of the
        // samples on that load).
        self.valid = true;
    }

    /// Positions on restart point `i` (whose key shares nothing).
    fn seek_to_restart(&mut self, i: usize) {
        self.key.clear();
        // Restart point 0 is at byte 0 (checked at load): a scan entering
        // the next block reads its first entry without the restart array's
        // line (profile of full scans: 6% of the samples on that load).
        let at = if i == 0 { 0 } else { self.block.restart_point(i) };
        self.decode_at(at);
    }

    /// [`InternalIterator::seek`] for a caller that read the thread's perf
    /// level for its operation (`level`, a point lookup's): counts
    /// `user_key_comparison_count` without reading the thread-local at
    /// `Disable`. Not inlined into its caller: it is as large as the trait's
    /// seek, which the table reader's point lookup called out of line.
    #[inline(never)]
    pub fn seek_at(&mut self, target: &[u8], level: u8) {
        self.seek_uncounted(target);
        crate::perf_count!(at level => user_key_comparison_count = self.seek_comparisons());
    }

    /// The seek itself. The perf context counts outside it, so that its loops
    /// stay exactly as without the perf context (counting in them changed
    /// their inlining and showed in the cost of a cached get). Inlined into
    /// both seeks, with `find_restart`, as it was into the one seek before
    /// (kept out of line, the two cost about 80 instructions more per cached
    /// get, in every build).
    #[inline(always)]
    fn seek_uncounted(&mut self, target: &[u8]) {
        if self.err.is_some() {
            return;
        }
        // A cached data block that point lookups gave an entry directory:
        // the directory's prefixes find the entry to start from, where the
        // restart search decodes on average half an interval of entries
        // from a restart point (profile of seek + 50 `next` over cached
        // blocks: the data block's search about a third of the seek).
        match self.block.directory_seek_start(target) {
            Some(Some((at, prefix))) => self.decode_on_prefix(at, &prefix),
            Some(None) => {
                self.valid = false;
                return;
            }
            None => {
                let Some(r) = self.find_restart(target) else {
                    return;
                };
                self.seek_to_restart(r);
            }
        }
        while self.valid && compare_internal(&self.key, target) == Ordering::Less {
            let next = self.next;
            self.decode_at(next);
        }
    }

    /// `user_key_comparison_count` of a seek: the binary search's depth plus
    /// the final comparison. The linear scan inside the restart interval (up
    /// to `block_restart_interval - 1` more comparisons) is not counted.
    #[inline]
    fn seek_comparisons(&self) -> u64 {
        u64::from(usize::BITS - (self.block.num_restarts - 1).leading_zeros()) + 1
    }

    /// Index of the last restart point whose key is < `target`, or 0.
    #[inline(always)]
    fn find_restart(&mut self, target: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = self.block.restart_window(target);
        if self.block.samples.is_some() {
            self.block.warm_window(lo, hi);
        }
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            match self.block.restart_key(mid) {
                Ok(k) if compare_internal(k, target) == Ordering::Less => lo = mid,
                Ok(_) => hi = mid - 1,
                Err(e) => {
                    self.fail(e);
                    return None;
                }
            }
        }
        Some(lo)
    }
}

/// How many leading elements of `sorted` (ascending) equal `p`. Gallops
/// from the front: usually no sample shares the target's prefix and the
/// answer comes from the one element the search for `p` already loaded,
/// where a binary search over the whole rest would first probe its middle,
/// a cache miss on every lookup (profile of point lookups over tables
/// larger than the CPU caches: that second search took a third of the
/// index seek). A long run of equal prefixes still costs only a logarithm.
/// Pinned by `equal_run_counts_the_leading_run`.
fn equal_run(sorted: &[u64], p: u64) -> usize {
    let mut end = 0;
    let mut step = 1;
    // Invariant: sorted[..end] all equal p.
    while end < sorted.len() && sorted[end] == p {
        let probe = (end + step).min(sorted.len());
        if sorted[probe - 1] != p {
            return end + 1 + sorted[end + 1..probe - 1].partition_point(|&s| s == p);
        }
        end = probe;
        step *= 2;
    }
    end
}

impl<B: Deref<Target = Block> + Send> InternalIterator for BlockIter<B> {
    fn valid(&self) -> bool {
        self.valid
    }

    fn seek_to_first(&mut self) {
        if self.err.is_none() {
            self.seek_to_restart(0);
        }
    }

    fn seek_to_last(&mut self) {
        if self.err.is_some() {
            return;
        }
        let until = self.block.restarts_offset;
        self.decode_interval_before(self.block.num_restarts - 1, until);
    }

    fn seek(&mut self, target: &[u8]) {
        self.seek_uncounted(target);
        crate::perf_count!(user_key_comparison_count = self.seek_comparisons());
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        self.seek(target);
        if self.err.is_some() {
            return;
        }
        if !self.valid {
            self.seek_to_last();
        } else if compare_internal(&self.key, target) == Ordering::Greater {
            self.prev();
        }
    }

    fn next(&mut self) {
        if self.valid {
            let next = self.next;
            self.decode_at(next);
        }
    }

    fn prev(&mut self) {
        if !self.valid {
            return;
        }
        let original = self.cur;
        // With the entry directory, the previous entry directly: its key is
        // its prefix's first `shared` bytes and its delta (module docs), so
        // `decode_at` on top of the prefix rebuilds it, instead of decoding
        // forward from the restart point (half an interval per step).
        if let Some((at, prefix)) = self.block.directory_prev(original) {
            return self.decode_on_prefix(at, &prefix);
        }
        if self.prev_from_back_steps() {
            return;
        }
        // The last restart point before the current entry.
        let below = self.block.restarts_before(original);
        if below == 0 {
            self.valid = false;
            return;
        }
        self.decode_interval_before(below - 1, original);
    }

    fn key(&self) -> &[u8] {
        if self.valid { &self.key } else { &[] }
    }

    fn value(&self) -> &[u8] {
        if self.valid {
            &self.block.data[self.value.0..self.value.1]
        } else {
            &[]
        }
    }

    fn status(&self) -> Result<()> {
        match &self.err {
            None => Ok(()),
            Some(e) => Err(e.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{ValueKind, make_internal_key};

    fn ik(k: &str, seq: u64) -> Vec<u8> {
        make_internal_key(k.as_bytes(), seq, ValueKind::Value)
    }

    /// `entries` as a block with restart interval `interval`.
    fn unshared(entries: &[(Vec<u8>, Vec<u8>)], interval: usize) -> Block {
        let mut b = BlockBuilder::new(interval);
        for (k, v) in entries {
            b.add(k, v);
        }
        Block::new(b.finish().to_vec(), Arc::from("t.sst"), 0).unwrap()
    }

    fn build(entries: &[(Vec<u8>, Vec<u8>)], interval: usize) -> Arc<Block> {
        Arc::new(unshared(entries, interval))
    }

    #[test]
    fn equal_run_counts_the_leading_run() {
        for len in 0..40usize {
            for start in 0..=len {
                for run in 0..=(len - start) {
                    // `start` values below 5, `run` fives, the rest above.
                    let mut sorted: Vec<u64> = (0..len)
                        .map(|i| match i {
                            i if i < start => i as u64 % 5,
                            i if i < start + run => 5,
                            i => 6 + i as u64,
                        })
                        .collect();
                    sorted.sort_unstable();
                    let below = sorted.partition_point(|&s| s < 5);
                    let want = sorted[below..].iter().take_while(|&&s| s == 5).count();
                    assert_eq!(equal_run(&sorted[below..], 5), want, "{sorted:?}");
                }
            }
        }
    }

    /// From the first entry, `it` yields exactly `entries`, then is invalid.
    fn assert_forward_scan(it: &mut BlockIter, entries: &[(Vec<u8>, Vec<u8>)]) {
        it.seek_to_first();
        for (k, v) in entries {
            assert!(it.valid());
            assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
            it.next();
        }
        assert!(!it.valid());
    }

    /// `plain`'s bytes as a block with its entry directory.
    fn with_directory(plain: &Block) -> Block {
        Block::new(plain.data.clone(), Arc::from("t.sst"), 0)
            .unwrap()
            .with_entry_directory()
            .unwrap()
    }

    /// The answer a point lookup takes from an iterator's seek: `None` when
    /// the first entry at or after `t` is not of `t`'s user key (or there
    /// is none), else its trailer and value.
    fn seek_answer(it: &mut BlockIter, t: &[u8]) -> Option<(u64, Vec<u8>)> {
        it.seek(t);
        it.status().unwrap();
        (it.valid() && crate::key::user_key(it.key()) == crate::key::user_key(t))
            .then(|| (crate::key::trailer(it.key()), it.value().to_vec()))
    }

    /// Sorted, distinct user keys mixing what a block search must get
    /// right: keys with distinct 8-byte prefixes (each id's big-endian bytes
    /// and a tail), `same_prefix` keys sharing their first 8 bytes, keys
    /// shorter than 8 bytes (zero-padded prefixes) and keys that are a
    /// prefix of the next.
    fn mixed_user_keys(ids: impl Iterator<Item = u64>, same_prefix: usize) -> Vec<Vec<u8>> {
        let mut uks: Vec<Vec<u8>> = ids
            .map(|id| {
                let mut k = id.to_be_bytes().to_vec();
                k.extend_from_slice(b"-tail");
                k
            })
            .collect();
        uks.extend((0..same_prefix).map(|i| format!("samepref{i:03}").into_bytes()));
        for k in ["", "a", "a\0", "a\0\0b", "ab", "abcdefg", "abcdefgh", "abcdefgh\0"] {
            uks.push(k.as_bytes().to_vec());
        }
        uks.sort();
        uks.dedup();
        uks
    }

    #[test]
    fn peek_values_shows_the_next_entries_without_moving() {
        let uks: Vec<Vec<u8>> = (0u8..30).map(|i| vec![b'k', i]).collect();
        let entries = versioned_entries(&uks, |i| vec![i as u8; 1 + i % 5]);
        for interval in [1, 3, 16] {
            let mut it = BlockIter::new(build(&entries, interval));
            assert_eq!(it.peek_values::<2>(), [None, None], "unpositioned");
            it.seek_to_first();
            for i in 0..entries.len() {
                let want: Vec<Option<&[u8]>> = (1..=3)
                    .map(|d| entries.get(i + d).map(|e| e.1.as_slice()))
                    .collect();
                assert_eq!(it.peek_values::<3>().to_vec(), want, "entry {i}");
                assert_eq!(it.key(), entries[i].0.as_slice(), "peeking moved it");
                it.next();
            }
            assert!(!it.valid());
            assert_eq!(it.peek_values::<1>(), [None]);
        }
    }

    /// One to three versions (sequence numbers 90, 50, 10) of each user
    /// key, in internal-key order, the `i`-th key's values `value(i)`.
    fn versioned_entries(uks: &[Vec<u8>], value: impl Fn(usize) -> Vec<u8>) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut entries = Vec::new();
        for (i, uk) in uks.iter().enumerate() {
            for seq in [90u64, 50, 10].into_iter().take(1 + i % 3) {
                entries.push((make_internal_key(uk, seq, ValueKind::Value), value(i)));
            }
        }
        entries
    }

    /// Seek targets: every entry, and every user key (and keys just after
    /// and around each) at sequence numbers above, between and below its
    /// versions.
    fn seek_targets(entries: &[(Vec<u8>, Vec<u8>)], uks: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut probes: Vec<Vec<u8>> = uks.to_vec();
        for uk in uks {
            let mut after = uk.clone();
            after.push(0);
            probes.push(after);
            let mut bumped = uk.clone();
            if let Some(last) = bumped.last_mut() {
                *last = last.wrapping_add(1);
            }
            probes.push(bumped);
        }
        probes.push(vec![0xff; 12]);
        let mut targets: Vec<Vec<u8>> = entries.iter().map(|(k, _)| k.clone()).collect();
        for uk in &probes {
            for seq in [100u64, 70, 50, 30, 10, 0] {
                let mut t = Vec::new();
                crate::key::append_internal_key(&mut t, uk, seq, ValueKind::SEEK);
                targets.push(t);
            }
        }
        targets
    }

    #[test]
    fn iterator_seeks_through_the_directory_match_the_restart_search() {
        // The same mix of keys as the lookups' test below: after a seek to
        // every target, the iterator over the block with a directory shows
        // what the one without shows, and so do the steps after it (both
        // directions), so the position a directory seek leaves is a whole
        // iterator state, not only an entry.
        let distinct = (0u64..120).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let uks = mixed_user_keys(distinct, 40);
        let entries = versioned_entries(&uks, |i| vec![i as u8; 100 + i % 7]);
        // Entries too small for a directory: the block keeps the empty
        // one that marks it as outside the limits, and every seek must
        // take the restart search (regression: a seek read the empty
        // directory as "every entry sorts before the target").
        let tiny = versioned_entries(&uks, |i| vec![i as u8; i % 3]);
        let targets = seek_targets(&entries, &uks);
        let shown = |it: &BlockIter| it.valid().then(|| (it.key().to_vec(), it.value().to_vec()));
        let cases = [1, 4, 16]
            .map(|interval| (interval, &entries))
            .into_iter()
            .chain([1, 4, 16].map(|interval| (interval, &tiny)));
        for (interval, entries) in cases {
            let plain = build(entries, interval);
            let dir = Arc::new(with_directory(&plain));
            let built = dir.directory_bytes() > 0;
            assert_eq!(built, !std::ptr::eq(entries, &tiny));
            let (mut by_directory, mut past_end) = (0, 0);
            for t in &targets {
                match dir.directory_seek_start(t) {
                    Some(Some(_)) => by_directory += 1,
                    Some(None) => past_end += 1,
                    None => {}
                }
                for steps in [[true, true, false], [false, false, true]] {
                    let mut want = BlockIter::new(plain.clone());
                    let mut got = BlockIter::new(dir.clone());
                    want.seek(t);
                    got.seek(t);
                    assert_eq!(shown(&got), shown(&want), "interval {interval}, seek {t:?}");
                    for forward in steps {
                        if !want.valid() {
                            break;
                        }
                        if forward {
                            want.next();
                            got.next();
                        } else {
                            want.prev();
                            got.prev();
                        }
                        assert_eq!(shown(&got), shown(&want), "interval {interval}, after {t:?}");
                    }
                    got.status().unwrap();
                }
            }
            // With a directory most seeks start from it (the rest: entries
            // not rebuildable alone), and the targets past the last key
            // end past the block without a restart search; without one,
            // none does.
            if built {
                assert!(by_directory > targets.len() / 2, "{by_directory} of {}", targets.len());
                assert!(past_end > 0);
            } else {
                assert_eq!((by_directory, past_end), (0, 0));
            }
        }
    }

    #[test]
    fn regression_a_seek_among_keys_sharing_a_prefix_takes_the_restart_search() {
        // Every key shares its first 8 bytes: the directory's start is the
        // block's first entry, from which a seek would decode the whole
        // run; it must take the restart search instead (and land where
        // it does, as the test above checks for mixed keys).
        let uks: Vec<Vec<u8>> = (0..60).map(|i| format!("user0000{i:04}").into_bytes()).collect();
        let entries = versioned_entries(&uks, |i| vec![i as u8; 120]);
        let plain = build(&entries, 16);
        let dir = Arc::new(with_directory(&plain));
        assert!(dir.directory_bytes() > 0);
        for t in seek_targets(&entries, &uks) {
            if key::user_key(&t).starts_with(b"user0000") {
                assert_eq!(dir.directory_seek_start(&t), None, "{t:?}");
            }
            let (mut want, mut got) = (BlockIter::new(plain.clone()), BlockIter::new(dir.clone()));
            want.seek(&t);
            got.seek(&t);
            assert_eq!(got.valid(), want.valid());
            if want.valid() {
                assert_eq!(got.key(), want.key());
            }
        }
    }

    #[test]
    fn entry_directory_lookups_agree_with_the_iterator_seek() {
        // Data-block-like entries (values large enough for the directory)
        // whose user keys mix what the directory must get right: distinct
        // 8-byte prefixes, keys sharing more than 8 bytes with the previous
        // one (not rebuildable: the lookup must fall back), keys shorter
        // than 8 bytes and keys that are prefixes of the next, and several
        // versions of a key.
        let distinct = (0u64..120).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let uks = mixed_user_keys(distinct, 40);
        let entries = versioned_entries(&uks, |i| vec![i as u8; 100 + i % 7]);
        let targets = seek_targets(&entries, &uks);
        for interval in [1, 4, 16] {
            let plain = build(&entries, interval);
            let dir = with_directory(&plain);
            assert_eq!(dir.dir.get().unwrap().entries.len(), entries.len());
            assert_eq!(
                dir.size_in_bytes(),
                plain.size_in_bytes() + 12 * entries.len()
            );
            let mut it = BlockIter::new(plain.clone());
            let (mut decided, mut fell_back) = (0, 0);
            for t in &targets {
                let want = seek_answer(&mut it, t);
                match dir.seek_for_get(t) {
                    None => fell_back += 1,
                    Some(got) => {
                        decided += 1;
                        let got = match got {
                            BlockGet::NotHere => None,
                            BlockGet::Entry { trailer, value } => {
                                Some((trailer, dir.value_at(value).to_vec()))
                            }
                        };
                        assert_eq!(got, want, "interval {interval}, target {t:?}");
                    }
                }
            }
            // With a restart per entry nothing shares a prefix, so every
            // lookup is decided; else later versions of a key and the
            // `samepref` keys (sharing 8 bytes and more) fall back.
            assert!(decided > 0, "{decided} decided, {fell_back} fell back");
            assert_eq!(fell_back == 0, interval == 1, "{fell_back} fell back");
        }
        // One version per key and distinct 8-byte prefixes (the common
        // shape of a compacted table): every lookup is decided.
        let single: Vec<(Vec<u8>, Vec<u8>)> = entries
            .iter()
            .filter(|(k, _)| crate::key::user_key(k).ends_with(b"-tail"))
            .filter(|(k, _)| crate::key::sequence(k) == 90)
            .cloned()
            .collect();
        let plain = build(&single, 16);
        let dir = with_directory(&plain);
        let mut it = BlockIter::new(plain.clone());
        for t in &targets {
            let want = seek_answer(&mut it, t);
            let got = match dir.seek_for_get(t) {
                None => panic!("fell back on {t:?}"),
                Some(BlockGet::NotHere) => None,
                Some(BlockGet::Entry { trailer, value }) => {
                    Some((trailer, dir.value_at(value).to_vec()))
                }
            };
            assert_eq!(got, want, "target {t:?}");
        }
    }

    #[test]
    fn entry_directory_steps_back_as_the_restart_decode_does() {
        // Every position, stepped back to the first entry, with a directory
        // and without: same keys and values, and `next` after each `prev`
        // returns to where it was (the rebuilt key is the base of the next
        // entry's shared prefix).
        let uks = mixed_user_keys((0u64..150).map(|i| i.wrapping_mul(0x2545_f491_4f6c_dd1d)), 30);
        let entries = versioned_entries(&uks, |i| vec![i as u8; 100 + i % 5]);
        for interval in [1, 4, 16] {
            let plain = build(&entries, interval);
            let dir = Arc::new(
                with_directory(&plain),
            );
            assert!(!dir.dir.get().unwrap().entries.is_empty());
            let mut it = BlockIter::new(dir.clone());
            it.seek_to_last();
            for (k, v) in entries.iter().rev() {
                assert!(it.valid());
                assert_eq!((it.key(), it.value()), (&k[..], &v[..]), "interval {interval}");
                it.prev();
            }
            assert!(!it.valid());
            it.status().unwrap();
            // prev then next from every position.
            for i in 1..entries.len() {
                it.seek(&entries[i].0);
                it.prev();
                assert_eq!(it.key(), &entries[i - 1].0[..]);
                it.next();
                assert_eq!(it.key(), &entries[i].0[..], "interval {interval}, entry {i}");
                assert_eq!(it.value(), &entries[i].1[..]);
            }
        }
    }

    #[test]
    fn entry_directory_is_built_once_on_demand_and_charged_with_the_block() {
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (0u32..20)
            .map(|i| (ik(&format!("key{i:04}"), 1), vec![7; 150]))
            .collect();
        let plain = build(&entries, 16);
        let b = Block::new(plain.data.clone(), Arc::from("t.sst"), 0).unwrap();
        let target = ik("key0003", 5);
        assert!(b.seek_for_get(&target).is_none(), "no directory until built");
        let before = b.size_in_bytes();
        assert!(b.ensure_entry_directory().unwrap());
        assert!(!b.ensure_entry_directory().unwrap(), "built once");
        assert_eq!(b.directory_bytes(), 12 * entries.len());
        assert_eq!(b.size_in_bytes(), before + b.directory_bytes());
        assert!(matches!(
            b.seek_for_get(&target),
            Some(BlockGet::Entry { .. })
        ));
    }

    #[test]
    fn entry_directory_is_skipped_where_it_would_cost_over_an_eighth_of_the_block() {
        // 8-byte keys with 4-byte values: entries of about 23 bytes, so 12
        // bytes each would add half the block.
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (0u32..100)
            .map(|i| (ik(&format!("k{i:04}"), 1), i.to_le_bytes().to_vec()))
            .collect();
        let plain = build(&entries, 16);
        let b = with_directory(&plain);
        assert!(b.dir.get().unwrap().entries.is_empty());
        assert!(!b.ensure_entry_directory().unwrap(), "decided once");
        assert_eq!(b.size_in_bytes(), plain.size_in_bytes());
        assert!(b.seek_for_get(&ik("k0001", 5)).is_none());
    }

    #[test]
    fn entry_directory_refuses_a_damaged_block() {
        // An entry whose shared length exceeds the previous key: the
        // restart array is valid, the entry is not.
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (0u32..4)
            .map(|i| (ik(&format!("key{i}"), 1), vec![7; 200]))
            .collect();
        let plain = build(&entries, 16);
        let mut data = plain.data.clone();
        // The second entry starts right after the first (3 header bytes,
        // a 12-byte key, a 200-byte value); its shared length is its
        // first byte.
        let second = 3 + 12 + 200 + 1;
        data[second] = 100;
        let err = Block::new(data, Arc::from("t.sst"), 0)
            .unwrap()
            .with_entry_directory()
            .unwrap_err();
        assert!(matches!(err, Error::Corruption { .. }), "{err:?}");
    }

    #[test]
    fn search_samples_land_every_seek_where_the_plain_search_does() {
        // Index-like blocks (a restart point per entry) whose user keys mix
        // the cases the samples must get right: distinct 8-byte prefixes,
        // runs sharing one prefix across many windows (ties widen the
        // window), keys shorter than 8 bytes (zero-padded prefixes, and a
        // key that is a prefix of the next), and several versions of a key.
        let uks = mixed_user_keys((0u64..300).map(|i| i * 1000), 100);
        let entries = versioned_entries(&uks, |i| i.to_le_bytes().to_vec());
        let plain = build(&entries, 1);
        let sampled = Arc::new(
            Block::new(plain.data.clone(), Arc::from("t.sst"), 0)
                .unwrap()
                .with_search_samples()
                .unwrap(),
        );
        let samples = sampled.samples.as_ref().unwrap();
        assert_eq!(samples.all.len(), entries.len().div_ceil(SAMPLE_EVERY));
        assert!(
            samples.tops.len() > 2,
            "the two-step search needs several top samples"
        );
        assert!(sampled.size_in_bytes() > plain.size_in_bytes());
        for (j, &at) in samples.at.iter().enumerate() {
            assert_eq!(at as usize, sampled.restart_point(j * SAMPLE_EVERY));
        }
        let targets = seek_targets(&entries, &uks);
        let mut ranged = 0;
        let (mut a, mut b) = (
            BlockIter::new(plain.clone()),
            BlockIter::new(sampled.clone()),
        );
        for t in &targets {
            // The window holds the plain search's restart point, and is
            // one or two windows wide where prefixes are distinct.
            let (lo, hi) = sampled.restart_window(t);
            let p = key::internal_key_prefix(t);
            assert_eq!(
                samples.below(p),
                samples.all.partition_point(|&s| s < p),
                "samples below {t:?}"
            );
            let r = a.find_restart(t).unwrap();
            assert!(lo <= r && r <= hi, "{r} outside [{lo}, {hi}] for {t:?}");
            // The prefetched byte range is exactly the window's entries.
            if let Some((from, to)) = sampled.window_bytes(lo, hi) {
                ranged += 1;
                assert_eq!(from, sampled.restart_point(lo), "{t:?}");
                let end = if hi + 1 < sampled.num_restarts {
                    sampled.restart_point(hi + 1)
                } else {
                    sampled.restarts_offset
                };
                assert_eq!(to, end, "{t:?}");
            }
            if !key::user_key(t).starts_with(b"samepref") && key::user_key(t).len() >= 8 {
                assert!(hi - lo < 2 * SAMPLE_EVERY, "[{lo}, {hi}] for {t:?}");
            }
            a.seek(t);
            b.seek(t);
            let want = entries
                .iter()
                .find(|(k, _)| compare_internal(k, t) != Ordering::Less);
            assert_eq!(a.valid(), want.is_some(), "plain seek to {t:?}");
            assert_eq!(b.valid(), want.is_some(), "sampled seek to {t:?}");
            if let Some((k, _)) = want {
                assert_eq!(a.key(), k.as_slice());
                assert_eq!(b.key(), k.as_slice(), "sampled seek to {t:?}");
            }
            b.status().unwrap();
        }
        assert!(ranged > targets.len() / 2, "{ranged} of {} windows", targets.len());
    }

    #[test]
    fn small_blocks_and_data_blocks_keep_no_samples() {
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (0..SAMPLE_EVERY)
            .map(|i| (ik(&format!("k{i:03}"), 1), Vec::new()))
            .collect();
        let b = build(&entries, 1);
        let b = Block::new(b.data.clone(), Arc::from("t.sst"), 0)
            .unwrap()
            .with_search_samples()
            .unwrap();
        assert!(b.samples.is_none(), "one window: nothing to narrow");
        assert!(build(&entries, 1).samples.is_none(), "only asked for");
    }

    #[test]
    fn tiny_block_golden_bytes() {
        let mut b = BlockBuilder::new(16);
        b.add(&ik("ab", 1), b"x");
        b.add(&ik("ac", 2), b"");
        let got = b.finish().to_vec();
        #[rustfmt::skip]
        let want: Vec<u8> = vec![
            0, 10, 1, b'a', b'b', 1, 1, 0, 0, 0, 0, 0, 0, b'x', // shared 0, "ab"+trailer(1,Value), "x"
            1, 9, 0, b'c', 1, 2, 0, 0, 0, 0, 0, 0,              // shared 1 ("a"), "c"+trailer(2,Value)
            0, 0, 0, 0,                                          // restart[0] = 0
            1, 0, 0, 0,                                          // num_restarts = 1
        ];
        assert_eq!(got, want);
        let e = BlockBuilder::new(1).finish().to_vec();
        assert_eq!(e, [0, 0, 0, 0, 1, 0, 0, 0], "empty block: one restart at 0");
    }

    #[test]
    fn entry_lengths_of_one_two_and_three_varint_bytes_decode() {
        // The header decoder has fast paths for one-byte key lengths with a
        // one- or two-byte value length; longer keys and values take the
        // general path. Every combination must read back the same.
        let long_key = "k".repeat(300);
        let mut entries = Vec::new();
        for (i, vlen) in [0usize, 5, 127, 128, 200, 16_383, 16_384, 40_000]
            .into_iter()
            .enumerate()
        {
            for (j, key) in [format!("a{i}"), format!("b{i}{long_key}")]
                .into_iter()
                .enumerate()
            {
                let v: Vec<u8> = (0..vlen).map(|x| (x * 7 + i + j) as u8).collect();
                entries.push((ik(&key, 5), v));
            }
        }
        entries.sort_by(|a, b| compare_internal(&a.0, &b.0));
        for interval in [1, 16] {
            let block = build(&entries, interval);
            let mut it = BlockIter::new(block);
            assert_forward_scan(&mut it, &entries);
            it.status().unwrap();
            for (k, v) in &entries {
                it.seek(k);
                assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
            }
        }
    }

    #[test]
    fn round_trip_with_restarts_seek_and_both_directions() {
        for interval in [1, 2, 3, 16] {
            let entries: Vec<(Vec<u8>, Vec<u8>)> = (0..200)
                .map(|i| {
                    (
                        ik(&format!("key{:04}", i / 2), 1000 - i as u64),
                        format!("v{i}").into_bytes(),
                    )
                })
                .collect();
            let block = build(&entries, interval);
            assert_eq!(block.num_restarts, 200usize.div_ceil(interval));
            let mut it = BlockIter::new(block.clone());
            assert_forward_scan(&mut it, &entries);
            it.seek_to_last();
            for (k, v) in entries.iter().rev() {
                assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
                it.prev();
            }
            assert!(!it.valid());
            for (i, (k, _)) in entries.iter().enumerate() {
                it.seek(k);
                assert_eq!(it.key(), k.as_slice());
                it.seek_for_prev(k);
                assert_eq!(it.key(), k.as_slice());
                // A key between entry i and i+1 (newer than i's successor's
                // version of the same user key is impossible here, so use the
                // seek key of i's user key just after i's sequence).
                let uk = crate::key::user_key(k);
                let seq = crate::key::sequence(k);
                let mut between = Vec::new();
                crate::key::append_internal_key(&mut between, uk, seq - 1, ValueKind::SEEK);
                it.seek(&between);
                match entries.get(i + 1) {
                    Some((nk, _)) => assert_eq!(it.key(), nk.as_slice()),
                    None => assert!(!it.valid()),
                }
                it.seek_for_prev(&between);
                assert_eq!(it.key(), k.as_slice());
            }
            it.seek(&ik("a", 1));
            assert_eq!(it.key(), entries[0].0.as_slice());
            it.seek_for_prev(&ik("a", 1));
            assert!(!it.valid());
            it.seek(&ik("z", 1));
            assert!(!it.valid());
            it.seek_for_prev(&ik("z", 1));
            assert_eq!(it.key(), entries[199].0.as_slice());
            it.status().unwrap();
        }
    }

    /// Regression for the decoded interval `prev` keeps ([`BackSteps`]): a
    /// random walk of every move (seeks, steps both ways, both ends), on
    /// blocks without an entry directory, against the entries' index, and
    /// `reset` onto a block of other keys at the same offsets, whose keys
    /// a stale interval would return.
    #[test]
    fn random_walks_step_back_as_the_model_does_across_resets() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let make = |tag: char, n: usize| -> Vec<(Vec<u8>, Vec<u8>)> {
            (0..n)
                .map(|i| (ik(&format!("{tag}{i:05}"), 7), format!("{tag}v{i}").into_bytes()))
                .collect()
        };
        for interval in [1, 2, 5, 16] {
            let a = make('a', 120);
            let b = make('b', 120);
            let (ba, bb) = (build(&a, interval), build(&b, interval));
            let mut it = BlockIter::new(ba.clone());
            let mut entries = &a;
            let mut at: Option<usize> = None;
            for step in 0..4000 {
                match rng.random_range(0..20) {
                    0 => {
                        it.seek_to_first();
                        at = Some(0);
                    }
                    1 => {
                        it.seek_to_last();
                        at = Some(entries.len() - 1);
                    }
                    2 | 3 => {
                        let i = rng.random_range(0..entries.len());
                        it.seek(&entries[i].0);
                        at = Some(i);
                    }
                    4 => {
                        // Swap blocks and stay at the same index: the same
                        // offset, another key, as is its predecessor.
                        let to_b = std::ptr::eq(entries, &a);
                        it.reset(if to_b { bb.clone() } else { ba.clone() });
                        entries = if to_b { &b } else { &a };
                        let i = at.unwrap_or(entries.len() - 1);
                        it.seek(&entries[i].0);
                        at = Some(i);
                    }
                    5..=8 if at.is_some() => {
                        it.next();
                        at = at.and_then(|i| (i + 1 < entries.len()).then_some(i + 1));
                    }
                    _ if at.is_some() => {
                        it.prev();
                        at = at.and_then(|i| i.checked_sub(1));
                    }
                    _ => {
                        it.seek_to_last();
                        at = Some(entries.len() - 1);
                    }
                }
                match at {
                    Some(i) => {
                        assert!(it.valid(), "interval {interval}, step {step}");
                        assert_eq!(
                            (it.key(), it.value()),
                            (&entries[i].0[..], &entries[i].1[..]),
                            "interval {interval}, step {step}"
                        );
                    }
                    None => assert!(!it.valid(), "interval {interval}, step {step}"),
                }
            }
            it.status().unwrap();
        }
    }

    #[test]
    fn empty_block_is_never_valid() {
        let block = build(&[], 16);
        let mut it = BlockIter::new(block);
        it.seek_to_first();
        assert!(!it.valid());
        it.seek_to_last();
        assert!(!it.valid());
        it.seek(&ik("a", 1));
        assert!(!it.valid());
        it.seek_for_prev(&ik("a", 1));
        assert!(!it.valid());
        it.status().unwrap();
    }

    fn numbered(n: usize, tag: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
        (0..n)
            .map(|i| (ik(&format!("{tag}{i:03}"), 5), vec![b'v'; 100 + i % 9]))
            .collect()
    }

    #[test]
    fn a_recycled_block_allocation_holds_the_next_block() {
        let (a, b) = (numbered(30, "a"), numbered(17, "b"));
        let first = with_directory(&build(&a, 4)).into_shared();
        assert!(first.directory_bytes() > 0);
        let at = Arc::as_ptr(&first);
        Block::recycle(first);
        let second = unshared(&b, 4).into_shared();
        assert_eq!(Arc::as_ptr(&second), at, "the kept allocation is reused");
        assert_eq!(second.directory_bytes(), 0, "no directory of the old block");
        assert_forward_scan(&mut BlockIter::new(second), &b);

        // A block someone else still holds is neither emptied nor reused.
        let held = build(&a, 4);
        let at = Arc::as_ptr(&held);
        Block::recycle(held.clone());
        let third = unshared(&b, 4).into_shared();
        assert_ne!(Arc::as_ptr(&third), at);
        assert_forward_scan(&mut BlockIter::new(held), &a);
    }

    #[test]
    fn an_iterator_takes_the_key_buffer_the_last_one_left() {
        let block = build(&numbered(20, "k"), 4);
        let mut it = BlockIter::new(block.clone());
        it.seek_to_last();
        let buf = it.key.as_ptr();
        drop(it);
        let it = BlockIter::new(block);
        assert_eq!(it.key.as_ptr(), buf);
        assert!(it.key.is_empty());
    }

    #[test]
    fn malformed_blocks_are_corruption_not_panics() {
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (0..40)
            .map(|i| (ik(&format!("k{i:03}"), 5), vec![b'v'; i % 7]))
            .collect();
        let mut b = BlockBuilder::new(4);
        for (k, v) in &entries {
            b.add(k, v);
        }
        let good = b.finish().to_vec();
        let exercise = |data: Vec<u8>| {
            let Ok(block) = Block::new(data, Arc::from("f"), 7) else {
                return;
            };
            let mut it = BlockIter::new(Arc::new(block));
            it.seek_to_first();
            let mut n = 0;
            while it.valid() && n < 100 {
                it.next();
                n += 1;
            }
            it.seek_to_last();
            while it.valid() && n < 200 {
                it.prev();
                n += 1;
            }
            for (k, _) in entries.iter().step_by(5) {
                it.seek(k);
                it.seek_for_prev(k);
            }
            if let Err(e) = it.status() {
                assert!(e.is_corruption());
                assert!(e.to_string().contains("file f, offset 7"), "{e}");
            }
        };
        for i in 0..good.len() {
            for x in [0x01, 0x80, 0xff] {
                let mut d = good.clone();
                d[i] ^= x;
                exercise(d);
            }
        }
        for cut in 0..good.len() {
            exercise(good[..cut].to_vec());
        }
        assert!(Block::new(vec![0, 0, 0, 0], Arc::from("f"), 0).is_err());
        assert!(Block::new(vec![0xff; 8], Arc::from("f"), 0).is_err());
    }
}
