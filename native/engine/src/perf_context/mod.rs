//! The perf context: per-thread counters and timers that say where one
//! operation spent its time (RocksDB's `PerfContext`, with the same field
//! names and units where Talus does the same work).
//!
//! # Use
//!
//! ```
//! use talus::perf_context::{self, PerfLevel};
//! perf_context::set_perf_level(PerfLevel::EnableTimeExceptForMutex).unwrap();
//! perf_context::reset();
//! // ... one db.get(..) ...
//! let ctx = perf_context::get();
//! println!("{}", ctx.to_string(true)); // "block_cache_hit_count = 2, ..."
//! ```
//!
//! # Levels (cumulative; [`PerfLevel`], RocksDB's numbering)
//!
//! | Level | Records |
//! |---|---|
//! | `Disable` | nothing. **The default of every thread** (RocksDB's is `EnableCount`): a thread that never set a level records nothing |
//! | `EnableCount` | counters and byte counts; write-stall counts and micros (the clock is read only when a writer actually stalls) |
//! | `EnableWait` | + time waiting on the engine: `write_thread_wait_nanos`, `write_delay_time`, `write_memtable_time` |
//! | `EnableTimeExceptForMutex` | + every other timer, except the DB mutex ones |
//! | `EnableTimeAndCpuTimeExceptForMutex` | as the level below: Talus has no CPU-time timers |
//! | `EnableTime` | + `db_mutex_lock_nanos`, `db_condition_wait_nanos` |
//!
//! Each field's level is [`F::min_level`]. Per-level fields
//! ([`PerfContextByLevel`]) are recorded only after
//! [`set_per_level_enabled`]`(true)` on the thread, as RocksDB's
//! `EnablePerLevelPerfContext`.
//!
//! # Cost
//!
//! A database operation reads the thread's level once, when it starts
//! ([`OpScope::level`]), and hands it down: the point lookup's table reads
//! and block seeks ([`crate::table::TableReadOptions::perf_level`]), the
//! write's timers. At `Disable` its instrumentation points are then
//! branches on that local copy; points outside an operation's reach
//! (iterators' children, background jobs) read the thread-local themselves
//! (in the JNI library each read is a call to `__tls_get_addr`). Counters are plain
//! thread-local integers (`Cell<u64>`, no atomics). Timers read the clock
//! (`clock`: the TSC) only at the levels that ask for time,
//! consecutive phases share readings ([`Laps`]), and timers add raw clock
//! ticks, converted to nanoseconds only when a context is read. With the cargo feature
//! `perf-context-off` every macro, timer and scope compiles to nothing (the
//! baseline of `examples/perf_overhead.rs`).
//!
//! # Operations, the last-operation record and `num_runs`
//!
//! Each public database call (get, multi-get, write, iterator creation and
//! each iterator move) is one *operation*, bracketed by an [`OpScope`]
//! ([`op`]); when the scope ends (only at levels above `Disable`)
//! `num_runs` grows by one. By default counters add straight into the
//! thread's totals. With the *last-operation record* on
//! ([`set_last_operation_enabled`], per thread, off by default because it
//! costs a few dozen instructions per operation), counters go to a
//! per-operation accumulator and mark their field in a bit mask; at the end
//! of the operation the marked fields are folded into the totals and copied
//! into the record ([`last_operation`]). The fold touches only the fields the
//! operation recorded, so its cost is proportional to the few fields an
//! operation uses, not to the ~80 fields of the context. Events outside any
//! scope are visible in [`get`] at once and join the next operation's record.
//!
//! # Aggregation across threads
//!
//! Per-thread contexts cannot be added up after the fact (threads end and
//! take their values with them). [`fold_into_aggregate`] adds the calling
//! thread's values recorded since its previous fold into a process-wide
//! aggregate ([`aggregate`]); a thread that ever set a level above `Disable`
//! folds automatically when it exits. Folding does not change the thread's
//! own values, and [`reset`] does not lose unfolded values: the aggregate
//! counts every event exactly once. The aggregate's lock is taken only by
//! folds and reads, never on an operation's path.
//!
//! # Thread-safety contract
//!
//! All state is thread-local except the aggregate (a mutex). Invariants:
//! 1. `mask` has bit `i` set iff `cur[i]` may be non-zero; `last_mask` has
//!    bit `i` set iff `last[i]` may be non-zero.
//! 2. The thread's value of field `i` is `total[i] + cur[i]`.
//! 3. The thread's contribution not yet in the aggregate is
//!    `pending + (values - folded)` (flat layout, see [`PerfContext`]).

pub(crate) mod clock;
#[cfg(test)]
mod tests;

use std::cell::Cell;
use std::fmt;

use parking_lot::Mutex;

use crate::error::{Error, Result};

/// How much a thread records. RocksDB's `PerfLevel` with its C++ numbering;
/// levels are cumulative (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum PerfLevel {
    /// Not a level; cannot be set.
    Uninitialized = 0,
    /// Record nothing (the default of every thread).
    Disable = 1,
    /// Counters only.
    EnableCount = 2,
    /// Counters and the time user threads wait on the engine.
    EnableWait = 3,
    /// Counters and every timer except the DB mutex timers.
    EnableTimeExceptForMutex = 4,
    /// As `EnableTimeExceptForMutex` (Talus has no CPU-time timers).
    EnableTimeAndCpuTimeExceptForMutex = 5,
    /// Everything, DB mutex and condition-variable waits included.
    EnableTime = 6,
    /// Not a level; cannot be set.
    OutOfBounds = 7,
}

impl PerfLevel {
    /// The level with C++ value `v`.
    pub fn from_u8(v: u8) -> Option<PerfLevel> {
        use PerfLevel::*;
        Some(match v {
            0 => Uninitialized,
            1 => Disable,
            2 => EnableCount,
            3 => EnableWait,
            4 => EnableTimeExceptForMutex,
            5 => EnableTimeAndCpuTimeExceptForMutex,
            6 => EnableTime,
            7 => OutOfBounds,
            _ => return None,
        })
    }
}

