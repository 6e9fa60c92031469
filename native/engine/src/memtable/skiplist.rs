//! The memtable's ordered index: an insert-only, lock-free skiplist whose
//! nodes live in an arena owned by the list, with each entry's bytes inline
//! in its node.
//!
//! Why not a general-purpose concurrent map: a memtable never removes or
//! replaces an entry and is freed all at once, so nodes need neither
//! reference counts nor epoch-based reclamation, and one arena allocation
//! per entry replaces two heap allocations (node and entry bytes). An entry
//! costs its bytes plus 16 bytes of header and 8 bytes per tower level
//! (1.33 levels on average), about 25 bytes, where the heap-allocated map
//! cost about 80: a 128 MiB memtable now holds as many 208-byte rows as
//! RocksDB's (about 545,000 instead of 453,000).
//!
//! Node layout (8-byte aligned, in an arena block). A node pointer points
//! at its level-0 `next` slot; the higher levels' slots sit before it, so
//! the fields a search step reads do not move with the node's height:
//!
//! ```text
//!         next: AtomicPtr<Node> for levels height-1 … 1   (8 bytes each)
//! node -> next: AtomicPtr<Node> for level 0
//!         prefix: u64     8-byte big-endian prefix of the user key
//!         ikey_len: u32  value_len: u32
//!         ikey: ikey_len bytes   value: value_len bytes   pad to 8
//! ```
//!
//! Order is internal-key order ([`crate::key::compare_internal`]), decided
//! first by the user keys' 8-byte big-endian prefixes, kept in the node
//! header: for most random keys one integer comparison, which reads the
//! 8 bytes after the level-0 slot and no key bytes (one cache line where
//! the header and the key could be two). Internal keys are unique (every
//! write has its own sequence number), so no two nodes compare equal.
//!
//! Concurrency contract:
//! 1. Inserts ([`SkipList::insert_many`], [`SkipList::insert_prepared`]) may
//!    run on many threads at once. A new node is fully written (bytes, then
//!    its `next` pointer at each level) before a compare-and-swap with
//!    release ordering links it into that level, from level 0 upward; a
//!    failed CAS re-finds the neighbours at that level.
//! 2. Readers load `next` pointers with acquire ordering, so a node they
//!    reach is fully written. A reader descending the levels only reads a
//!    node's `next` at levels where it found the node linked, and linking is
//!    bottom-up, so it never follows a pointer that is not yet set.
//! 3. Nodes are never freed before the list: a `*const Node` obtained from
//!    the list stays valid while the list is alive (the memtable iterator
//!    holds the memtable through an `Arc` for that reason).
//! 4. [`SkipList::prepare`] writes a node and finds its neighbours before
//!    the entry has a sequence number; [`SkipList::insert_prepared`] sets
//!    the number and links it with the same compare-and-swaps as an insert.
//!    Its precondition: the number is larger than that of every entry
//!    linked before `prepare` ran (the write path hands numbers out after
//!    it). A prepared node names its list by an id no other list reuses, so
//!    one prepared in a list since replaced is refused, never linked.
//! 5. A [`Cursor`] carries the same id: the safe functions that read
//!    through one check it before dereferencing, so a cursor can never reach
//!    a node of a list other than the `&self` its result borrows.
//!
//! The `loom_model` tests check contracts 1, 2 and 4 under loom's model of
//! the memory orderings (their docs give the command); the concurrent tests
//! below check them on real threads.
//!
//! The arena hands out memory from per-thread-stripe blocks under a
//! per-stripe mutex (uncontended: threads keep their stripe), so inserts do
//! not share a hot atomic. Unused block tails are not counted in the bytes
//! an insert returns (which [`super::MemTable::approximate_memory_usage`]
//! sums): blocks are reserved, not written, until used.

use std::cmp::Ordering;
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
// The atomics of the link protocol; under the loom model test
// (`loom_model`, `--cfg loom`) loom's, which loom's scheduler sees. Both
// are one 8-byte word (checked below), so the node layout is the same.
#[cfg(all(loom, test))]
use loom::sync::atomic::{AtomicPtr, AtomicUsize};
#[cfg(not(all(loom, test)))]
use std::sync::atomic::{AtomicPtr, AtomicUsize};

use parking_lot::Mutex;

use super::block_pool::{BLOCK_BYTES, BlockPool};
use crate::key::{self, compare_internal};
use crate::striped::{STRIPES, stripe_index};

/// Highest tower (RocksDB's default for its skiplist memtable).
pub(crate) const MAX_HEIGHT: usize = 12;
/// One node in `BRANCHING` reaches the next level.
#[cfg(not(all(loom, test)))]
const BRANCHING: u32 = 4;
/// Bytes from a node pointer to its key: the level-0 slot and the header.
const HEADER: usize = 24;
/// Arena block size. Larger nodes get a block of their own.
const BLOCK: usize = BLOCK_BYTES;

#[repr(C)]
struct Node {
    /// The `next` pointer at level 0 (the higher levels precede the node).
    next0: AtomicPtr<Node>,
    /// [`key::user_key_prefix`] of the entry's user key.
    prefix: u64,
    ikey_len: u32,
    value_len: u32,
    // followed by the bytes (module docs)
}

// The layout above, which `Node::next_slot`, HEADER and node_size assume.
const _: () = assert!(
    size_of::<AtomicPtr<Node>>() == 8
        && align_of::<AtomicPtr<Node>>() == 8
        && size_of::<Node>() == HEADER
        && align_of::<Node>() == 8
);

/// Bytes a node for `ikey_len + value_len` bytes at `height` takes.
fn node_size(height: usize, ikey_len: usize, value_len: usize) -> usize {
    (8 * (height - 1) + HEADER + ikey_len + value_len).next_multiple_of(8)
}

impl Node {
    /// The `next` pointer at `level`.
    ///
    /// # Safety
    /// `this` points to a node written by [`SkipList::alloc_node_in`] whose
    /// height is above `level`.
    #[inline]
    unsafe fn next_slot<'a>(this: *const Node, level: usize) -> &'a AtomicPtr<Node> {
        // SAFETY: the slot for level l sits 8·l bytes before the node, inside
        // the same allocation for l < height (the caller's contract), and
        // alloc_node_in wrote each of them as an initialised AtomicPtr,
        // 8-aligned as the node is. Nodes live as long as their list
        // (contract 3 of the module docs), which the caller's 'a keeps to.
        unsafe { &*(this.cast::<u8>().sub(8 * level).cast::<AtomicPtr<Node>>()) }
    }

