package dev.talus;

/**
 * The calling thread's perf context, with the write-stall fields first ({@link
 * TalusDB#getThreadLocalInfo()}): {@link #writeStallCount()}, {@link #writeStallMicros()}, {@link
 * #numRuns()}, {@link #iterBytesRead()}, and every other field under its camelCase name. A
 * snapshot, copied in one JNI call by {@link TalusDB#getThreadLocalInfo()}.
 *
 * <p>Turn recording on with {@link TalusDB#enableThreadLocalPerformanceInfo(boolean)}, which sets
 * the calling thread to {@link PerfLevel#ENABLE_TIME_EXCEPT_FOR_MUTEX}. Units as in {@link
 * PerfContext}: {@code *Time}/{@code *Nanos} nanoseconds, {@code *Micros} microseconds.
 */
public final class ThreadLocalInfo {
  private final long[] values;

  ThreadLocalInfo(long[] values) {
    this.values = values;
  }

  /**
   * Operations completed on this thread while recording, since the last reset (see {@link
   * PerfContext#getNumRuns()}).
   *
   * @return num_runs
   */
  public long numRuns() {
    return values[0];
  }

  /**
   * Key and value bytes returned by iterators (an alias of {@link #iterReadBytes()}).
   *
   * @return iter_read_bytes
   */
  public long iterBytesRead() {
    return iterReadBytes();
  }