#[cfg_attr(
    feature = "perf-context-off",
    expect(
        dead_code,
        reason = "only the recording paths use it, and they are compiled out"
    )
)]
const COUNT: u8 = PerfLevel::EnableCount as u8;
const DISABLE: u8 = PerfLevel::Disable as u8;

/// Slots of the per-level breakdown: levels 0 to 6 have their own; deeper
/// levels (Talus allows up to 64) share the last slot, printed as `7+`.
pub const PER_LEVEL_SLOTS: usize = 8;

macro_rules! define_fields {
    ($( $(#[doc = $doc:expr])* $name:ident : $level:ident, )*) => {
        /// A field of the perf context, named exactly as the field it is.
        #[expect(
            non_camel_case_types,
            reason = "variants are RocksDB's field names, so the macros take the field name"
        )]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum F {
            $( $(#[doc = $doc])* $name, )*
        }

        /// Number of top-level fields.
        pub const NUM_FIELDS: usize = [$(F::$name),*].len();

        impl F {
            /// Every field, in declaration (and `to_string`) order.
            pub const ALL: [F; NUM_FIELDS] = [$(F::$name),*];

            /// The field's name (RocksDB's, or Talus's for its own fields).
            pub const fn name(self) -> &'static str {
                match self { $(F::$name => stringify!($name),)* }
            }

            /// The lowest level at which the field is recorded.
            pub const fn min_level(self) -> PerfLevel {
                match self { $(F::$name => PerfLevel::$level,)* }
            }
        }

        impl PerfContext {
            $(
                $(#[doc = $doc])*
                #[inline]
                pub fn $name(&self) -> u64 {
                    self.get(F::$name)
                }
            )*
        }
    };
}

define_fields! {
    /// User-key comparisons in table blocks (index and data block seeks;
    /// skiplist and merge-heap comparisons are not counted, see docs/observability.md).
    user_key_comparison_count: EnableCount,
    /// Block cache hits, any block type.
    block_cache_hit_count: EnableCount,
    /// Block cache misses, any block type (RocksDB keeps this only per level).
    block_cache_miss_count: EnableCount,
    /// Block cache hits on index blocks.
    block_cache_index_hit_count: EnableCount,
    /// Block cache hits on filter blocks.
    block_cache_filter_hit_count: EnableCount,
    /// Blocks read from table files (data, index, filter and meta blocks).
    block_read_count: EnableCount,
    /// Bytes of those blocks as stored (trailer included).
    block_read_byte: EnableCount,
    /// Index blocks read from table files.
    index_block_read_count: EnableCount,
    /// Filter blocks read from table files.
    filter_block_read_count: EnableCount,
    /// Memtables probed by point lookups.
    get_from_memtable_count: EnableCount,
    /// Value bytes returned by `get`.
    get_read_bytes: EnableCount,
    /// Value bytes returned by `multi_get`.
    multiget_read_bytes: EnableCount,
    /// Memtable bloom filter positives: always 0 (Talus memtables have no bloom filter).
    bloom_memtable_hit_count: EnableCount,
    /// Memtable bloom filter negatives: always 0 (Talus memtables have no bloom filter).
    bloom_memtable_miss_count: EnableCount,
    /// Point lookups the table bloom filter let through ("may match").
    bloom_sst_hit_count: EnableCount,
    /// Point lookups the table bloom filter ruled out.
    bloom_sst_miss_count: EnableCount,
    /// Memtable iterator seeks.
    seek_on_memtable_count: EnableCount,
    /// Memtable iterator steps forward.
    next_on_memtable_count: EnableCount,
    /// Memtable iterator steps backward.
    prev_on_memtable_count: EnableCount,
    /// Child seeks made by the merging iterator.
    seek_child_seek_count: EnableCount,
    /// Internal entries a DB iterator stepped over (older versions, hidden keys).
    internal_key_skipped_count: EnableCount,
    /// Tombstones a DB iterator stepped over.
    internal_delete_skipped_count: EnableCount,
    /// Entries newer than the iterator's snapshot stepped over.
    internal_recent_skipped_count: EnableCount,
    /// Key and value bytes returned by DB iterators.
    iter_read_bytes: EnableCount,
    /// DB iterator `next` calls.
    iter_next_count: EnableCount,
    /// DB iterator `prev` calls.
    iter_prev_count: EnableCount,
    /// DB iterator seeks (all four kinds).
    iter_seek_count: EnableCount,
    /// Writes that stalled (Talus): one per stall, whatever its length.
    write_stall_count: EnableCount,
    /// Microseconds writes spent stalled, all causes (Talus).
    write_stall_micros: EnableCount,
    /// Stall microseconds waiting for a flush: every memtable full (Talus).
    write_stall_memtable_limit_micros: EnableCount,
    /// Stall microseconds slowed by the L0 file count (Talus).
    write_stall_l0_slowdown_micros: EnableCount,
    /// Stall microseconds stopped by the L0 file count (Talus).
    write_stall_l0_stop_micros: EnableCount,
    /// Stall microseconds from pending compaction bytes (Talus).
    write_stall_pending_compaction_bytes_micros: EnableCount,
    /// Nanoseconds reading blocks from table files.
    block_read_time: EnableTimeExceptForMutex,
    /// Nanoseconds verifying block checksums.
    block_checksum_time: EnableTimeExceptForMutex,
    /// Nanoseconds decompressing blocks.
    block_decompress_time: EnableTimeExceptForMutex,
    /// Nanoseconds taking the read snapshot (sequence number and super version).
    get_snapshot_time: EnableTimeExceptForMutex,
    /// Nanoseconds searching memtables in point lookups.
    get_from_memtable_time: EnableTimeExceptForMutex,
    /// Nanoseconds in point lookups after the answer was found.
    get_post_process_time: EnableTimeExceptForMutex,
    /// Nanoseconds searching table files after the memtables missed (the
    /// field some tools call "get_from_table_files"; RocksJava
    /// `getFromOutputFilesTime`).
    get_from_output_files_time: EnableTimeExceptForMutex,
    /// Nanoseconds in memtable iterator seeks.
    seek_on_memtable_time: EnableTimeExceptForMutex,
    /// Nanoseconds in the merging iterator's child seeks.
    seek_child_seek_time: EnableTimeExceptForMutex,
    /// Nanoseconds in a DB iterator's seek of its internal iterator.
    seek_internal_seek_time: EnableTimeExceptForMutex,
    /// Nanoseconds a DB iterator spent finding the next visible entry.
    find_next_user_entry_time: EnableTimeExceptForMutex,
    /// Nanoseconds writing the WAL (and syncing it when asked), by group leaders.
    write_wal_time: EnableTimeExceptForMutex,
    /// Nanoseconds inserting into the memtable.
    write_memtable_time: EnableWait,
    /// Nanoseconds writes were delayed or stopped by a write stall.
    write_delay_time: EnableWait,
    /// Nanoseconds switching memtables and scheduling flushes in the write path.
    write_scheduling_flushes_compactions_time: EnableTimeExceptForMutex,
    /// Nanoseconds of a write call outside the other write fields.
    write_pre_and_post_process_time: EnableTimeExceptForMutex,
    /// Nanoseconds waiting in the write queue for a group leader, and for a
    /// turn at the write admission gate (`db::write_gate`).
    write_thread_wait_nanos: EnableWait,
    /// Nanoseconds acquiring the DB mutex.
    db_mutex_lock_nanos: EnableTime,
    /// Nanoseconds waiting on the DB condition variable (e.g. for a flush).
    db_condition_wait_nanos: EnableTime,
    /// Nanoseconds opening files for sequential reads.
    env_new_sequential_file_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds opening files for random reads (table files).
    env_new_random_access_file_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds creating or opening files for writing.
    env_new_writable_file_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds checking whether paths exist.
    env_file_exists_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds listing directories.
    env_get_children_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds deleting files.
    env_delete_file_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds creating directories.
    env_create_dir_if_missing_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds reading file sizes.
    env_get_file_size_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds renaming files.
    env_rename_file_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds taking file locks.
    env_lock_file_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds releasing file locks.
    env_unlock_file_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds syncing files (fdatasync/fsync) (Talus).
    env_sync_file_nanos: EnableTimeExceptForMutex,
    /// Nanoseconds syncing directories (Talus).
    env_sync_dir_nanos: EnableTimeExceptForMutex,
}

const _: () = assert!(NUM_FIELDS <= 128, "the per-operation mask is a u128");

macro_rules! define_level_fields {
    ($( $(#[doc = $doc:expr])* $name:ident : $level:ident, )*) => {
        /// A field of the per-level breakdown ([`PerfContextByLevel`]).
        #[expect(
            non_camel_case_types,
            reason = "variants are RocksDB's field names, so the macros take the field name"
        )]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum LF {
            $( $(#[doc = $doc])* $name, )*
        }

        /// Number of per-level fields.
        pub const NUM_LEVEL_FIELDS: usize = [$(LF::$name),*].len();

        impl LF {
            /// Every per-level field, in order.
            pub const ALL: [LF; NUM_LEVEL_FIELDS] = [$(LF::$name),*];

            /// The field's name (RocksDB's).
            pub const fn name(self) -> &'static str {
                match self { $(LF::$name => stringify!($name),)* }
            }

            /// The lowest level at which the field is recorded (per-level
            /// recording must also be enabled).
            pub const fn min_level(self) -> PerfLevel {
                match self { $(LF::$name => PerfLevel::$level,)* }
            }
        }

        impl PerfContextByLevel {
            $(
                $(#[doc = $doc])*
                #[inline]
                pub fn $name(&self) -> u64 {
                    self.0[LF::$name as usize]
                }
            )*
        }
    };
}

define_level_fields! {
    /// Point lookups the table bloom filter ruled out at this level.
    bloom_filter_useful: EnableCount,
    /// Point lookups the table bloom filter let through at this level.
    bloom_filter_full_positive: EnableCount,
    /// Of those, lookups that found the key (a value or a tombstone) in the table.
    bloom_filter_full_true_positive: EnableCount,
    /// Values returned by point lookups from this level.
    user_key_return_count: EnableCount,
    /// Nanoseconds in table point lookups at this level.
    get_from_table_nanos: EnableTimeExceptForMutex,
    /// Block cache hits on this level's tables.
    block_cache_hit_count: EnableCount,
    /// Block cache misses on this level's tables.
    block_cache_miss_count: EnableCount,
}

/// Length of the flat layout (see [`PerfContext`]).
pub const FLAT_LEN: usize = 1 + NUM_FIELDS + PER_LEVEL_SLOTS * NUM_LEVEL_FIELDS;

const fn flat_field(f: F) -> usize {
    1 + f as usize
}

const fn flat_level_field(slot: usize, f: LF) -> usize {
    1 + NUM_FIELDS + slot * NUM_LEVEL_FIELDS + f as usize
}

/// The slot of the per-level breakdown that `level` is counted in.
#[inline]
pub fn level_slot(level: usize) -> usize {
    level.min(PER_LEVEL_SLOTS - 1)
}

/// A copy of a perf context: one thread's ([`get`]), one operation's
/// ([`last_operation`]) or the process aggregate ([`aggregate`]).
///
/// Flat layout (what crosses JNI, see [`PerfContext::as_flat`]): index 0 is
/// `num_runs`, then the [`F`] fields in order, then the per-level fields
/// slot by slot ([`LF`] order within a slot).
#[derive(Clone, PartialEq, Eq)]
pub struct PerfContext {
    flat: [u64; FLAT_LEN],
}

/// The per-level breakdown of one level slot (RocksDB's `PerfContextByLevel`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerfContextByLevel([u64; NUM_LEVEL_FIELDS]);

impl Default for PerfContext {
    fn default() -> Self {
        PerfContext {
            flat: [0; FLAT_LEN],
        }
    }
}

impl PerfContext {
    /// Field `f`.
    #[inline]
    pub fn get(&self, f: F) -> u64 {
        self.flat[flat_field(f)]
    }

    /// Operations completed at a level above `Disable` (for the aggregate:
    /// by every thread folded into it).
    pub fn num_runs(&self) -> u64 {
        self.flat[0]
    }

    /// The per-level breakdown of `level` (levels ≥ 7 share one slot).
    pub fn by_level(&self, level: usize) -> PerfContextByLevel {
        let start = flat_level_field(level_slot(level), LF::ALL[0]);
        let mut v = [0; NUM_LEVEL_FIELDS];
        v.copy_from_slice(&self.flat[start..start + NUM_LEVEL_FIELDS]);
        PerfContextByLevel(v)
    }

    /// Per-level field `f` of `level`.
    pub fn level_field(&self, level: usize, f: LF) -> u64 {
        self.flat[flat_level_field(level_slot(level), f)]
    }

    /// The flat layout (see the type docs).
    pub fn as_flat(&self) -> &[u64; FLAT_LEN] {
        &self.flat
    }

    /// Builds a context from the flat layout.
    pub fn from_flat(flat: [u64; FLAT_LEN]) -> Self {
        PerfContext { flat }
    }

    /// Names of the flat layout's entries: `num_runs`, the field names, then
    /// `<field>@level<N>` per slot (the last slot is `@level7+`).
    pub fn flat_names() -> Vec<String> {
        let mut names = vec!["num_runs".to_owned()];
        names.extend(F::ALL.iter().map(|f| f.name().to_owned()));
        for slot in 0..PER_LEVEL_SLOTS {
            for f in LF::ALL {
                names.push(format!("{}@level{}", f.name(), slot_label(slot)));
            }
        }
        names
    }

    /// True when every field is zero.
    pub fn is_zero(&self) -> bool {
        self.flat.iter().all(|&v| v == 0)
    }

    /// One line of `name = value` pairs separated by `, `, in field order
    /// (RocksDB's format); `exclude_zero_counters` drops zero fields. The
    /// per-level fields follow as `name = v@level0, w@level3` (non-zero
    /// levels only), and `num_runs` comes last.
    pub fn to_string(&self, exclude_zero_counters: bool) -> String {
        let mut parts: Vec<String> = Vec::new();
        for f in F::ALL {
            let v = self.get(f);
            if v != 0 || !exclude_zero_counters {
                parts.push(format!("{} = {v}", f.name()));
            }
        }
        for f in LF::ALL {
            let per: Vec<String> = (0..PER_LEVEL_SLOTS)
                .filter_map(|s| {
                    let v = self.flat[flat_level_field(s, f)];
                    (v != 0).then(|| format!("{v}@level{}", slot_label(s)))
                })
                .collect();
            if !per.is_empty() {
                parts.push(format!("{} = {}", f.name(), per.join(", ")));
            }
        }
        if self.num_runs() != 0 || !exclude_zero_counters {
            parts.push(format!("num_runs = {}", self.num_runs()));
        }
        parts.join(", ")
    }

    fn add_flat(&mut self, other: &[u64; FLAT_LEN]) {
        for (a, b) in self.flat.iter_mut().zip(other) {
            *a = a.wrapping_add(*b);
        }
    }
}

fn slot_label(slot: usize) -> String {
    if slot == PER_LEVEL_SLOTS - 1 {
        format!("{slot}+")
    } else {
        slot.to_string()
    }
}

impl fmt::Display for PerfContext {
    /// `to_string(true)`: non-zero fields only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&PerfContext::to_string(self, true))
    }
}

impl fmt::Debug for PerfContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PerfContext {{ {} }}",
            PerfContext::to_string(self, true)
        )
    }
}