    /// The internal key.
    ///
    /// # Safety
    /// `this` points to a node written by [`SkipList::alloc_node_in`].
    #[inline]
    unsafe fn ikey<'a>(this: *const Node) -> &'a [u8] {
        // SAFETY: alloc_node_in wrote the header and copied ikey_len bytes
        // right after it (the caller's contract); they are only written
        // again (the trailer, by insert_prepared) before the node is linked,
        // while no reference to them exists.
        unsafe {
            let at = this.cast::<u8>().add(HEADER);
            std::slice::from_raw_parts(at, (*this).ikey_len as usize)
        }
    }

    /// The value bytes.
    ///
    /// # Safety
    /// As [`Node::ikey`].
    #[inline]
    unsafe fn value<'a>(this: *const Node) -> &'a [u8] {
        // SAFETY: as in `ikey`: the value follows the key, value_len bytes,
        // written by alloc_node_in and never again.
        unsafe {
            let n = &*this;
            let at = this.cast::<u8>().add(HEADER + n.ikey_len as usize);
            std::slice::from_raw_parts(at, n.value_len as usize)
        }
    }
}

/// Internal-key order of `a` (whose user-key prefix is `a_prefix`) and the
/// key of node `b`, with the prefix shortcut.
///
/// # Safety
/// `b` points to a node written by [`SkipList::alloc_node_in`].
#[inline]
unsafe fn compare(a: &[u8], a_prefix: u64, b: *const Node) -> Ordering {
    // SAFETY: `b` is a written node (the caller's contract).
    match a_prefix.cmp(unsafe { &(*b).prefix }) {
        // SAFETY: as above.
        Ordering::Equal => compare_internal(a, unsafe { Node::ikey(b) }),
        o => o,
    }
}

/// One stripe of the arena: the block being carved and the blocks done.
struct ArenaStripe {
    blocks: Vec<Vec<u64>>,
    /// Next free byte of the last block, and bytes left in it.
    cursor: *mut u8,
    left: usize,
}

/// Bump allocation in 8-byte-aligned blocks, one current block per stripe.
/// With a pool, standard blocks come from it and go back to it on drop.
struct Arena {
    stripes: Box<[Mutex<ArenaStripe>]>,
    pool: Option<Arc<BlockPool>>,
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some(pool) = &self.pool {
            pool.give(
                self.stripes
                    .iter_mut()
                    .flat_map(|s| std::mem::take(&mut s.get_mut().blocks)),
            );
        }
    }
}

impl Arena {
    fn new(pool: Option<Arc<BlockPool>>) -> Self {
        Arena {
            pool,
            stripes: (0..STRIPES)
                .map(|_| {
                    Mutex::new(ArenaStripe {
                        blocks: Vec::new(),
                        cursor: ptr::null_mut(),
                        left: 0,
                    })
                })
                .collect(),
        }
    }

    /// `size` bytes (a multiple of 8), 8-byte aligned, valid until the arena
    /// is dropped. Uninitialised.
    fn alloc(&self, size: usize) -> *mut u8 {
        debug_assert!(size.is_multiple_of(8));
        let mut s = self.stripes[stripe_index()].lock();
        if size > BLOCK / 4 {
            // A large node gets its own block; the current block stays.
            let mut b = Vec::<u64>::with_capacity(size / 8);
            let p = b.as_mut_ptr().cast::<u8>();
            s.blocks.push(b);
            return p;
        }
        if s.left < size {
            let mut b = match &self.pool {
                Some(pool) => pool.take(),
                None => Vec::<u64>::with_capacity(BLOCK / 8),
            };
            s.cursor = b.as_mut_ptr().cast::<u8>();
            s.left = BLOCK;
            s.blocks.push(b);
        }
        let p = s.cursor;
        // SAFETY: `left >= size`, so `cursor + size` stays inside (or one
        // past the end of) the current block's allocation.
        s.cursor = unsafe { p.add(size) };
        s.left -= size;
        p
    }
}

/// See the module docs.
pub(crate) struct SkipList {
    /// Unique among the lists of this process (a [`PreparedNode`] names the
    /// list it was prepared in by this id, which no later list reuses).
    id: u64,
    /// A node of height [`MAX_HEIGHT`] with no bytes, before every entry.
    head: *mut Node,
    /// Height of the tallest node inserted (at least 1).
    max_height: AtomicUsize,
    arena: Arena,
}

// SAFETY: the raw pointers point into the arena the list owns; nodes are
// immutable after publication except for their AtomicPtr slots, and the
// arena's stripes are behind mutexes. Sharing and sending the list is as
// safe as sharing a structure of atomics.
unsafe impl Send for SkipList {}
// SAFETY: as for Send.
unsafe impl Sync for SkipList {}