  /**
   * User-key comparisons in table blocks (index and data block seeks; skiplist and merge-heap comparisons are not counted, see docs/observability.md).
   *
   * @return user_key_comparison_count
   */
  public long userKeyComparisonCount() {
    return values[1];
  }
  /**
   * Block cache hits, any block type.
   *
   * @return block_cache_hit_count
   */
  public long blockCacheHitCount() {
    return values[2];
  }
  /**
   * Block cache misses, any block type (RocksDB keeps this only per level).
   *
   * @return block_cache_miss_count
   */
  public long blockCacheMissCount() {
    return values[3];
  }
  /**
   * Block cache hits on index blocks.
   *
   * @return block_cache_index_hit_count
   */
  public long blockCacheIndexHitCount() {
    return values[4];
  }
  /**
   * Block cache hits on filter blocks.
   *
   * @return block_cache_filter_hit_count
   */
  public long blockCacheFilterHitCount() {
    return values[5];
  }
  /**
   * Blocks read from table files (data, index, filter and meta blocks).
   *
   * @return block_read_count
   */
  public long blockReadCount() {
    return values[6];
  }
  /**
   * Bytes of those blocks as stored (trailer included).
   *
   * @return block_read_byte
   */
  public long blockReadByte() {
    return values[7];
  }
  /**
   * Index blocks read from table files.
   *
   * @return index_block_read_count
   */
  public long indexBlockReadCount() {
    return values[8];
  }
  /**
   * Filter blocks read from table files.
   *
   * @return filter_block_read_count
   */
  public long filterBlockReadCount() {
    return values[9];
  }
  /**
   * Memtables probed by point lookups.
   *
   * @return get_from_memtable_count
   */
  public long getFromMemtableCount() {
    return values[10];
  }
  /**
   * Value bytes returned by get.
   *
   * @return get_read_bytes
   */
  public long getReadBytes() {
    return values[11];
  }
  /**
   * Value bytes returned by multi_get.
   *
   * @return multiget_read_bytes
   */
  public long multigetReadBytes() {
    return values[12];
  }
  /**
   * Memtable bloom filter positives: always 0 (Talus memtables have no bloom filter).
   *
   * @return bloom_memtable_hit_count
   */
  public long bloomMemtableHitCount() {
    return values[13];
  }
  /**
   * Memtable bloom filter negatives: always 0 (Talus memtables have no bloom filter).
   *
   * @return bloom_memtable_miss_count
   */
  public long bloomMemtableMissCount() {
    return values[14];
  }
  /**
   * Point lookups the table bloom filter let through ("may match").
   *
   * @return bloom_sst_hit_count
   */
  public long bloomSstHitCount() {
    return values[15];
  }
  /**
   * Point lookups the table bloom filter ruled out.
   *
   * @return bloom_sst_miss_count
   */
  public long bloomSstMissCount() {
    return values[16];
  }
  /**
   * Memtable iterator seeks.
   *
   * @return seek_on_memtable_count
   */
  public long seekOnMemtableCount() {
    return values[17];
  }
  /**
   * Memtable iterator steps forward.
   *
   * @return next_on_memtable_count
   */
  public long nextOnMemtableCount() {
    return values[18];
  }
  /**
   * Memtable iterator steps backward.
   *
   * @return prev_on_memtable_count
   */
  public long prevOnMemtableCount() {
    return values[19];
  }
  /**
   * Child seeks made by the merging iterator.
   *
   * @return seek_child_seek_count
   */
  public long seekChildSeekCount() {
    return values[20];
  }
  /**
   * Internal entries a DB iterator stepped over (older versions, hidden keys).
   *
   * @return internal_key_skipped_count
   */
  public long internalKeySkippedCount() {
    return values[21];
  }
  /**
   * Tombstones a DB iterator stepped over.
   *
   * @return internal_delete_skipped_count
   */
  public long internalDeleteSkippedCount() {
    return values[22];
  }
  /**
   * Entries newer than the iterator's snapshot stepped over.
   *
   * @return internal_recent_skipped_count
   */
  public long internalRecentSkippedCount() {
    return values[23];
  }
  /**
   * Key and value bytes returned by DB iterators.
   *
   * @return iter_read_bytes
   */
  public long iterReadBytes() {
    return values[24];
  }
  /**
   * DB iterator next calls.
   *
   * @return iter_next_count
   */
  public long iterNextCount() {
    return values[25];
  }
  /**
   * DB iterator prev calls.
   *
   * @return iter_prev_count
   */
  public long iterPrevCount() {
    return values[26];
  }
  /**
   * DB iterator seeks (all four kinds).
   *
   * @return iter_seek_count
   */
  public long iterSeekCount() {
    return values[27];
  }
  /**
   * Writes that stalled (Talus): one per stall, whatever its length.
   *
   * @return write_stall_count
   */
  public long writeStallCount() {
    return values[28];
  }
  /**
   * Microseconds writes spent stalled, all causes (Talus).
   *
   * @return write_stall_micros
   */
  public long writeStallMicros() {
    return values[29];
  }
  /**
   * Stall microseconds waiting for a flush: every memtable full (Talus).
   *
   * @return write_stall_memtable_limit_micros
   */
  public long writeStallMemtableLimitMicros() {
    return values[30];
  }
  /**
   * Stall microseconds slowed by the L0 file count (Talus).
   *
   * @return write_stall_l0_slowdown_micros
   */
  public long writeStallL0SlowdownMicros() {
    return values[31];
  }
  /**
   * Stall microseconds stopped by the L0 file count (Talus).
   *
   * @return write_stall_l0_stop_micros
   */
  public long writeStallL0StopMicros() {
    return values[32];
  }
  /**
   * Stall microseconds from pending compaction bytes (Talus).
   *
   * @return write_stall_pending_compaction_bytes_micros
   */
  public long writeStallPendingCompactionBytesMicros() {
    return values[33];
  }
  /**
   * Nanoseconds reading blocks from table files.
   *
   * @return block_read_time
   */
  public long blockReadTime() {
    return values[34];
  }
  /**
   * Nanoseconds verifying block checksums.
   *
   * @return block_checksum_time
   */
  public long blockChecksumTime() {
    return values[35];
  }
  /**
   * Nanoseconds decompressing blocks.
   *
   * @return block_decompress_time
   */
  public long blockDecompressTime() {
    return values[36];
  }
  /**
   * Nanoseconds taking the read snapshot (sequence number and super version).
   *
   * @return get_snapshot_time
   */
  public long getSnapshotTime() {
    return values[37];
  }
  /**
   * Nanoseconds searching memtables in point lookups.
   *
   * @return get_from_memtable_time
   */
  public long getFromMemtableTime() {
    return values[38];
  }
  /**
   * Nanoseconds in point lookups after the answer was found.
   *
   * @return get_post_process_time
   */
  public long getPostProcessTime() {
    return values[39];
  }
  /**
   * Nanoseconds searching table files after the memtables missed (the field some tools call "get_from_table_files"; RocksJava getFromOutputFilesTime).
   *
   * @return get_from_output_files_time
   */
  public long getFromOutputFilesTime() {
    return values[40];
  }
  /**
   * Nanoseconds in memtable iterator seeks.
   *
   * @return seek_on_memtable_time
   */
  public long seekOnMemtableTime() {
    return values[41];
  }
  /**
   * Nanoseconds in the merging iterator's child seeks.
   *
   * @return seek_child_seek_time
   */
  public long seekChildSeekTime() {
    return values[42];
  }
  /**
   * Nanoseconds in a DB iterator's seek of its internal iterator.
   *
   * @return seek_internal_seek_time
   */
  public long seekInternalSeekTime() {
    return values[43];
  }
  /**
   * Nanoseconds a DB iterator spent finding the next visible entry.
   *
   * @return find_next_user_entry_time
   */
  public long findNextUserEntryTime() {
    return values[44];
  }
  /**
   * Nanoseconds writing the WAL (and syncing it when asked), by group leaders.
   *
   * @return write_wal_time
   */
  public long writeWalTime() {
    return values[45];
  }
  /**
   * Nanoseconds inserting into the memtable.
   *
   * @return write_memtable_time
   */
  public long writeMemtableTime() {
    return values[46];
  }
  /**
   * Nanoseconds writes were delayed or stopped by a write stall.
   *
   * @return write_delay_time
   */
  public long writeDelayTime() {
    return values[47];
  }
  /**
   * Nanoseconds switching memtables and scheduling flushes in the write path.
   *
   * @return write_scheduling_flushes_compactions_time
   */
  public long writeSchedulingFlushesCompactionsTime() {
    return values[48];
  }
  /**
   * Nanoseconds of a write call outside the other write fields.
   *
   * @return write_pre_and_post_process_time
   */
  public long writePreAndPostProcessTime() {
    return values[49];
  }
  /**
   * Nanoseconds waiting in the write queue for a group leader, and for a turn at the write
   * admission gate ({@link Options#setMaxConcurrentWriters(int)}).
   *
   * @return write_thread_wait_nanos
   */
  public long writeThreadWaitNanos() {
    return values[50];
  }
  /**
   * Nanoseconds acquiring the DB mutex.
   *
   * @return db_mutex_lock_nanos
   */
  public long dbMutexLockNanos() {
    return values[51];
  }
  /**
   * Nanoseconds waiting on the DB condition variable (e.g. for a flush).
   *
   * @return db_condition_wait_nanos
   */
  public long dbConditionWaitNanos() {
    return values[52];
  }
  /**
   * Nanoseconds opening files for sequential reads.
   *
   * @return env_new_sequential_file_nanos
   */
  public long envNewSequentialFileNanos() {
    return values[53];
  }
  /**
   * Nanoseconds opening files for random reads (table files).
   *
   * @return env_new_random_access_file_nanos
   */
  public long envNewRandomAccessFileNanos() {
    return values[54];
  }
  /**
   * Nanoseconds creating or opening files for writing.
   *
   * @return env_new_writable_file_nanos
   */
  public long envNewWritableFileNanos() {
    return values[55];
  }
  /**
   * Nanoseconds checking whether paths exist.
   *
   * @return env_file_exists_nanos
   */
  public long envFileExistsNanos() {
    return values[56];
  }
  /**
   * Nanoseconds listing directories.
   *
   * @return env_get_children_nanos
   */
  public long envGetChildrenNanos() {
    return values[57];
  }
  /**
   * Nanoseconds deleting files.
   *
   * @return env_delete_file_nanos
   */
  public long envDeleteFileNanos() {
    return values[58];
  }
  /**
   * Nanoseconds creating directories.
   *
   * @return env_create_dir_if_missing_nanos
   */
  public long envCreateDirIfMissingNanos() {
    return values[59];
  }
  /**
   * Nanoseconds reading file sizes.
   *
   * @return env_get_file_size_nanos
   */
  public long envGetFileSizeNanos() {
    return values[60];
  }
  /**
   * Nanoseconds renaming files.
   *
   * @return env_rename_file_nanos
   */
  public long envRenameFileNanos() {
    return values[61];
  }
  /**
   * Nanoseconds taking file locks.
   *
   * @return env_lock_file_nanos
   */
  public long envLockFileNanos() {
    return values[62];
  }
  /**
   * Nanoseconds releasing file locks.
   *
   * @return env_unlock_file_nanos
   */
  public long envUnlockFileNanos() {
    return values[63];
  }
  /**
   * Nanoseconds syncing files (fdatasync/fsync) (Talus).
   *
   * @return env_sync_file_nanos
   */
  public long envSyncFileNanos() {
    return values[64];
  }
  /**
   * Nanoseconds syncing directories (Talus).
   *
   * @return env_sync_dir_nanos
   */
  public long envSyncDirNanos() {
    return values[65];
  }
  /**
   * Zeroes the calling thread's perf context (see {@link PerfContext#reset()}) and this snapshot.
   */
  public void reset() {
    PerfContext.resetThread();
    java.util.Arrays.fill(values, 0L);
  }

  /** @return the non-zero fields, in RocksDB's one-line format */
  @Override
  public String toString() {
    return PerfContext.format(values, true);
  }
}