// ---------------------------------------------------------------- thread-local state

/// One thread's state. Const-initialized and free of drop glue, so every
/// access is a plain thread-local load (no lazy-init or destructor check).
struct Local {
    level: Cell<u8>,
    per_level: Cell<bool>,
    /// Operations keep a last-operation record (counters go through `cur`).
    track_last: Cell<bool>,
    exit_fold_registered: Cell<bool>,
    /// Fields touched by the current operation (invariant 1).
    mask: Cell<u128>,
    /// Fields of the last operation's record that may be non-zero.
    last_mask: Cell<u128>,
    num_runs: Cell<u64>,
    /// The current operation's values.
    cur: [Cell<u64>; NUM_FIELDS],
    /// Values of finished operations since the last reset.
    total: [Cell<u64>; NUM_FIELDS],
    /// The last finished operation's values.
    last: [Cell<u64>; NUM_FIELDS],
    /// Per-level values since the last reset (not per operation).
    by_level: [[Cell<u64>; NUM_LEVEL_FIELDS]; PER_LEVEL_SLOTS],
    /// Values reset away before they were folded (flat layout).
    pending: [Cell<u64>; FLAT_LEN],
    /// Part of the current values already folded (flat layout).
    folded: [Cell<u64>; FLAT_LEN],
}