impl SkipList {
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        Self::with_pool(None)
    }

    /// A list whose arena takes its blocks from `pool` and returns them to
    /// it when the list is dropped.
    pub(crate) fn with_pool(pool: Option<Arc<BlockPool>>) -> Self {
        let arena = Arena::new(pool);
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let head = Self::alloc_node_in(&arena, MAX_HEIGHT, &[], &[], &[]);
        SkipList {
            id: NEXT_ID.fetch_add(1, AtomicOrdering::Relaxed),
            head,
            max_height: AtomicUsize::new(1),
            arena,
        }
    }

    /// A node of `height` whose internal key is `key_head` followed by
    /// `key_tail` (a user key and its trailer, written in place), and whose
    /// value is `value`. Not linked.
    fn alloc_node_in(
        arena: &Arena,
        height: usize,
        key_head: &[u8],
        key_tail: &[u8],
        value: &[u8],
    ) -> *mut Node {
        let ikey_len = key_head.len() + key_tail.len();
        let size = node_size(height, ikey_len, value.len());
        let p = arena.alloc(size);
        // SAFETY: `p` is 8-aligned and `size` bytes long (Arena::alloc),
        // enough for the `height - 1` upper slots, the node's header and the
        // bytes (node_size). Nothing else can see the node yet.
        unsafe {
            let tower = p.cast::<AtomicPtr<Node>>();
            for slot in 0..height - 1 {
                tower.add(slot).write(AtomicPtr::new(ptr::null_mut()));
            }
            let node = p.add(8 * (height - 1)).cast::<Node>();
            let bytes = node.cast::<u8>().add(HEADER);
            ptr::copy_nonoverlapping(key_head.as_ptr(), bytes, key_head.len());
            ptr::copy_nonoverlapping(key_tail.as_ptr(), bytes.add(key_head.len()), key_tail.len());
            ptr::copy_nonoverlapping(value.as_ptr(), bytes.add(ikey_len), value.len());
            let ikey = std::slice::from_raw_parts(bytes, ikey_len);
            node.write(Node {
                next0: AtomicPtr::new(ptr::null_mut()),
                prefix: key::internal_key_prefix(ikey),
                ikey_len: ikey_len as u32,
                value_len: value.len() as u32,
            });
            node
        }
    }

    /// A random tower height: level `l` with probability (1/4)^(l-1)·3/4.
    /// Under the loom model, the height the test scripted for the calling
    /// thread instead: loom replays each interleaving and needs every run
    /// to make the same choices.
    #[cfg(all(loom, test))]
    fn random_height() -> usize {
        loom_model::scripted_height()
    }

    /// A random tower height: level `l` with probability (1/4)^(l-1)·3/4.
    #[cfg(not(all(loom, test)))]
    fn random_height() -> usize {
        thread_local! {
            static RNG: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        }
        RNG.with(|c| {
            let mut x = c.get();
            if x == 0 {
                // Seed from the stripe index and the address of the local,
                // distinct per thread; never 0 (xorshift's fixed point).
                x = (stripe_index() as u32).wrapping_mul(0x9e37_79b9)
                    ^ (c as *const _ as usize as u32)
                    | 1;
            }
            let mut height = 1;
            loop {
                // xorshift32
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                if height < MAX_HEIGHT && x % BRANCHING == 0 {
                    height += 1;
                } else {
                    break;
                }
            }
            c.set(x);
            height
        })
    }

    /// Inserts an entry at a random height; `ikey` must not be in the list.
    /// Safe to call from many threads at once. Returns the bytes the node
    /// took in the arena (for memory accounting). The memtable inserts
    /// through [`insert_many`](Self::insert_many) and
    /// [`insert_prepared`](Self::insert_prepared); this one-at-a-time
    /// insert is what the tests check those against.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn insert(&self, ikey: &[u8], value: &[u8]) -> usize {
        self.insert_at(Self::random_height(), ikey, value)
    }

    /// [`insert`](Self::insert) at tower `height` (1 to [`MAX_HEIGHT`]).
    #[cfg(test)]
    fn insert_at(&self, height: usize, ikey: &[u8], value: &[u8]) -> usize {
        debug_assert!((1..=MAX_HEIGHT).contains(&height));
        let node = Self::alloc_node_in(&self.arena, height, ikey, &[], value);
        let top = self.raise_max_height(height);
        let key_prefix = key::internal_key_prefix(ikey);
        let (mut prev, mut next) = self.find_neighbours(ikey, key_prefix, top);
        self.link(node, height, ikey, key_prefix, &mut prev, &mut next);
        node_size(height, ikey.len(), value.len())
    }

    /// The neighbours of `ikey` on every level below `top`, found top-down,
    /// each level starting from the node found on the level above (the
    /// head and null above `top`).
    fn find_neighbours(
        &self,
        ikey: &[u8],
        key_prefix: u64,
        top: usize,
    ) -> ([*mut Node; MAX_HEIGHT], [*mut Node; MAX_HEIGHT]) {
        let mut prev = [self.head; MAX_HEIGHT];
        let mut next = [ptr::null_mut::<Node>(); MAX_HEIGHT];
        let mut x = self.head;
        for level in (0..top).rev() {
            let (p, n) = self.find_at_level(ikey, key_prefix, x, level);
            prev[level] = p;
            next[level] = n;
            x = p;
        }
        (prev, next)
    }

    /// Makes `max_height` at least `height`; returns the levels a search
    /// must start from (the larger of the two).
    fn raise_max_height(&self, height: usize) -> usize {
        let mut max = self.max_height.load(AtomicOrdering::Relaxed);
        while height > max {
            match self.max_height.compare_exchange_weak(
                max,
                height,
                AtomicOrdering::Relaxed,
                AtomicOrdering::Relaxed,
            ) {
                Ok(_) => return height,
                Err(m) => max = m,
            }
        }
        max
    }

    /// Links `node` (of `height`, key `ikey`) at every level from 0 up,
    /// between the neighbours `prev`/`next` found for it; where another
    /// insert got there first, re-finds the neighbours on that level.
    fn link(
        &self,
        node: *mut Node,
        height: usize,
        ikey: &[u8],
        key_prefix: u64,
        prev: &mut [*mut Node; MAX_HEIGHT],
        next: &mut [*mut Node; MAX_HEIGHT],
    ) {
        for level in 0..height {
            loop {
                // SAFETY: `node` has height `height` > level; prev[level] is
                // the head or a node linked at `level` (found there), so its
                // height is above `level` too.
                let won = unsafe {
                    Node::next_slot(node, level).store(next[level], AtomicOrdering::Relaxed);
                    Node::next_slot(prev[level], level)
                        .compare_exchange(
                            next[level],
                            node,
                            AtomicOrdering::Release,
                            AtomicOrdering::Acquire,
                        )
                        .is_ok()
                };
                if won {
                    break;
                }
                // Another insert linked a node after prev[level]: the new
                // neighbours are further right on this level.
                let (p, n) = self.find_at_level(ikey, key_prefix, prev[level], level);
                prev[level] = p;
                next[level] = n;
            }
        }
    }

    /// Writes a node for `user_key` and `value` (its trailer to be set by
    /// [`insert_prepared`](Self::insert_prepared)) and finds its neighbours,
    /// ahead of the write that will link it: the search, a chain of cache
    /// misses, runs on the writer's thread before it queues, in parallel
    /// with the write-group leader, instead of on the leader's serial path.
    ///
    /// The search is for the user key's seek key (the highest sequence
    /// number), which sorts before every entry of `user_key` in the list.
    /// Every entry already in the list was written before this write gets
    /// its sequence number, so has a smaller one: the node's final key
    /// sorts before them too, and the neighbours found still bracket it.
    /// Nodes inserted meanwhile between them make the link's
    /// compare-and-swap fail, which re-finds the neighbours on that level.
    pub(crate) fn prepare(&self, user_key: &[u8], value: &[u8]) -> PreparedNode {
        let height = Self::random_height();
        let seek_trailer = key::pack_trailer(key::MAX_SEQUENCE, crate::key::ValueKind::SEEK);
        let node = Self::alloc_node_in(
            &self.arena,
            height,
            user_key,
            &seek_trailer.to_le_bytes(),
            value,
        );
        let top = self.raise_max_height(height);
        // SAFETY: written above, not yet shared.
        let ikey = unsafe { Node::ikey(node) };
        let (prev, next) = self.find_neighbours(ikey, key::internal_key_prefix(ikey), top);
        PreparedNode {
            list: self.id,
            node,
            height,
            prev,
            next,
        }
    }

    /// Sets the trailer of a node from [`prepare`](Self::prepare) and links
    /// it. Returns the bytes it took, or `None` when it was prepared in
    /// another list (the memtable was switched meanwhile; the unlinked node
    /// stays unused in that list's arena).
    pub(crate) fn insert_prepared(&self, mut p: PreparedNode, trailer: u64) -> Option<usize> {
        if p.list != self.id {
            return None;
        }
        // SAFETY: `p.node` was written by prepare() in this list (same id,
        // and ids are never reused), which is alive, and is not linked yet:
        // no other thread can see it, so its trailer can still change.
        let ikey = unsafe {
            let at = p
                .node
                .cast::<u8>()
                .add(HEADER + (*p.node).ikey_len as usize - key::TRAILER_LEN);
            ptr::copy_nonoverlapping(trailer.to_le_bytes().as_ptr(), at, key::TRAILER_LEN);
            Node::ikey(p.node)
        };
        let key_prefix = key::internal_key_prefix(ikey);
        self.link(p.node, p.height, ikey, key_prefix, &mut p.prev, &mut p.next);
        // SAFETY: as above.
        let value_len = unsafe { (*p.node).value_len } as usize;
        Some(node_size(p.height, ikey.len(), value_len))
    }

    /// Inserts entries (user key, trailer, value), each at a random height;
    /// no internal key may be in the list or twice in `entries`. Safe to
    /// call from many threads at once. Returns the bytes the nodes took.
    ///
    /// Same result as inserting the entries one at a time (the tests'
    /// `insert`), but faster for a list larger than the CPU caches: a search
    /// is a chain of cache misses (each node's header must arrive before the
    /// next pointer is known), so searches for up to [`INTERLEAVE`] entries
    /// take turns, one node each, and each prefetches the node it will
    /// compare next while the others run. Their misses overlap instead of
    /// adding up.
    pub(crate) fn insert_many(&self, entries: &[(&[u8], u64, &[u8])]) -> usize {
        let mut bytes = 0;
        for chunk in entries.chunks(INTERLEAVE) {
            bytes += self.insert_chunk(chunk);
        }
        bytes
    }

    fn insert_chunk(&self, chunk: &[(&[u8], u64, &[u8])]) -> usize {
        debug_assert!(chunk.len() <= INTERLEAVE);
        let mut searches: [Search; INTERLEAVE] = std::array::from_fn(|_| Search::idle(self.head));
        let mut bytes = 0;
        let mut top = 1;
        for (s, &(user_key, trailer, value)) in searches.iter_mut().zip(chunk) {
            let height = Self::random_height();
            s.node =
                Self::alloc_node_in(&self.arena, height, user_key, &trailer.to_le_bytes(), value);
            s.height = height;
            s.prefix = key::user_key_prefix(user_key);
            bytes += node_size(height, user_key.len() + key::TRAILER_LEN, value.len());
            top = top.max(self.raise_max_height(height));
        }
        let searches = &mut searches[..chunk.len()];
        for s in searches.iter_mut() {
            s.start(top);
        }
        let mut running = searches.len();
        while running > 0 {
            for s in searches.iter_mut() {
                if s.level.is_some() && s.step(top) {
                    running -= 1;
                }
            }
        }
        for s in searches.iter_mut() {
            // SAFETY: `s.node` was written by alloc_node_in above.
            let ikey = unsafe { Node::ikey(s.node) };
            self.link(s.node, s.height, ikey, s.prefix, &mut s.prev, &mut s.next);
        }
        bytes
    }

    /// From `start` (the head or a node before `ikey`, linked at `level`),
    /// walks `level` to the last node before `ikey`: returns it and the node
    /// after it (null at the end).
    fn find_at_level(
        &self,
        ikey: &[u8],
        key_prefix: u64,
        start: *mut Node,
        level: usize,
    ) -> (*mut Node, *mut Node) {
        let mut x = start;
        loop {
            if level > 0 {
                // When the node after `x` at `level` turns out not to be
                // before `ikey`, the search goes down from `x` and compares
                // the node after it one level down next: fetch that node
                // now, so its cache miss overlaps this comparison's.
                // SAFETY: `x`'s height is above `level` (below), so it has a
                // slot at `level - 1`; the pointer is only a prefetch hint.
                prefetch_node(
                    hint_load(unsafe { Node::next_slot(x, level - 1) }),
                    level - 1,
                );
            }
            // SAFETY: `x` is the head or a node reached at `level`, so its
            // height is above `level` (contract 2 of the module docs).
            let n = unsafe { Node::next_slot(x, level).load(AtomicOrdering::Acquire) };
            // SAFETY: `n` is non-null and was published by a release CAS
            // that our acquire load observed, so it is fully written.
            if !n.is_null() && unsafe { compare(ikey, key_prefix, n) } == Ordering::Greater {
                x = n;
            } else {
                return (x, n);
            }
        }
    }

    /// The last node whose key is below `ikey` (the head when none) and the
    /// node after it at level 0 as the search saw it: the first whose key is
    /// not below `ikey` (null when none).
    ///
    /// The second must come from the search, not from reloading the first's
    /// `next`: an insert may link a node between them meanwhile, whose key
    /// can be below `ikey` (regression: a `get` at a snapshot returned a
    /// newer version of its key, or missed the key, while a writer linked a
    /// node just before it).
    fn bracket(&self, ikey: &[u8]) -> (*mut Node, *mut Node) {
        let key_prefix = key::internal_key_prefix(ikey);
        let mut x = self.head;
        let mut n = ptr::null_mut();
        // `max_height` starts at 1: level 0 is always searched last, so `n`
        // is the level-0 neighbour.
        for level in (0..self.max_height.load(AtomicOrdering::Relaxed)).rev() {
            (x, n) = self.find_at_level(ikey, key_prefix, x, level);
        }
        (x, n)
    }

    /// The last node whose key is below `ikey` (the head when none).
    fn last_before(&self, ikey: &[u8]) -> *mut Node {
        self.bracket(ikey).0
    }

    /// The first entry at or after `ikey`.
    pub(crate) fn lower_bound(&self, ikey: &[u8]) -> Cursor {
        self.cursor_at(self.bracket(ikey).1)
    }

    /// The last entry at or before `ikey`.
    pub(crate) fn upper_bound(&self, ikey: &[u8]) -> Cursor {
        let at = self.lower_bound(ikey);
        if self.key(at).is_some_and(|k| k == ikey) {
            return at;
        }
        self.cursor_of(self.last_before(ikey))
    }

    /// The first entry.
    pub(crate) fn front(&self) -> Cursor {
        // SAFETY: the head has every level.
        self.cursor_at(unsafe { Node::next_slot(self.head, 0).load(AtomicOrdering::Acquire) })
    }

    /// The last entry.
    pub(crate) fn back(&self) -> Cursor {
        let mut x = self.head;
        for level in (0..self.max_height.load(AtomicOrdering::Relaxed)).rev() {
            loop {
                // SAFETY: as in find_at_level.
                let n = unsafe { Node::next_slot(x, level).load(AtomicOrdering::Acquire) };
                if n.is_null() {
                    break;
                }
                x = n;
            }
        }
        self.cursor_of(x)
    }

    /// The entry after `c`, which must be valid (panics otherwise).
    pub(crate) fn next(&self, c: Cursor) -> Cursor {
        let node = self.node_of(c).expect("next of an invalid cursor");
        // SAFETY: `node` is a linked node of this list (node_of), so has a
        // level-0 slot and lives as long as `&self`.
        let n = unsafe { Node::next_slot(node, 0).load(AtomicOrdering::Acquire) };
        if !n.is_null() {
            // A scan (a flush above all) reads the entry at `n` next and
            // then steps to the one after it, a cache miss each in a list
            // built in random order. The node after `n` is fetched now, so
            // its miss overlaps the caller's work on `n`; `n` itself was
            // fetched the same way one step earlier.
            // SAFETY: `n` is a linked node (height ≥ 1); the pointer is
            // only a prefetch hint.
            prefetch_node(hint_load(unsafe { Node::next_slot(n, 0) }), 0);
        }
        self.cursor_at(n)
    }

    /// The entry before `c`, which must be valid (panics otherwise): a
    /// search, as the list has no back pointers.
    pub(crate) fn prev(&self, c: Cursor) -> Cursor {
        let key = self.key(c).expect("prev of an invalid cursor");
        self.cursor_of(self.last_before(key))
    }

    /// The cursor at `x`, a node found in this list or its head (which
    /// stands for "before the first entry": past the end).
    fn cursor_of(&self, x: *mut Node) -> Cursor {
        if x == self.head {
            Cursor::NONE
        } else {
            self.cursor_at(x)
        }
    }
}

