package dev.talus;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A perf context: where the operations of one thread spent their time (RocksJava's {@code
 * PerfContext}, with its getter names where RocksJava has the field). Obtain the calling thread's
 * with {@link TalusDB#getPerfContext()}, the last operation's with {@link
 * TalusDB#getLastOperationPerfContext()}, the process-wide aggregate with {@link #aggregate()}.
 *
 * <p><b>A snapshot, not a live view.</b> RocksJava's object reads the native context on every
 * getter call; reading Talus's crosses JNI once for the whole context: the values are copied into
 * this object's array at the first getter call after it was created, after {@link #reset()} or
 * after {@link #refresh()}, and later getters read that copy. So the usual pattern works as in
 * RocksJava:
 *
 * <pre>{@code
 * db.setPerfLevel(PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX);
 * PerfContext ctx = db.getPerfContext();
 * ctx.reset();
 * db.get(key);
 * long misses = ctx.getBlockCacheMissCount();   // copies the whole context once
 * long nanos = ctx.getFromOutputFilesTime();     // reads the copy
 * db.get(key);
 * ctx.refresh();                                 // or db.getPerfContext() again
 * }</pre>
 *
 * <p>{@link #refresh()} and {@link #reset()} of a thread's context act on the <em>calling</em>
 * thread, like every perf call. Units: {@code *Time} and {@code *Nanos} getters are nanoseconds,
 * {@code *Micros} microseconds. {@code bloomMemtable*} are always 0 (Talus memtables have no bloom
 * filter). Times need a timing level, counts {@link PerfLevel#ENABLE_COUNT}; each getter names
 * its level.
 *
 * <p>Aggregation: a thread's context is folded into a process-wide aggregate by {@link
 * #foldIntoAggregate()} and automatically when a thread that set a level exits, so totals over
 * many threads survive the threads. Folding never changes the thread's own values and resetting
 * never loses values not yet folded.
 *
 * <p>Not thread-safe: use an instance from one thread at a time. It owns no native memory;
 * {@link #close()} only marks this object closed so that later use fails with {@link
 * IllegalStateException}, as with every closed Talus object (the thread's context itself is left
 * as it is).
 */
public class PerfContext extends PlainCloseable {
  static final int THREAD = 0;
  static final int LAST_OPERATION = 1;
  static final int AGGREGATE = 2;

  /** The top-level fields, in the native layout's order (after {@code num_runs}). */
  static final String[] FIELDS = {
      "user_key_comparison_count",
      "block_cache_hit_count",
      "block_cache_miss_count",
      "block_cache_index_hit_count",
      "block_cache_filter_hit_count",
      "block_read_count",
      "block_read_byte",
      "index_block_read_count",
      "filter_block_read_count",
      "get_from_memtable_count",
      "get_read_bytes",
      "multiget_read_bytes",
      "bloom_memtable_hit_count",
      "bloom_memtable_miss_count",
      "bloom_sst_hit_count",
      "bloom_sst_miss_count",
      "seek_on_memtable_count",
      "next_on_memtable_count",
      "prev_on_memtable_count",
      "seek_child_seek_count",
      "internal_key_skipped_count",
      "internal_delete_skipped_count",
      "internal_recent_skipped_count",
      "iter_read_bytes",
      "iter_next_count",
      "iter_prev_count",
      "iter_seek_count",
      "write_stall_count",
      "write_stall_micros",
      "write_stall_memtable_limit_micros",
      "write_stall_l0_slowdown_micros",
      "write_stall_l0_stop_micros",
      "write_stall_pending_compaction_bytes_micros",
      "block_read_time",
      "block_checksum_time",
      "block_decompress_time",
      "get_snapshot_time",
      "get_from_memtable_time",
      "get_post_process_time",
      "get_from_output_files_time",
      "seek_on_memtable_time",
      "seek_child_seek_time",
      "seek_internal_seek_time",
      "find_next_user_entry_time",
      "write_wal_time",
      "write_memtable_time",
      "write_delay_time",
      "write_scheduling_flushes_compactions_time",
      "write_pre_and_post_process_time",
      "write_thread_wait_nanos",
      "db_mutex_lock_nanos",
      "db_condition_wait_nanos",
      "env_new_sequential_file_nanos",
      "env_new_random_access_file_nanos",
      "env_new_writable_file_nanos",
      "env_file_exists_nanos",
      "env_get_children_nanos",
      "env_delete_file_nanos",
      "env_create_dir_if_missing_nanos",
      "env_get_file_size_nanos",
      "env_rename_file_nanos",
      "env_lock_file_nanos",
      "env_unlock_file_nanos",
      "env_sync_file_nanos",
      "env_sync_dir_nanos"
  };

  /** The per-level fields, in order within a level slot. */
  static final String[] LEVEL_FIELDS = {
      "bloom_filter_useful",
      "bloom_filter_full_positive",
      "bloom_filter_full_true_positive",
      "user_key_return_count",
      "get_from_table_nanos",
      "block_cache_hit_count",
      "block_cache_miss_count"
  };

  /** Level slots of the per-level breakdown; levels of 7 and more share the last. */
  static final int LEVEL_SLOTS = 8;

  /** Length of the native layout: num_runs, the fields, the per-level fields. */
  static final int LENGTH = 1 + FIELDS.length + LEVEL_SLOTS * LEVEL_FIELDS.length;

  private final int which;
  private final long[] values = new long[LENGTH];
  private boolean loaded;

  PerfContext(int which) {
    NativeLibrary.load();
    this.which = which;
  }

  /**
   * Copies the context again: the calling thread's current values (for a thread's context), the
   * calling thread's last operation, or the aggregate. One JNI call.
   *
   * @return this
   * @throws IllegalStateException if this object is closed
   */
  public PerfContext refresh() {
    checkOpen();
    try {
      nativeRead(which, values);
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    loaded = true;
    return this;
  }

  /**
   * Zeroes the context: the calling thread's (fields, per-level fields and the number of runs;
   * values not yet folded into the aggregate stay owed to it), or the aggregate. For a
   * last-operation context only this copy is zeroed. The next getter copies the context again.
   *
   * @throws IllegalStateException if this object is closed
   */
  public void reset() {
    checkOpen();
    try {
      if (which == THREAD) {
        nativeReset(THREAD);
      } else if (which == AGGREGATE) {
        nativeReset(AGGREGATE);
      }
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    java.util.Arrays.fill(values, 0L);
    loaded = which == LAST_OPERATION;
  }

  /** A field's value; every getter reads through here, so each throws once this is closed. */
  private long value(int index) {
    checkOpen();
    if (!loaded) {
      refresh();
    }
    return values[index];
  }

  private static int levelIndex(int level, int field) {
    if (level < 0) {
      throw new IllegalArgumentException("level must not be negative, got " + level);
    }
    int slot = Math.min(level, LEVEL_SLOTS - 1);
    return 1 + FIELDS.length + slot * LEVEL_FIELDS.length + field;
  }

  /**
   * Talus addition: operations completed while the thread's level was above {@link
   * PerfLevel#DISABLE} since the last reset (for the aggregate: by all threads folded into it).
   * An operation is one call of get, multiGet, put/delete/write, newIterator, or one iterator move.
   *
   * @return num_runs
   */
  public long getNumRuns() {
    return value(0);
  }

  /**
   * User-key comparisons in table blocks (index and data block seeks; skiplist and merge-heap comparisons are not counted, see docs/observability.md). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return user_key_comparison_count
   */
  public long getUserKeyComparisonCount() {
    return value(1);
  }
  /**
   * Block cache hits, any block type. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return block_cache_hit_count
   */
  public long getBlockCacheHitCount() {
    return value(2);
  }
  /**
   * Block cache misses, any block type (RocksDB keeps this only per level). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return block_cache_miss_count
   */
  public long getBlockCacheMissCount() {
    return value(3);
  }
  /**
   * Block cache hits on index blocks. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return block_cache_index_hit_count
   */
  public long getBlockCacheIndexHitCount() {
    return value(4);
  }
  /**
   * Block cache hits on filter blocks. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return block_cache_filter_hit_count
   */
  public long getBlockCacheFilterHitCount() {
    return value(5);
  }
  /**
   * Blocks read from table files (data, index, filter and meta blocks). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return block_read_count
   */
  public long getBlockReadCount() {
    return value(6);
  }
  /**
   * Bytes of those blocks as stored (trailer included). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return block_read_byte
   */
  public long getBlockReadByte() {
    return value(7);
  }
  /**
   * Index blocks read from table files. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return index_block_read_count
   */
  public long getIndexBlockReadCount() {
    return value(8);
  }
  /**
   * Filter blocks read from table files. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return filter_block_read_count
   */
  public long getFilterBlockReadCount() {
    return value(9);
  }
  /**
   * Memtables probed by point lookups. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return get_from_memtable_count
   */
  public long getFromMemtableCount() {
    return value(10);
  }
  /**
   * Value bytes returned by get. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return get_read_bytes
   */
  public long getReadBytes() {
    return value(11);
  }
  /**
   * Value bytes returned by multi_get. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return multiget_read_bytes
   */
  public long getMultigetReadBytes() {
    return value(12);
  }
  /**
   * Memtable bloom filter positives: always 0 (Talus memtables have no bloom filter). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return bloom_memtable_hit_count
   */
  public long getBloomMemtableHitCount() {
    return value(13);
  }
  /**
   * Memtable bloom filter negatives: always 0 (Talus memtables have no bloom filter). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return bloom_memtable_miss_count
   */
  public long getBloomMemtableMissCount() {
    return value(14);
  }
  /**
   * Point lookups the table bloom filter let through ("may match"). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return bloom_sst_hit_count
   */
  public long getBloomSstHitCount() {
    return value(15);
  }
  /**
   * Point lookups the table bloom filter ruled out. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return bloom_sst_miss_count
   */
  public long getBloomSstMissCount() {
    return value(16);
  }
  /**
   * Memtable iterator seeks. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return seek_on_memtable_count
   */
  public long getSeekOnMemtableCount() {
    return value(17);
  }
  /**
   * Memtable iterator steps forward. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return next_on_memtable_count
   */
  public long getNextOnMemtableCount() {
    return value(18);
  }
  /**
   * Memtable iterator steps backward. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return prev_on_memtable_count
   */
  public long getPrevOnMemtableCount() {
    return value(19);
  }
  /**
   * Child seeks made by the merging iterator. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return seek_child_seek_count
   */
  public long getSeekChildSeekCount() {
    return value(20);
  }
  /**
   * Internal entries a DB iterator stepped over (older versions, hidden keys). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return internal_key_skipped_count
   */
  public long getInternalKeySkippedCount() {
    return value(21);
  }
  /**
   * Tombstones a DB iterator stepped over. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return internal_delete_skipped_count
   */
  public long getInternalDeleteSkippedCount() {
    return value(22);
  }
  /**
   * Entries newer than the iterator's snapshot stepped over. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return internal_recent_skipped_count
   */
  public long getInternalRecentSkippedCount() {
    return value(23);
  }
  /**
   * Key and value bytes returned by DB iterators. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return iter_read_bytes
   */
  public long getIterReadBytes() {
    return value(24);
  }
  /**
   * DB iterator next calls. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return iter_next_count
   */
  public long getIterNextCount() {
    return value(25);
  }
  /**
   * DB iterator prev calls. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return iter_prev_count
   */
  public long getIterPrevCount() {
    return value(26);
  }
  /**
   * DB iterator seeks (all four kinds). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return iter_seek_count
   */
  public long getIterSeekCount() {
    return value(27);
  }
  /**
   * Writes that stalled (Talus): one per stall, whatever its length. Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return write_stall_count
   */
  public long getWriteStallCount() {
    return value(28);
  }
  /**
   * Microseconds writes spent stalled, all causes (Talus). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return write_stall_micros
   */
  public long getWriteStallMicros() {
    return value(29);
  }
  /**
   * Stall microseconds waiting for a flush: every memtable full (Talus). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return write_stall_memtable_limit_micros
   */
  public long getWriteStallMemtableLimitMicros() {
    return value(30);
  }
  /**
   * Stall microseconds slowed by the L0 file count (Talus). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return write_stall_l0_slowdown_micros
   */
  public long getWriteStallL0SlowdownMicros() {
    return value(31);
  }
  /**
   * Stall microseconds stopped by the L0 file count (Talus). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return write_stall_l0_stop_micros
   */
  public long getWriteStallL0StopMicros() {
    return value(32);
  }
  /**
   * Stall microseconds from pending compaction bytes (Talus). Recorded from {@link PerfLevel#ENABLE_COUNT}.
   *
   * @return write_stall_pending_compaction_bytes_micros
   */
  public long getWriteStallPendingCompactionBytesMicros() {
    return value(33);
  }
  /**
   * Nanoseconds reading blocks from table files. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return block_read_time
   */
  public long getBlockReadTime() {
    return value(34);
  }
  /**
   * Nanoseconds verifying block checksums. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return block_checksum_time
   */
  public long getBlockChecksumTime() {
    return value(35);
  }
  /**
   * Nanoseconds decompressing blocks. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return block_decompress_time
   */
  public long getBlockDecompressTime() {
    return value(36);
  }
  /**
   * Nanoseconds taking the read snapshot (sequence number and super version). Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return get_snapshot_time
   */
  public long getSnapshotTime() {
    return value(37);
  }
  /**
   * Nanoseconds searching memtables in point lookups. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return get_from_memtable_time
   */
  public long getFromMemtableTime() {
    return value(38);
  }
  /**
   * Nanoseconds in point lookups after the answer was found. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return get_post_process_time
   */
  public long getPostProcessTime() {
    return value(39);
  }
  /**
   * Nanoseconds searching table files after the memtables missed (the field some tools call "get_from_table_files"; RocksJava getFromOutputFilesTime). Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return get_from_output_files_time
   */
  public long getFromOutputFilesTime() {
    return value(40);
  }
  /**
   * Nanoseconds in memtable iterator seeks. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return seek_on_memtable_time
   */
  public long getSeekOnMemtableTime() {
    return value(41);
  }
  /**
   * Nanoseconds in the merging iterator's child seeks. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return seek_child_seek_time
   */
  public long getSeekChildSeekTime() {
    return value(42);
  }
  /**
   * Nanoseconds in a DB iterator's seek of its internal iterator. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return seek_internal_seek_time
   */
  public long getSeekInternalSeekTime() {
    return value(43);
  }
  /**
   * Nanoseconds a DB iterator spent finding the next visible entry. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return find_next_user_entry_time
   */
  public long getFindNextUserEntryTime() {
    return value(44);
  }
  /**
   * Nanoseconds writing the WAL (and syncing it when asked), by group leaders. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return write_wal_time
   */
  public long getWriteWalTime() {
    return value(45);
  }
  /**
   * Nanoseconds inserting into the memtable. Recorded from {@link PerfLevel#ENABLE_WAIT}.
   *
   * @return write_memtable_time
   */
  public long getWriteMemtableTime() {
    return value(46);
  }
  /**
   * Nanoseconds writes were delayed or stopped by a write stall. Recorded from {@link PerfLevel#ENABLE_WAIT}.
   *
   * @return write_delay_time
   */
  public long getWriteDelayTime() {
    return value(47);
  }
  /**
   * Nanoseconds switching memtables and scheduling flushes in the write path. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return write_scheduling_flushes_compactions_time
   */
  public long getWriteSchedulingFlushesCompactionsTime() {
    return value(48);
  }
  /**
   * Nanoseconds of a write call outside the other write fields. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return write_pre_and_post_process_time
   */
  public long getWritePreAndPostProcessTime() {
    return value(49);
  }
  /**
   * Nanoseconds waiting in the write queue for a group leader, and for a turn at the write
   * admission gate ({@link Options#setMaxConcurrentWriters(int)}). Recorded from {@link
   * PerfLevel#ENABLE_WAIT}.
   *
   * @return write_thread_wait_nanos
   */
  public long getWriteThreadWaitNanos() {
    return value(50);
  }
  /**
   * Nanoseconds acquiring the DB mutex. Recorded from {@link PerfLevel#ENABLE_TIME}.
   *
   * @return db_mutex_lock_nanos
   */
  public long getDbMutexLockNanos() {
    return value(51);
  }
  /**
   * Nanoseconds waiting on the DB condition variable (e.g. for a flush). Recorded from {@link PerfLevel#ENABLE_TIME}.
   *
   * @return db_condition_wait_nanos
   */
  public long getDbConditionWaitNanos() {
    return value(52);
  }
  /**
   * Nanoseconds opening files for sequential reads. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_new_sequential_file_nanos
   */
  public long getEnvNewSequentialFileNanos() {
    return value(53);
  }
  /**
   * Nanoseconds opening files for random reads (table files). Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_new_random_access_file_nanos
   */
  public long getEnvNewRandomAccessFileNanos() {
    return value(54);
  }
  /**
   * Nanoseconds creating or opening files for writing. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_new_writable_file_nanos
   */
  public long getEnvNewWritableFileNanos() {
    return value(55);
  }
  /**
   * Nanoseconds checking whether paths exist. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_file_exists_nanos
   */
  public long getEnvFileExistsNanos() {
    return value(56);
  }
  /**
   * Nanoseconds listing directories. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_get_children_nanos
   */
  public long getEnvGetChildrenNanos() {
    return value(57);
  }
  /**
   * Nanoseconds deleting files. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_delete_file_nanos
   */
  public long getEnvDeleteFileNanos() {
    return value(58);
  }
  /**
   * Nanoseconds creating directories. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_create_dir_if_missing_nanos
   */
  public long getEnvCreateDirIfMissingNanos() {
    return value(59);
  }
  /**
   * Nanoseconds reading file sizes. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_get_file_size_nanos
   */
  public long getEnvGetFileSizeNanos() {
    return value(60);
  }
  /**
   * Nanoseconds renaming files. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_rename_file_nanos
   */
  public long getEnvRenameFileNanos() {
    return value(61);
  }
  /**
   * Nanoseconds taking file locks. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_lock_file_nanos
   */
  public long getEnvLockFileNanos() {
    return value(62);
  }
  /**
   * Nanoseconds releasing file locks. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_unlock_file_nanos
   */
  public long getEnvUnlockFileNanos() {
    return value(63);
  }
  /**
   * Nanoseconds syncing files (fdatasync/fsync) (Talus). Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_sync_file_nanos
   */
  public long getEnvSyncFileNanos() {
    return value(64);
  }
  /**
   * Nanoseconds syncing directories (Talus). Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}.
   *
   * @return env_sync_dir_nanos
   */
  public long getEnvSyncDirNanos() {
    return value(65);
  }
  /**
   * Per level: Point lookups the table bloom filter ruled out at this level. Recorded from {@link PerfLevel#ENABLE_COUNT} once {@link
   * #setPerLevelEnabled(boolean)} is on for the thread.
   *
   * @param level the level (levels of 7 and more share one slot)
   * @return bloom_filter_useful at {@code level}
   */
  public long getBloomFilterUseful(int level) {
    return value(levelIndex(level, 0));
  }
  /**
   * Per level: Point lookups the table bloom filter let through at this level. Recorded from {@link PerfLevel#ENABLE_COUNT} once {@link
   * #setPerLevelEnabled(boolean)} is on for the thread.
   *
   * @param level the level (levels of 7 and more share one slot)
   * @return bloom_filter_full_positive at {@code level}
   */
  public long getBloomFilterFullPositive(int level) {
    return value(levelIndex(level, 1));
  }
  /**
   * Per level: Of those, lookups that found the key (a value or a tombstone) in the table. Recorded from {@link PerfLevel#ENABLE_COUNT} once {@link
   * #setPerLevelEnabled(boolean)} is on for the thread.
   *
   * @param level the level (levels of 7 and more share one slot)
   * @return bloom_filter_full_true_positive at {@code level}
   */
  public long getBloomFilterFullTruePositive(int level) {
    return value(levelIndex(level, 2));
  }
  /**
   * Per level: Values returned by point lookups from this level. Recorded from {@link PerfLevel#ENABLE_COUNT} once {@link
   * #setPerLevelEnabled(boolean)} is on for the thread.
   *
   * @param level the level (levels of 7 and more share one slot)
   * @return user_key_return_count at {@code level}
   */
  public long getUserKeyReturnCount(int level) {
    return value(levelIndex(level, 3));
  }
  /**
   * Per level: Nanoseconds in table point lookups at this level. Recorded from {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX} once {@link
   * #setPerLevelEnabled(boolean)} is on for the thread.
   *
   * @param level the level (levels of 7 and more share one slot)
   * @return get_from_table_nanos at {@code level}
   */
  public long getFromTableNanos(int level) {
    return value(levelIndex(level, 4));
  }
  /**
   * Per level: Block cache hits on this level's tables. Recorded from {@link PerfLevel#ENABLE_COUNT} once {@link
   * #setPerLevelEnabled(boolean)} is on for the thread.
   *
   * @param level the level (levels of 7 and more share one slot)
   * @return block_cache_hit_count at {@code level}
   */
  public long getBlockCacheHitCount(int level) {
    return value(levelIndex(level, 5));
  }
  /**
   * Per level: Block cache misses on this level's tables. Recorded from {@link PerfLevel#ENABLE_COUNT} once {@link
   * #setPerLevelEnabled(boolean)} is on for the thread.
   *
   * @param level the level (levels of 7 and more share one slot)
   * @return block_cache_miss_count at {@code level}
   */
  public long getBlockCacheMissCount(int level) {
    return value(levelIndex(level, 6));
  }
  /**
   * Every field by name ({@code num_runs}, the fields, then {@code <field>@level<N>} per level
   * slot), in the native order.
   *
   * @return a new map
   * @throws IllegalStateException if this object is closed
   */
  public Map<String, Long> toMap() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("num_runs", value(0));
    for (int i = 0; i < FIELDS.length; i++) {
      m.put(FIELDS[i], values[i + 1]);
    }
    for (int s = 0; s < LEVEL_SLOTS; s++) {
      for (int f = 0; f < LEVEL_FIELDS.length; f++) {
        String label = s == LEVEL_SLOTS - 1 ? s + "+" : Integer.toString(s);
        m.put(LEVEL_FIELDS[f] + "@level" + label, values[levelIndex(s, f)]);
      }
    }
    return m;
  }

  /**
   * @return {@link #toString(boolean) toString(true)}: the non-zero fields; {@code
   *     "PerfContext{closed}"} once closed
   */
  @Override
  public String toString() {
    return isClosed() ? "PerfContext{closed}" : toString(true);
  }

  /**
   * RocksDB's one-line format: {@code name = value} pairs separated by {@code ", "} in field
   * order, then the per-level fields as {@code name = v@level0, w@level3}, then {@code num_runs}.
   *
   * @param excludeZeroCounters leave out fields that are zero
   * @return the line
   * @throws IllegalStateException if this object is closed
   */
  public String toString(boolean excludeZeroCounters) {
    checkOpen();
    if (!loaded) {
      refresh();
    }
    try {
      return nativeToString(values, excludeZeroCounters);
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  // ---------------------------------------------------------------- process-wide aggregate

  /**
   * Talus addition: adds the calling thread's values recorded since its previous fold to the
   * process-wide aggregate. The thread's own values do not change. Threads that set a level fold
   * automatically when they exit; call this from threads that live on (a pool's workers) before
   * reading the aggregate.
   */
  public static void foldIntoAggregate() {
    NativeLibrary.load();
    try {
      nativeFold();
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * Talus addition: the process-wide aggregate, the sum of every fold since the last {@link
   * #resetAggregate()}. Its {@link #reset()} zeroes the aggregate.
   *
   * @return a snapshot of the aggregate
   */
  public static PerfContext aggregate() {
    return new PerfContext(AGGREGATE).refresh();
  }

  /** Talus addition: zeroes the process-wide aggregate. */
  public static void resetAggregate() {
    new PerfContext(AGGREGATE).reset();
  }

  /**
   * Turns the calling thread's per-level breakdown on or off (RocksDB's {@code
   * EnablePerLevelPerfContext} / {@code DisablePerLevelPerfContext}); off by default. The
   * per-level getters take a level.
   *
   * @param enabled true to record per level
   */
  public static void setPerLevelEnabled(boolean enabled) {
    NativeLibrary.load();
    try {
      nativeSetPerLevelEnabled(enabled);
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  // ---------------------------------------------------------------- for TalusDB and tests

  @SuppressWarnings("deprecation") // names OUT_OF_BOUNDS only to refuse it
  static void setLevel(PerfLevel level) {
    if (level == null) {
      throw new NullPointerException("level");
    }
    if (level == PerfLevel.UNINITIALIZED || level == PerfLevel.OUT_OF_BOUNDS) {
      throw new IllegalArgumentException(level + " is not a perf level that can be set");
    }
    NativeLibrary.load();
    try {
      nativeSetLevel(level.getValue());
    } catch (TalusException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  static PerfLevel level() {
    NativeLibrary.load();
    try {
      return PerfLevel.getPerfLevel(nativeGetLevel());
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  static long[] read(int which, long[] out) {
    NativeLibrary.load();
    try {
      nativeRead(which, out);
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return out;
  }

  static void resetThread() {
    NativeLibrary.load();
    try {
      nativeReset(THREAD);
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  static String format(long[] values, boolean excludeZero) {
    try {
      return nativeToString(values, excludeZero);
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  static String[] nativeNames() {
    NativeLibrary.load();
    try {
      return nativeFieldNames();
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static native void nativeSetLevel(byte level) throws TalusException;

  private static native byte nativeGetLevel() throws TalusException;

  private static native void nativeSetPerLevelEnabled(boolean enabled) throws TalusException;

  static native void nativeSetLastOperationEnabled(boolean enabled) throws TalusException;

  private static native void nativeRead(int which, long[] out) throws TalusException;

  private static native void nativeReset(int which) throws TalusException;

  private static native void nativeFold() throws TalusException;

  private static native String nativeToString(long[] values, boolean excludeZero)
      throws TalusException;

  private static native String[] nativeFieldNames() throws TalusException;
}