thread_local! {
    static LOCAL: Local = const {
        Local {
            level: Cell::new(DISABLE),
            per_level: Cell::new(false),
            track_last: Cell::new(false),
            exit_fold_registered: Cell::new(false),
            mask: Cell::new(0),
            last_mask: Cell::new(0),
            num_runs: Cell::new(0),
            cur: [const { Cell::new(0) }; NUM_FIELDS],
            total: [const { Cell::new(0) }; NUM_FIELDS],
            last: [const { Cell::new(0) }; NUM_FIELDS],
            by_level: [const { [const { Cell::new(0) }; NUM_LEVEL_FIELDS] }; PER_LEVEL_SLOTS],
            pending: [const { Cell::new(0) }; FLAT_LEN],
            folded: [const { Cell::new(0) }; FLAT_LEN],
        }
    };

    /// Folds the thread's values into the aggregate when the thread exits.
    /// Touched (so its destructor registered) only by `set_perf_level`.
    static EXIT_FOLD: ExitFold = const { ExitFold };
}

struct ExitFold;

impl Drop for ExitFold {
    fn drop(&mut self) {
        fold_into_aggregate();
    }
}

impl Local {
    #[inline]
    fn add(&self, f: F, n: u64) {
        let i = f as usize;
        if self.track_last.get() {
            self.cur[i].set(self.cur[i].get().wrapping_add(n));
            self.mask.set(self.mask.get() | (1u128 << i));
        } else {
            self.total[i].set(self.total[i].get().wrapping_add(n));
        }
    }