/// A node written and its neighbours found by [`SkipList::prepare`], to be
/// linked by [`SkipList::insert_prepared`] once its sequence number is
/// known.
pub(crate) struct PreparedNode {
    /// Id of the list the node and the neighbours belong to.
    list: u64,
    node: *mut Node,
    height: usize,
    prev: [*mut Node; MAX_HEIGHT],
    next: [*mut Node; MAX_HEIGHT],
}

// SAFETY: the pointers are only dereferenced by insert_prepared, on the
// list named by `list` (checked first), which is alive while that call
// runs; until then they are plain addresses that any thread may carry.
unsafe impl Send for PreparedNode {}

/// Entries whose searches [`SkipList::insert_many`] interleaves: enough
/// misses in flight to cover a memory latency, few enough that the
/// searches' state stays in registers and L1.
const INTERLEAVE: usize = 8;

/// One entry's search for its neighbours in [`SkipList::insert_many`],
/// advanced one node per [`Search::step`].
struct Search {
    /// The new node (written, not linked) and its height and key prefix.
    node: *mut Node,
    height: usize,
    prefix: u64,
    /// The level being walked; `None` when idle or done.
    level: Option<usize>,
    /// The last node before the key on `level`, and the node after it,
    /// prefetched, to compare at the next step.
    x: *mut Node,
    n: *mut Node,
    prev: [*mut Node; MAX_HEIGHT],
    next: [*mut Node; MAX_HEIGHT],
}

impl Search {
    fn idle(head: *mut Node) -> Self {
        Search {
            node: ptr::null_mut(),
            height: 0,
            prefix: 0,
            level: None,
            x: head,
            n: ptr::null_mut(),
            prev: [head; MAX_HEIGHT],
            next: [ptr::null_mut(); MAX_HEIGHT],
        }
    }

    /// Starts at the head on level `top - 1`.
    fn start(&mut self, top: usize) {
        self.level = Some(top - 1);
        // SAFETY: `x` is the head, which has every level.
        self.n = unsafe { Node::next_slot(self.x, top - 1).load(AtomicOrdering::Acquire) };
        prefetch_node(self.n, top - 1);
    }

    /// Compares the key with the prefetched node `n`: moves right to it,
    /// or records the neighbours on this level and goes down one. Returns
    /// true when level 0 is done (all neighbours known).
    fn step(&mut self, top: usize) -> bool {
        let level = self.level.expect("a running search");
        // A node found not before the key on the level above is not before
        // it here either: no need to compare it again.
        let known_after = level + 1 < top && self.n == self.next[level + 1];
        // SAFETY: `node` is ours (fully written); a non-null `n` was
        // published by a release CAS our acquire load observed (contract 2
        // of the module docs).
        let before = !self.n.is_null()
            && !known_after
            && unsafe { compare(Node::ikey(self.node), self.prefix, self.n) } == Ordering::Greater;
        if before {
            self.x = self.n;
        } else {
            self.prev[level] = self.x;
            self.next[level] = self.n;
            if level == 0 {
                self.level = None;
                return true;
            }
            self.level = Some(level - 1);
        }
        let level = self.level.expect("set above");
        // SAFETY: `x` is the head or a node reached on the level it is
        // walked at, or on a level above, so its height is above `level`.
        self.n = unsafe { Node::next_slot(self.x, level).load(AtomicOrdering::Acquire) };
        prefetch_node(self.n, level);
        false
    }
}

/// The pointer in `slot`, loaded only to be prefetched (never
/// dereferenced): relaxed, as a hint needs no ordering.
#[cfg(not(all(loom, test)))]
#[inline]
fn hint_load(slot: &AtomicPtr<Node>) -> *mut Node {
    slot.load(AtomicOrdering::Relaxed)
}

/// Under loom, no load: each would be one more point where loom branches,
/// on every search step, for a value that is only a prefetch hint.
#[cfg(all(loom, test))]
fn hint_load(_slot: &AtomicPtr<Node>) -> *mut Node {
    ptr::null_mut()
}

/// Asks the CPU to fetch the cache lines a search step at `level` reads
/// from `node`: its key prefix (the comparison) and its `next` slot at
/// `level` (the step after it, when the search moves to the node).
#[inline]
fn prefetch_node(node: *const Node, level: usize) {
    if node.is_null() {
        return;
    }
    let p = node.cast::<u8>();
    crate::prefetch::line(p.wrapping_add(8));
    crate::prefetch::line(p.wrapping_sub(8 * level));
}