    /// The thread's raw value of `f` (invariant 2).
    #[inline]
    fn value(&self, f: F) -> u64 {
        let i = f as usize;
        self.total[i].get().wrapping_add(self.cur[i].get())
    }

    #[inline]
    fn add_level(&self, slot: usize, f: LF, n: u64) {
        let c = &self.by_level[slot][f as usize];
        c.set(c.get().wrapping_add(n));
    }

    #[cfg_attr(
        feature = "perf-context-off",
        expect(
            dead_code,
            reason = "only the recording paths use it, and they are compiled out"
        )
    )]
    /// End of an operation (level above `Disable`): see the module docs.
    #[inline(never)]
    fn finish_op(&self) {
        if !self.track_last.get() {
            self.num_runs.set(self.num_runs.get() + 1);
            return;
        }
        let mask = self.mask.get();
        let stale = self.last_mask.get() & !mask;
        if stale != 0 {
            // Fields of the previous record this operation did not touch.
            let mut m = stale;
            while m != 0 {
                self.last[m.trailing_zeros() as usize].set(0);
                m &= m - 1;
            }
        }
        // Word by word: the counters an operation usually touches are all in
        // the low word, where the bit tricks are single instructions.
        self.fold_word(mask as u64, 0);
        self.fold_word((mask >> 64) as u64, 64);
        self.last_mask.set(mask);
        self.mask.set(0);
        self.num_runs.set(self.num_runs.get() + 1);
    }

    #[inline(always)]
    fn fold_word(&self, mut m: u64, base: usize) {
        while m != 0 {
            let i = base + m.trailing_zeros() as usize;
            let v = self.cur[i].replace(0);
            self.total[i].set(self.total[i].get().wrapping_add(v));
            self.last[i].set(v);
            m &= m - 1;
        }
    }

    /// The thread's values, timers converted from ticks to nanoseconds.
    fn snapshot(&self) -> PerfContext {
        let mut c = PerfContext::default();
        c.flat[0] = self.num_runs.get();
        for (i, f) in F::ALL.iter().enumerate() {
            c.flat[1 + i] = field_value(*f, self.total[i].get().wrapping_add(self.cur[i].get()));
        }
        for (slot, row) in self.by_level.iter().enumerate() {
            for (f, v) in LF::ALL.iter().zip(row) {
                let v = if *f == LF::get_from_table_nanos {
                    clock::ticks_to_nanos(v.get())
                } else {
                    v.get()
                };
                c.flat[flat_level_field(slot, *f)] = v;
            }
        }
        c
    }

    fn last_snapshot(&self) -> PerfContext {
        let mut c = PerfContext::default();
        let mut m = self.last_mask.get();
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            c.flat[1 + i] = field_value(F::ALL[i], self.last[i].get());
            m &= m - 1;
        }
        c
    }
}

/// A field's value as read: timers (every field above `EnableCount`) are
/// kept in clock ticks and read in nanoseconds.
fn field_value(f: F, raw: u64) -> u64 {
    if f.min_level() > PerfLevel::EnableCount {
        clock::ticks_to_nanos(raw)
    } else {
        raw
    }
}

// ---------------------------------------------------------------- hot-path API

/// The calling thread's level as its C++ value.
#[inline(always)]
pub fn level_u8() -> u8 {
    #[cfg(feature = "perf-context-off")]
    {
        DISABLE
    }
    #[cfg(not(feature = "perf-context-off"))]
    {
        LOCAL.with(|l| l.level.get())
    }
}

/// True when the calling thread records at `min` (one thread-local load).
#[inline(always)]
pub fn enabled(min: PerfLevel) -> bool {
    level_u8() >= min as u8
}

/// Adds to counters of the calling thread, as one thread-local access: the
/// closure runs only at `EnableCount` and above. Use [`perf_count!`](crate::perf_count).
#[inline(always)]
pub fn with_counters(f: impl FnOnce(Counters<'_>)) {
    #[cfg(feature = "perf-context-off")]
    {
        let _ = f;
    }
    #[cfg(not(feature = "perf-context-off"))]
    LOCAL.with(|l| {
        if l.level.get() >= COUNT {
            f(Counters(l));
        }
    });
}

/// As [`with_counters`] with the thread's level already read by the caller
/// (e.g. [`OpScope::level`]): at `Disable` this is one comparison, no
/// thread-local access. Use `perf_count!(at level => ..)`.
#[inline(always)]
pub fn with_counters_at(level: u8, f: impl FnOnce(Counters<'_>)) {
    #[cfg(feature = "perf-context-off")]
    {
        let _ = (level, f);
    }
    #[cfg(not(feature = "perf-context-off"))]
    if level >= COUNT {
        LOCAL.with(|l| f(Counters(l)));
    }
}

/// The calling thread's counters, handed out by [`with_counters`] when it records.
#[derive(Clone, Copy)]
pub struct Counters<'a>(&'a Local);

impl Counters<'_> {
    /// Adds `n` to field `f`.
    #[inline(always)]
    pub fn add(self, f: F, n: u64) {
        self.0.add(f, n);
    }
}

/// Adds `n` to field `f` of the calling thread, with no level check: for
/// callers that checked the level already (e.g. through [`Laps::is_on`]).
#[inline]
pub fn add_unchecked(f: F, n: u64) {
    #[cfg(feature = "perf-context-off")]
    {
        let _ = (f, n);
    }
    #[cfg(not(feature = "perf-context-off"))]
    LOCAL.with(|l| l.add(f, n));
}

/// Adds to counters: `perf_count!(a)` adds 1 to field `a`;
/// `perf_count!(a, b = n)` adds 1 to `a` and `n` to `b`, in one thread-local
/// access. Does nothing below `EnableCount`; `n` is evaluated only when
/// recording. `perf_count!(at level => a, b = n)` takes the level the
/// caller read for its operation ([`OpScope::level`](crate::perf_context::OpScope::level))
/// and touches the thread-local only when that level counts.
#[macro_export]
macro_rules! perf_count {
    (@n) => { 1u64 };
    (@n $n:expr) => { ($n) as u64 };
    (at $level:expr => $($f:ident $(= $n:expr)?),+ $(,)?) => {
        $crate::perf_context::with_counters_at($level, |c| {
            $( c.add($crate::perf_context::F::$f, $crate::perf_count!(@n $($n)?)); )+
        })
    };
    ($($f:ident $(= $n:expr)?),+ $(,)?) => {
        $crate::perf_context::with_counters(|c| {
            $( c.add($crate::perf_context::F::$f, $crate::perf_count!(@n $($n)?)); )+
        })
    };
}

/// Times the rest of the enclosing block into field `f`, at the field's
/// level ([`F::min_level`]): `perf_timer!(block_read_time);`.
#[macro_export]
macro_rules! perf_timer {
    ($f:ident) => {
        let _perf_timer = $crate::perf_context::PerfTimer::start($crate::perf_context::F::$f);
    };
}

/// A scope timer: adds the time from [`PerfTimer::start`] to its drop to a
/// field, reading the clock only when the thread records that field.
#[must_use = "the timer measures until it is dropped"]
pub struct PerfTimer {
    f: F,
    start: u64,
}

impl PerfTimer {
    /// Starts timing `f` if the calling thread's level records it.
    #[inline(always)]
    pub fn start(f: F) -> PerfTimer {
        PerfTimer::start_at(level_u8(), f)
    }

    /// [`PerfTimer::start`] with the thread's level already read by the
    /// caller ([`OpScope::level`]): no thread-local access at `Disable`.
    #[inline(always)]
    pub fn start_at(level: u8, f: F) -> PerfTimer {
        let start = if level >= f.min_level() as u8 {
            clock::now()
        } else {
            0
        };
        PerfTimer { f, start }
    }
}

impl Drop for PerfTimer {
    #[inline(always)]
    fn drop(&mut self) {
        if self.start != 0 {
            add_unchecked(self.f, clock::ticks_between(self.start, clock::now()));
        }
    }
}

/// A chain of timed phases sharing clock readings: the end of one phase is
/// the start of the next, so `n` phases cost `n + 1` readings.
pub struct Laps {
    level: u8,
    mark: u64,
}

impl Laps {
    /// Starts the chain; it reads the clock only if the thread's level is at
    /// least `min`. Each [`Laps::lap`] then records into its field only if
    /// the level records that field.
    #[inline(always)]
    pub fn start(min: PerfLevel) -> Laps {
        Self::start_at(level_u8(), min)
    }

    /// As [`Laps::start`] with the level already read by the caller.
    #[inline(always)]
    pub fn start_at(level: u8, min: PerfLevel) -> Laps {
        let mark = if level >= min as u8 { clock::now() } else { 0 };
        Laps { level, mark }
    }

    /// A chain that never reads the clock.
    pub fn off() -> Laps {
        Laps {
            level: DISABLE,
            mark: 0,
        }
    }

    /// True when the chain reads the clock.
    #[inline(always)]
    pub fn is_on(&self) -> bool {
        self.mark != 0
    }

    /// Ends the current phase: adds its length to `f` (if the level records
    /// `f`) and starts the next. Returns the phase's length in clock ticks.
    #[inline]
    pub fn lap(&mut self, f: F) -> u64 {
        if self.mark == 0 {
            return 0;
        }
        let d = self.split();
        if self.level >= f.min_level() as u8 {
            add_unchecked(f, d);
        }
        d
    }

    /// Ends the current phase without recording it; returns its length in
    /// clock ticks.
    #[inline]
    pub fn split(&mut self) -> u64 {
        if self.mark == 0 {
            return 0;
        }
        let now = clock::now();
        let d = clock::ticks_between(self.mark, now);
        self.mark = now;
        d
    }
}

/// One database operation (see the module docs); ends when dropped.
///
/// It reads the thread's level once, when it starts ([`OpScope::level`]);
/// the operation's own instrumentation points use that copy instead of
/// reading the thread-local again (in the JNI library every thread-local
/// access is a call to `__tls_get_addr`). The thread's level cannot change
/// under an operation: only the thread itself sets it.
#[must_use = "the operation ends when the scope is dropped"]
pub struct OpScope {
    level: u8,
}

/// Starts an operation of the calling thread: one thread-local load. Its
/// drop costs a branch at `Disable`.
#[inline(always)]
pub fn op() -> OpScope {
    OpScope { level: level_u8() }
}

impl OpScope {
    /// The thread's level when the operation started, as its C++ value
    /// (`Disable` in a build with `perf-context-off`).
    #[inline(always)]
    pub fn level(&self) -> u8 {
        self.level
    }
}

impl Drop for OpScope {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(not(feature = "perf-context-off"))]
        if self.level > DISABLE {
            LOCAL.with(Local::finish_op);
        }
    }
}

/// Records one point lookup in a table at some level, for the per-level
/// breakdown: [`LevelProbe::start`] before, [`LevelProbe::finish`] after.
pub struct LevelProbe {
    hits: u64,
    misses: u64,
    start: u64,
}

/// What a table point lookup found, for [`LevelProbe::finish`].
#[derive(Clone, Copy, Debug)]
pub struct ProbeResult {
    /// The bloom filter was consulted.
    pub filter_checked: bool,
    /// The bloom filter ruled the key out.
    pub filter_rejected: bool,
    /// The table held an entry (value or tombstone) for the key.
    pub found_entry: bool,
    /// The lookup returns a value from this table.
    pub returned_value: bool,
}

impl LevelProbe {
    /// `Some` when the calling thread records the per-level breakdown.
    #[inline(always)]
    pub fn start() -> Option<LevelProbe> {
        #[cfg(feature = "perf-context-off")]
        {
            None
        }
        #[cfg(not(feature = "perf-context-off"))]
        LOCAL.with(|l| {
            if l.level.get() < COUNT || !l.per_level.get() {
                return None;
            }
            let timed = l.level.get() >= LF::get_from_table_nanos.min_level() as u8;
            Some(LevelProbe {
                hits: l.value(F::block_cache_hit_count),
                misses: l.value(F::block_cache_miss_count),
                start: if timed { clock::now() } else { 0 },
            })
        })
    }