/// A position in a [`SkipList`] (null: past either end), branded with the
/// id of the list it came from, as a [`PreparedNode`] is.
///
/// A cursor is a plain value: it may outlive its list, or be handed to
/// another list. The brand keeps the safe functions that read through it
/// ([`SkipList::key`], [`SkipList::value`], [`SkipList::next`],
/// [`SkipList::prev`]) sound anyway: they dereference a cursor only after
/// checking that it names `self` (ids are never reused), whose arena
/// outlives the `&self` borrow their results carry; a cursor of another
/// list panics. The memtable's users hold the memtable (an `Arc`) while
/// they keep a cursor, so the check never fails in the engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor {
    node: *mut Node,
    /// [`SkipList::id`] of the list `node` belongs to; 0 for [`Cursor::NONE`].
    list: u64,
}

// SAFETY: a cursor is an address and an id; it is dereferenced only by the
// list whose id it carries (see the type docs), so carrying or sharing it
// between threads reaches nothing by itself.
unsafe impl Send for Cursor {}
// SAFETY: as for Send.
unsafe impl Sync for Cursor {}

impl Cursor {
    /// Past either end.
    pub(crate) const NONE: Cursor = Cursor {
        node: ptr::null_mut(),
        list: 0,
    };

    /// True when positioned on an entry.
    pub(crate) fn is_valid(self) -> bool {
        !self.node.is_null()
    }
}

impl SkipList {
    /// A cursor of this list at `node` (non-null, linked here).
    #[inline]
    fn cursor_at(&self, node: *mut Node) -> Cursor {
        Cursor {
            node,
            list: self.id,
        }
    }

    /// The node `c` is positioned on, if any: a node linked in this list.
    /// Panics for a cursor of another list (see [`Cursor`]).
    #[inline]
    fn node_of(&self, c: Cursor) -> Option<*mut Node> {
        if c.node.is_null() {
            return None;
        }
        if c.list != self.id {
            foreign_cursor(c.list, self.id);
        }
        Some(c.node)
    }

    /// The internal key at `c`, borrowed from the list.
    pub(crate) fn key(&self, c: Cursor) -> Option<&[u8]> {
        let node = self.node_of(c)?;
        // SAFETY: `node` is a linked node of this list (node_of checked the
        // brand), so fully written (contract 2) and in this list's arena,
        // which lives as long as the `&self` borrow the result carries.
        Some(unsafe { Node::ikey(node) })
    }

    /// The value at `c`, borrowed from the list.
    pub(crate) fn value(&self, c: Cursor) -> Option<&[u8]> {
        let node = self.node_of(c)?;
        // SAFETY: as in `key`.
        Some(unsafe { Node::value(node) })
    }
}

/// The panic of a cursor used with a list it does not belong to: a bug of
/// the caller, which a raw read would have turned into a read of freed or
/// foreign memory. Out of line, so the check costs the callers one compare.
#[cold]
#[inline(never)]
fn foreign_cursor(cursor_list: u64, list: u64) -> ! {
    panic!("skiplist cursor of list {cursor_list} used with list {list}")
}

#[cfg(all(loom, test))]
mod loom_model;