    /// Records the lookup at `level`.
    pub fn finish(self, level: usize, r: ProbeResult) {
        let ticks = if self.start != 0 {
            clock::ticks_between(self.start, clock::now())
        } else {
            0
        };
        let slot = level_slot(level);
        LOCAL.with(|l| {
            let hits = l.value(F::block_cache_hit_count);
            let misses = l.value(F::block_cache_miss_count);
            l.add_level(
                slot,
                LF::block_cache_hit_count,
                hits.wrapping_sub(self.hits),
            );
            l.add_level(
                slot,
                LF::block_cache_miss_count,
                misses.wrapping_sub(self.misses),
            );
            l.add_level(slot, LF::get_from_table_nanos, ticks);
            if r.filter_rejected {
                l.add_level(slot, LF::bloom_filter_useful, 1);
            } else if r.filter_checked {
                l.add_level(slot, LF::bloom_filter_full_positive, 1);
                if r.found_entry {
                    l.add_level(slot, LF::bloom_filter_full_true_positive, 1);
                }
            }
            if r.returned_value {
                l.add_level(slot, LF::user_key_return_count, 1);
            }
        });
    }
}

// ---------------------------------------------------------------- write stalls

/// Why a write stalled (for the per-cause stall fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StallCause {
    /// Every memtable is full: waiting for a flush.
    MemtableLimit,
    /// Too many L0 files: writes slowed.
    L0Slowdown,
    /// Too many L0 files: writes stopped.
    L0Stop,
    /// Too many bytes waiting for compaction.
    PendingCompactionBytes,
}

impl StallCause {
    #[cfg_attr(
        feature = "perf-context-off",
        expect(
            dead_code,
            reason = "only the recording paths use it, and they are compiled out"
        )
    )]
    fn field(self) -> F {
        match self {
            StallCause::MemtableLimit => F::write_stall_memtable_limit_micros,
            StallCause::L0Slowdown => F::write_stall_l0_slowdown_micros,
            StallCause::L0Stop => F::write_stall_l0_stop_micros,
            StallCause::PendingCompactionBytes => F::write_stall_pending_compaction_bytes_micros,
        }
    }
}

/// Records one write stall of the calling thread that lasted `micros`:
/// `write_stall_count` + 1, `write_stall_micros` and the cause's field +
/// `micros` (at `EnableCount`), and `write_delay_time` + `micros` × 1000 ns
/// (at `EnableWait`). For stalls timed by the caller; [`StallTimer`] times
/// one itself.
pub fn record_stall(cause: StallCause, micros: u64) {
    let nanos = micros.saturating_mul(1000);
    let ticks = if enabled(F::write_delay_time.min_level()) {
        clock::nanos_to_ticks(nanos)
    } else {
        0
    };
    record_stall_ticks(cause, nanos, ticks);
}

/// Records a stall of `nanos`, which is `ticks` clock ticks (0 when the
/// level does not record `write_delay_time`).
fn record_stall_ticks(cause: StallCause, nanos: u64, ticks: u64) {
    #[cfg(feature = "perf-context-off")]
    {
        let _ = (cause, nanos, ticks);
    }
    #[cfg(not(feature = "perf-context-off"))]
    LOCAL.with(|l| {
        let level = l.level.get();
        if level < COUNT {
            return;
        }
        let micros = nanos / 1000;
        l.add(F::write_stall_count, 1);
        l.add(F::write_stall_micros, micros);
        l.add(cause.field(), micros);
        if level >= F::write_delay_time.min_level() as u8 {
            l.add(F::write_delay_time, ticks);
        }
    });
}

/// Times one write stall: started when a writer starts waiting, recorded with
/// [`record_stall`] semantics when dropped. Reads the clock only at
/// `EnableCount` and above (a stall costs far more than two readings).
#[must_use = "the stall is recorded when the timer is dropped"]
pub struct StallTimer {
    cause: StallCause,
    start: u64,
}

impl StallTimer {
    /// Starts timing a stall of cause `cause`.
    pub fn start(cause: StallCause) -> StallTimer {
        let start = if enabled(PerfLevel::EnableCount) {
            clock::now()
        } else {
            0
        };
        StallTimer { cause, start }
    }
}

impl Drop for StallTimer {
    fn drop(&mut self) {
        if self.start != 0 {
            let ticks = clock::ticks_between(self.start, clock::now());
            record_stall_ticks(self.cause, clock::ticks_to_nanos(ticks), ticks);
        }
    }
}

/// Times a whole write call, to charge `write_pre_and_post_process_time`
/// with the part the other write fields do not cover.
pub struct WriteOpTimer {
    start: u64,
    covered: u64,
}

/// The write fields that are disjoint parts of a write call
/// (`db_condition_wait_nanos` is not: it lies within `write_delay_time`).
const WRITE_PARTS: [F; 6] = [
    F::write_wal_time,
    F::write_memtable_time,
    F::write_delay_time,
    F::write_scheduling_flushes_compactions_time,
    F::write_thread_wait_nanos,
    F::db_mutex_lock_nanos,
];

fn write_parts_sum(l: &Local) -> u64 {
    WRITE_PARTS
        .iter()
        .fold(0u64, |s, f| s.wrapping_add(l.value(*f)))
}

impl WriteOpTimer {
    /// Starts timing a write of an operation that read the thread's level
    /// `level` ([`OpScope::level`]); reads the clock, and touches the
    /// thread-local, only at the field's level.
    #[inline(always)]
    pub fn start_at(level: u8) -> WriteOpTimer {
        #[cfg(feature = "perf-context-off")]
        {
            let _ = level;
            WriteOpTimer {
                start: 0,
                covered: 0,
            }
        }
        #[cfg(not(feature = "perf-context-off"))]
        {
            if level < F::write_pre_and_post_process_time.min_level() as u8 {
                return WriteOpTimer {
                    start: 0,
                    covered: 0,
                };
            }
            WriteOpTimer {
                start: clock::now(),
                covered: LOCAL.with(write_parts_sum),
            }
        }
    }
}

impl Drop for WriteOpTimer {
    #[inline(always)]
    fn drop(&mut self) {
        if self.start == 0 {
            return;
        }
        let total = clock::ticks_between(self.start, clock::now());
        LOCAL.with(|l| {
            let parts = write_parts_sum(l).wrapping_sub(self.covered);
            l.add(
                F::write_pre_and_post_process_time,
                total.saturating_sub(parts),
            );
        });
    }
}

// ---------------------------------------------------------------- control API

/// Sets the calling thread's level. `Uninitialized` and `OutOfBounds` are
/// `InvalidArgument`.
pub fn set_perf_level(level: PerfLevel) -> Result<()> {
    if matches!(level, PerfLevel::Uninitialized | PerfLevel::OutOfBounds) {
        return Err(Error::InvalidArgument(format!(
            "{level:?} is not a perf level that can be set"
        )));
    }
    if level >= PerfLevel::EnableWait {
        clock::warm_up();
    }
    LOCAL.with(|l| {
        l.level.set(level as u8);
        if level > PerfLevel::Disable && !l.exit_fold_registered.get() {
            l.exit_fold_registered.set(true);
            // Registers the destructor that folds the thread's values on exit.
            let _ = EXIT_FOLD.try_with(|_| ());
        }
    });
    Ok(())
}

/// The calling thread's level (`Disable` until it sets one).
pub fn perf_level() -> PerfLevel {
    LOCAL.with(|l| PerfLevel::from_u8(l.level.get()).unwrap_or(PerfLevel::OutOfBounds))
}

/// Turns the calling thread's per-level breakdown on or off (RocksDB's
/// `EnablePerLevelPerfContext` / `DisablePerLevelPerfContext`). Off by
/// default; turning it off keeps the values recorded so far.
pub fn set_per_level_enabled(enabled: bool) {
    LOCAL.with(|l| l.per_level.set(enabled));
}

/// True when the calling thread records the per-level breakdown.
pub fn per_level_enabled() -> bool {
    LOCAL.with(|l| l.per_level.get())
}

/// A copy of the calling thread's context.
pub fn get() -> PerfContext {
    LOCAL.with(Local::snapshot)
}

/// Turns the calling thread's last-operation record on or off (off by
/// default: it costs a few dozen instructions per operation). While on,
/// [`last_operation`] explains the thread's most recent operation without a
/// reset beforehand.
pub fn set_last_operation_enabled(on: bool) {
    LOCAL.with(|l| {
        if !on && l.track_last.get() {
            // Move what the current operation recorded so far to the totals.
            let mask = l.mask.get();
            let mut m = mask;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                let v = l.cur[i].replace(0);
                l.total[i].set(l.total[i].get().wrapping_add(v));
                m &= m - 1;
            }
            l.mask.set(0);
        }
        l.track_last.set(on);
    });
}

/// True when the calling thread keeps a last-operation record.
pub fn last_operation_enabled() -> bool {
    LOCAL.with(|l| l.track_last.get())
}

/// The fields recorded by the calling thread's last operation (plus events
/// outside operations just before it), while the record is on
/// ([`set_last_operation_enabled`]): zero if it never was on, and the last
/// operation recorded while it was on once it is turned off. Per-level
/// fields and `num_runs` are not part of it (zero).
pub fn last_operation() -> PerfContext {
    LOCAL.with(Local::last_snapshot)
}

/// Zeroes the calling thread's context (fields, per-level fields,
/// `num_runs`). Values not yet folded into the aggregate stay owed to it.
/// The last-operation record is kept.
pub fn reset() {
    LOCAL.with(|l| {
        let now = l.snapshot();
        for i in 0..FLAT_LEN {
            let owed = now.flat[i].wrapping_sub(l.folded[i].get());
            l.pending[i].set(l.pending[i].get().wrapping_add(owed));
            l.folded[i].set(0);
        }
        for i in 0..NUM_FIELDS {
            l.cur[i].set(0);
            l.total[i].set(0);
        }
        for row in &l.by_level {
            for c in row {
                c.set(0);
            }
        }
        l.mask.set(0);
        l.num_runs.set(0);
    });
}

struct Aggregate {
    values: PerfContext,
    folds: u64,
}

static AGGREGATE: Mutex<Aggregate> = Mutex::new(Aggregate {
    values: PerfContext {
        flat: [0; FLAT_LEN],
    },
    folds: 0,
});

/// Adds the calling thread's values recorded since its last fold into the
/// process-wide aggregate. The thread's own values are unchanged. Runs
/// automatically when a thread that set a level above `Disable` exits.
pub fn fold_into_aggregate() {
    // `try_with`: during thread teardown `LOCAL` is still accessible (it has
    // no destructor), but stay safe if that ever changes.
    let owed = LOCAL.try_with(|l| {
        let now = l.snapshot();
        let mut owed = [0u64; FLAT_LEN];
        for (i, o) in owed.iter_mut().enumerate() {
            *o = l.pending[i]
                .replace(0)
                .wrapping_add(now.flat[i].wrapping_sub(l.folded[i].get()));
            l.folded[i].set(now.flat[i]);
        }
        owed
    });
    if let Ok(owed) = owed
        && owed.iter().any(|&v| v != 0)
    {
        let mut a = AGGREGATE.lock();
        a.values.add_flat(&owed);
        a.folds += 1;
    }
}

/// The process-wide aggregate: the sum of every fold since the last
/// [`reset_aggregate`] (threads still running are included only as far as
/// they folded).
pub fn aggregate() -> PerfContext {
    AGGREGATE.lock().values.clone()
}

/// Number of folds that added something to the aggregate since its last reset.
pub fn aggregate_folds() -> u64 {
    AGGREGATE.lock().folds
}

/// Zeroes the process-wide aggregate.
pub fn reset_aggregate() {
    let mut a = AGGREGATE.lock();
    a.values = PerfContext::default();
    a.folds = 0;
}