// Not under loom: these use the standard threads, which loom's atomics
// refuse outside a model.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::key::{ValueKind, make_internal_key};
    use std::collections::BTreeSet;
    use std::sync::Arc;

    fn ik(k: &[u8], seq: u64) -> Vec<u8> {
        make_internal_key(k, seq, ValueKind::Value)
    }

    fn ordered(a: &[u8], b: &[u8]) -> Ordering {
        compare_internal(a, b)
    }

    fn collect(l: &SkipList) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut c = l.front();
        while let Some(k) = l.key(c) {
            out.push(k.to_vec());
            c = l.next(c);
        }
        out
    }

    #[test]
    fn heights_follow_the_branching_factor() {
        let mut counts = [0usize; MAX_HEIGHT + 1];
        for _ in 0..400_000 {
            counts[SkipList::random_height()] += 1;
        }
        assert_eq!(counts[0], 0);
        // P(1) = 3/4, P(2) = 3/16, P(3) = 3/64 (within 2% of the total).
        let share = |h: usize| counts[h] as f64 / 400_000.0;
        assert!((share(1) - 0.75).abs() < 0.02, "{counts:?}");
        assert!((share(2) - 0.1875).abs() < 0.02, "{counts:?}");
        assert!((share(3) - 0.046875).abs() < 0.01, "{counts:?}");
    }

    #[test]
    fn ordered_iteration_bounds_and_both_directions_match_a_btreeset() {
        let l = SkipList::new();
        let mut model = BTreeSet::new();
        // Keys shorter and longer than the 8-byte prefix, shared prefixes,
        // several versions per user key.
        let users: Vec<Vec<u8>> = (0..300u32)
            .map(|i| match i % 3 {
                0 => format!("k{i}").into_bytes(),
                1 => format!("same-prefix-{i:05}").into_bytes(),
                _ => vec![b'a'; (i % 11) as usize],
            })
            .collect();
        for (n, u) in users.iter().enumerate() {
            for seq in [n as u64 + 1, n as u64 + 1000] {
                let k = ik(u, seq);
                if model.insert(OrdKey(k.clone())) {
                    let v = format!("v{seq}").into_bytes();
                    l.insert(&k, &v);
                }
            }
        }
        let want: Vec<Vec<u8>> = model.iter().map(|k| k.0.clone()).collect();
        assert_eq!(collect(&l), want);
        // back / prev walk the same keys in reverse.
        let mut rev = Vec::new();
        let mut c = l.back();
        while let Some(k) = l.key(c) {
            rev.push(k.to_vec());
            c = l.prev(c);
        }
        rev.reverse();
        assert_eq!(rev, want);
        // lower_bound / upper_bound for present keys and for keys between.
        for (i, k) in want.iter().enumerate() {
            assert_eq!(l.key(l.lower_bound(k)), Some(k.as_slice()));
            assert_eq!(l.key(l.upper_bound(k)), Some(k.as_slice()));
            let user = key::user_key(k);
            let (seq, _) = key::unpack_trailer(key::trailer(k));
            // Same user key, a smaller sequence: sorts right after k.
            let between = ik(user, seq - 1);
            if !model.contains(&OrdKey(between.clone())) {
                assert_eq!(
                    l.key(l.lower_bound(&between)),
                    want.get(i + 1).map(|v| v.as_slice())
                );
                assert_eq!(l.key(l.upper_bound(&between)), Some(k.as_slice()));
            }
        }
        // Before the first entry (the empty user key at the highest
        // sequence) and after the last.
        assert!(
            model.contains(&OrdKey(ik(b"", 12))),
            "the model has an empty user key"
        );
        assert!(!l.upper_bound(&ik(b"", key::MAX_SEQUENCE)).is_valid());
        assert!(!l.lower_bound(&ik(&[0xff; 20], 1)).is_valid());
    }

    #[derive(Clone, PartialEq, Eq)]
    struct OrdKey(Vec<u8>);
    impl PartialOrd for OrdKey {
        fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for OrdKey {
        fn cmp(&self, o: &Self) -> Ordering {
            ordered(&self.0, &o.0)
        }
    }

    #[test]
    fn concurrent_inserts_all_land_in_order_with_their_values() {
        let l = Arc::new(SkipList::new());
        let threads = 8;
        let per = 20_000u64;
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let l = l.clone();
                std::thread::spawn(move || {
                    for i in 0..per {
                        // Interleaved user keys across threads, values naming the key.
                        let user = format!("key{:08}", (i * threads + t) * 7919 % 1_000_003);
                        let k = ik(user.as_bytes(), i * threads + t + 1);
                        let v = [user.as_bytes(), b"|v"].concat();
                        l.insert(&k, &v);
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        let mut n = 0;
        let mut c = l.front();
        let mut last: Option<Vec<u8>> = None;
        while let (Some(k), Some(v)) = (l.key(c), l.value(c)) {
            if let Some(p) = &last {
                assert_eq!(ordered(p, k), Ordering::Less);
            }
            assert_eq!(v, [key::user_key(k), b"|v"].concat().as_slice());
            last = Some(k.to_vec());
            n += 1;
            c = l.next(c);
        }
        assert_eq!(n, threads * per);
    }

    /// Every level of `l` is sorted and every node on a level above 0 is
    /// also reachable on the level below (the towers are consistent).
    fn check_levels(l: &SkipList) {
        let mut below: Option<BTreeSet<usize>> = None;
        for level in 0..MAX_HEIGHT {
            let mut at = BTreeSet::new();
            let mut last: Option<&[u8]> = None;
            // SAFETY: the head has every level; nodes reached on a level
            // have a tower above it (contract 2).
            let mut x = unsafe { Node::next_slot(l.head, level).load(AtomicOrdering::Acquire) };
            while !x.is_null() {
                // SAFETY: `x` was reached on `level` through acquire loads,
                // so it is a written node of `l` (contract 2).
                let k = unsafe { Node::ikey(x) };
                if let Some(p) = last {
                    assert_eq!(ordered(p, k), Ordering::Less, "level {level} out of order");
                }
                last = Some(k);
                at.insert(x as usize);
                // SAFETY: `x` is linked on `level`, so its tower reaches it.
                x = unsafe { Node::next_slot(x, level).load(AtomicOrdering::Acquire) };
            }
            if let Some(b) = &below {
                assert!(at.is_subset(b), "level {level} has nodes missing below it");
            }
            below = Some(at);
        }
    }

    /// `l` holds `n` entries, strictly ordered on every level.
    fn assert_holds_in_order(l: &SkipList, n: u64) {
        let got = collect(l);
        assert_eq!(got.len() as u64, n);
        for w in got.windows(2) {
            assert_eq!(ordered(&w[0], &w[1]), Ordering::Less);
        }
        check_levels(l);
    }

    #[test]
    fn insert_many_matches_a_btreeset_with_neighbours_inside_one_chunk() {
        let l = SkipList::new();
        let mut model = BTreeSet::new();
        let mut seq = 0u64;
        // Rounds of chunks whose entries are each other's neighbours
        // (versions of one user key, consecutive keys, short keys sharing
        // the zero-padded prefix), mixed with single inserts.
        for round in 0..200u32 {
            let users: Vec<Vec<u8>> = match round % 4 {
                0 => (0..8)
                    .map(|_| format!("same{round:04}").into_bytes())
                    .collect(),
                1 => (0..13)
                    .map(|i| format!("run{round:04}-{i:02}").into_bytes())
                    .collect(),
                2 => (0..5).map(|i| vec![b'a'; i]).collect(),
                _ => (0..8u32)
                    .map(|i| (round * 7919 + i * 104_729).to_be_bytes().to_vec())
                    .collect(),
            };
            let entries: Vec<(Vec<u8>, u64, Vec<u8>)> = users
                .into_iter()
                .map(|u| {
                    seq += 1;
                    let v = format!("v{seq}").into_bytes();
                    (u, key::pack_trailer(seq, ValueKind::Value as u8), v)
                })
                .collect();
            let refs: Vec<(&[u8], u64, &[u8])> = entries
                .iter()
                .map(|(u, t, v)| (u.as_slice(), *t, v.as_slice()))
                .collect();
            let bytes = l.insert_many(&refs);
            assert!(bytes >= refs.len() * (HEADER + 8), "bytes {bytes}");
            for (u, t, _) in &entries {
                model.insert(OrdKey(ik(u, *t >> 8)));
            }
            seq += 1;
            let single = ik(format!("single{round}").as_bytes(), seq);
            l.insert(&single, b"s");
            model.insert(OrdKey(single));
        }
        let want: Vec<Vec<u8>> = model.iter().map(|k| k.0.clone()).collect();
        assert_eq!(collect(&l), want);
        check_levels(&l);
        for k in &want {
            let c = l.lower_bound(k);
            assert_eq!(l.key(c), Some(k.as_slice()));
            let v = l.value(c).unwrap();
            assert!(v == b"s" || v == format!("v{}", key::sequence(k)).as_bytes());
        }
    }

    #[test]
    fn concurrent_insert_many_all_land_in_order_with_their_values() {
        let l = Arc::new(SkipList::new());
        let threads = 8u64;
        let per = 20_000u64;
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let l = l.clone();
                std::thread::spawn(move || {
                    let mut i = 0;
                    while i < per {
                        // Chunks of 1 to 11 entries, keys interleaved with
                        // the other threads' and close to each other.
                        let n = (1 + i % 11).min(per - i);
                        let entries: Vec<(Vec<u8>, u64, Vec<u8>)> = (i..i + n)
                            .map(|j| {
                                let user =
                                    format!("key{:08}", (j * threads + t) * 7919 % 1_000_003);
                                let v = [user.as_bytes(), b"|v"].concat();
                                let seq = j * threads + t + 1;
                                (user.into_bytes(), key::pack_trailer(seq, 1), v)
                            })
                            .collect();
                        let refs: Vec<(&[u8], u64, &[u8])> = entries
                            .iter()
                            .map(|(u, s, v)| (u.as_slice(), *s, v.as_slice()))
                            .collect();
                        l.insert_many(&refs);
                        i += n;
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_holds_in_order(&l, threads * per);
        let mut c = l.front();
        while let (Some(k), Some(v)) = (l.key(c), l.value(c)) {
            assert_eq!(v, [key::user_key(k), b"|v"].concat().as_slice());
            c = l.next(c);
        }
    }

    #[test]
    fn prepared_nodes_land_in_order_after_inserts_made_since_they_were_prepared() {
        let l = SkipList::new();
        let mut model = BTreeSet::new();
        let mut add = |l: &SkipList, k: Vec<u8>| {
            l.insert(&k, b"old");
            model.insert(OrdKey(k));
        };
        for (i, u) in [&b"a"[..], b"m", b"m", b"z"].iter().enumerate() {
            add(&l, ik(u, i as u64 + 1));
        }
        // Prepared against the list as it is now...
        let p_m = l.prepare(b"m", b"new-m");
        let p_m2 = l.prepare(b"m", b"newer-m");
        let p_b = l.prepare(b"b", b"new-b");
        let p_end = l.prepare(b"zz", b"new-zz");
        // ...then other writes land between the neighbours found: versions
        // of the same user key with higher sequence numbers, and keys right
        // beside the prepared ones.
        add(&l, ik(b"m", 10));
        add(&l, ik(b"ba", 11));
        add(&l, ik(b"b", 12));
        add(&l, ik(b"zzz", 13));
        for (p, u, seq) in [
            (p_m, &b"m"[..], 20),
            (p_b, b"b", 21),
            (p_end, b"zz", 22),
            (p_m2, b"m", 23),
        ] {
            let bytes = l.insert_prepared(p, key::pack_trailer(seq, 1)).unwrap();
            assert!(bytes > u.len() + HEADER);
            model.insert(OrdKey(ik(u, seq)));
        }
        let want: Vec<Vec<u8>> = model.iter().map(|k| k.0.clone()).collect();
        assert_eq!(collect(&l), want);
        check_levels(&l);
        assert_eq!(l.value(l.lower_bound(&ik(b"m", 20))), Some(&b"new-m"[..]));
        assert_eq!(l.value(l.lower_bound(&ik(b"m", 23))), Some(&b"newer-m"[..]));
    }

    /// Regression: `lower_bound` reloaded the level-0 `next` of the node the
    /// search stopped at, so a node linked right after it meanwhile came
    /// back as the bound though it sorts below the target: a memtable `get`
    /// returned a newer version than its snapshot's (the new node was the
    /// key's next version), or missed the key (the new node was another key).
    #[test]
    fn lower_bound_never_returns_a_node_below_the_target_while_inserts_land_before_it() {
        let l = Arc::new(SkipList::new());
        let target = ik(b"m", 1);
        l.insert(&target, b"v");
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (l, stop, target) = (l.clone(), stop.clone(), target.clone());
                std::thread::spawn(move || {
                    let mut n = 0u64;
                    while !stop.load(AtomicOrdering::Relaxed) {
                        let got = l.key(l.lower_bound(&target));
                        assert_eq!(got, Some(target.as_slice()), "lookup {n}");
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        // Each key sorts after every earlier one and before "m": it is linked
        // right after the node where the readers' searches stop.
        for i in 0..300_000u64 {
            l.insert(&ik(format!("l{i:08}").as_bytes(), i + 2), b"w");
        }
        stop.store(true, AtomicOrdering::Relaxed);
        for r in readers {
            assert!(r.join().unwrap() > 0);
        }
    }

    /// A cursor kept past its list (here: the list dropped) and handed to
    /// another list is refused by the brand check, not read.
    #[test]
    #[should_panic(expected = "skiplist cursor of list")]
    fn a_cursor_of_another_list_panics_instead_of_reading_its_node() {
        let stale = {
            let old = SkipList::new();
            old.insert(&ik(b"k", 1), b"v");
            old.front()
        };
        let new = SkipList::new();
        new.insert(&ik(b"j", 1), b"w");
        assert_eq!(new.value(new.front()), Some(&b"w"[..]));
        let _ = new.key(stale);
    }

    #[test]
    fn cursors_past_the_end_read_nothing_in_any_list() {
        let (a, b) = (SkipList::new(), SkipList::new());
        a.insert(&ik(b"k", 1), b"v");
        let end = a.next(a.front());
        assert!(!end.is_valid());
        for l in [&a, &b] {
            assert_eq!(l.key(end), None);
            assert_eq!(l.value(Cursor::NONE), None);
        }
        let next_of_end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| a.next(end)));
        assert!(next_of_end.is_err(), "next of an invalid cursor must panic");
    }

    #[test]
    fn a_node_prepared_in_another_list_is_refused_and_not_linked() {
        let old = SkipList::new();
        let new = SkipList::new();
        new.insert(&ik(b"j", 1), b"v");
        let p = old.prepare(b"k", b"v");
        assert_eq!(new.insert_prepared(p, key::pack_trailer(7, 1)), None);
        assert_eq!(collect(&new), vec![ik(b"j", 1)]);
        assert!(collect(&old).is_empty());
    }

    #[test]
    fn concurrent_prepared_inserts_all_land_in_order_with_their_values() {
        let l = Arc::new(SkipList::new());
        // Sequence numbers are handed out after prepare(), as the write
        // path does (its precondition).
        let last_seq = Arc::new(AtomicU64::new(0));
        let threads = 8u64;
        let per = 20_000u64;
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let l = l.clone();
                let last_seq = last_seq.clone();
                std::thread::spawn(move || {
                    for i in 0..per {
                        // Few user keys, so that versions of one key race.
                        let user = format!("key{:05}", (i * threads + t) * 7919 % 5_003);
                        let v = [user.as_bytes(), b"|v"].concat();
                        let p = l.prepare(user.as_bytes(), &v);
                        let seq = last_seq.fetch_add(1, AtomicOrdering::Relaxed) + 1;
                        l.insert_prepared(p, key::pack_trailer(seq, 1)).unwrap();
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_holds_in_order(&l, threads * per);
    }

    #[test]
    fn large_entries_get_their_own_block() {
        let l = SkipList::new();
        let big = vec![7u8; BLOCK];
        l.insert_at(3, &ik(b"big", 1), &big);
        l.insert_at(1, &ik(b"small", 2), b"x");
        let c = l.lower_bound(&ik(b"big", 5));
        assert_eq!(l.value(c), Some(big.as_slice()));
        assert_eq!(l.value(l.next(c)), Some(&b"x"[..]));
    }
}
