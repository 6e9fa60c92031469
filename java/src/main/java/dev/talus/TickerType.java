package dev.talus;

/**
 * The counters {@link Statistics} keeps, with RocksJava's constant names for what Talus records.
 *
 * <p>Talus records a subset of RocksJava's {@code TickerType} (the constants below; RocksJava's
 * others, e.g. blob, transaction or row-cache tickers, do not exist in Talus) plus four Talus
 * additions, the per-cause stall counters {@code STALL_*_MICROS} named {@code talus.stall.*}, whose
 * sum is {@link #STALL_MICROS}. The byte values are Talus's own stable mapping (RocksJava's bytes
 * differ): new constants are only ever appended. Read them with {@link
 * Statistics#getTickerCount(TickerType)}; each javadoc gives the native name, which {@link
 * Statistics#toString()} prints and {@link Statistics#toPrometheus(String)} turns into a metric
 * name.
 */
public enum TickerType {
  /**
   * Block cache lookups that missed, all block types. Native name {@code rocksdb.block.cache.miss}.
   */
  BLOCK_CACHE_MISS((byte) 0x00),

  /** Block cache lookups that hit, all block types. Native name {@code rocksdb.block.cache.hit}. */
  BLOCK_CACHE_HIT((byte) 0x01),

  /** Blocks inserted into the block cache. Native name {@code rocksdb.block.cache.add}. */
  BLOCK_CACHE_ADD((byte) 0x02),

  /**
   * Block cache inserts that failed (strict capacity limit). Native name {@code
   * rocksdb.block.cache.add.failures}.
   */
  BLOCK_CACHE_ADD_FAILURES((byte) 0x03),

  /** Index block cache misses. Native name {@code rocksdb.block.cache.index.miss}. */
  BLOCK_CACHE_INDEX_MISS((byte) 0x04),

  /** Index block cache hits. Native name {@code rocksdb.block.cache.index.hit}. */
  BLOCK_CACHE_INDEX_HIT((byte) 0x05),

  /** Index blocks inserted into the cache. Native name {@code rocksdb.block.cache.index.add}. */
  BLOCK_CACHE_INDEX_ADD((byte) 0x06),

  /**
   * Bytes of index blocks inserted into the cache. Native name {@code
   * rocksdb.block.cache.index.bytes.insert}.
   */
  BLOCK_CACHE_INDEX_BYTES_INSERT((byte) 0x07),

  /** Filter block cache misses. Native name {@code rocksdb.block.cache.filter.miss}. */
  BLOCK_CACHE_FILTER_MISS((byte) 0x08),

  /** Filter block cache hits. Native name {@code rocksdb.block.cache.filter.hit}. */
  BLOCK_CACHE_FILTER_HIT((byte) 0x09),

  /** Filter blocks inserted into the cache. Native name {@code rocksdb.block.cache.filter.add}. */
  BLOCK_CACHE_FILTER_ADD((byte) 0x0A),

  /**
   * Bytes of filter blocks inserted into the cache. Native name {@code
   * rocksdb.block.cache.filter.bytes.insert}.
   */
  BLOCK_CACHE_FILTER_BYTES_INSERT((byte) 0x0B),

  /** Data block cache misses. Native name {@code rocksdb.block.cache.data.miss}. */
  BLOCK_CACHE_DATA_MISS((byte) 0x0C),

  /** Data block cache hits. Native name {@code rocksdb.block.cache.data.hit}. */
  BLOCK_CACHE_DATA_HIT((byte) 0x0D),

  /** Data blocks inserted into the cache. Native name {@code rocksdb.block.cache.data.add}. */
  BLOCK_CACHE_DATA_ADD((byte) 0x0E),

  /**
   * Bytes of data blocks inserted into the cache. Native name {@code
   * rocksdb.block.cache.data.bytes.insert}.
   */
  BLOCK_CACHE_DATA_BYTES_INSERT((byte) 0x0F),

  /**
   * Bytes read from the block cache (sizes of the blocks hit). Native name {@code
   * rocksdb.block.cache.bytes.read}.
   */
  BLOCK_CACHE_BYTES_READ((byte) 0x10),

  /**
   * Bytes written into the block cache (sizes of the blocks added). Native name {@code
   * rocksdb.block.cache.bytes.write}.
   */
  BLOCK_CACHE_BYTES_WRITE((byte) 0x11),

  /**
   * Point lookups the Bloom filter answered "absent", saving a block read. Native name {@code
   * rocksdb.bloom.filter.useful}.
   */
  BLOOM_FILTER_USEFUL((byte) 0x12),

  /**
   * Point lookups the Bloom filter let through ("may be present"). Native name {@code
   * rocksdb.bloom.filter.full.positive}.
   */
  BLOOM_FILTER_FULL_POSITIVE((byte) 0x13),

  /**
   * Filter positives where the key was indeed in the table. Native name {@code
   * rocksdb.bloom.filter.full.true.positive}.
   */
  BLOOM_FILTER_FULL_TRUE_POSITIVE((byte) 0x14),

  /** Gets answered by a memtable. Native name {@code rocksdb.memtable.hit}. */
  MEMTABLE_HIT((byte) 0x15),

  /** Gets not answered by any memtable. Native name {@code rocksdb.memtable.miss}. */
  MEMTABLE_MISS((byte) 0x16),

  /** Gets answered by an L0 table. Native name {@code rocksdb.l0.hit}. */
  GET_HIT_L0((byte) 0x17),

  /** Gets answered by an L1 table. Native name {@code rocksdb.l1.hit}. */
  GET_HIT_L1((byte) 0x18),

  /** Gets answered by a table at L2 or deeper. Native name {@code rocksdb.l2andup.hit}. */
  GET_HIT_L2_AND_UP((byte) 0x19),

  /**
   * Keys written (puts, deletes, merges) by write batches. Native name {@code
   * rocksdb.number.keys.written}.
   */
  NUMBER_KEYS_WRITTEN((byte) 0x1A),

  /** Keys read by Get. Native name {@code rocksdb.number.keys.read}. */
  NUMBER_KEYS_READ((byte) 0x1B),

  /** Bytes of write batches written. Native name {@code rocksdb.bytes.written}. */
  BYTES_WRITTEN((byte) 0x1C),

  /** Bytes of values returned by Get. Native name {@code rocksdb.bytes.read}. */
  BYTES_READ((byte) 0x1D),

  /** Iterator seeks. Native name {@code rocksdb.number.db.seek}. */
  NUMBER_DB_SEEK((byte) 0x1E),

  /** Iterator next calls. Native name {@code rocksdb.number.db.next}. */
  NUMBER_DB_NEXT((byte) 0x1F),

  /** Iterator prev calls. Native name {@code rocksdb.number.db.prev}. */
  NUMBER_DB_PREV((byte) 0x20),

  /** Seeks that left the iterator on an entry. Native name {@code rocksdb.number.db.seek.found}. */
  NUMBER_DB_SEEK_FOUND((byte) 0x21),

  /**
   * next calls that left the iterator on an entry. Native name {@code
   * rocksdb.number.db.next.found}.
   */
  NUMBER_DB_NEXT_FOUND((byte) 0x22),

  /**
   * prev calls that left the iterator on an entry. Native name {@code
   * rocksdb.number.db.prev.found}.
   */
  NUMBER_DB_PREV_FOUND((byte) 0x23),

  /** Key and value bytes returned by iterators. Native name {@code rocksdb.db.iter.bytes.read}. */
  ITER_BYTES_READ((byte) 0x24),

  /** MultiGet calls. Native name {@code rocksdb.number.multiget.get}. */
  NUMBER_MULTIGET_CALLS((byte) 0x25),

  /** Keys looked up by MultiGet. Native name {@code rocksdb.number.multiget.keys.read}. */
  NUMBER_MULTIGET_KEYS_READ((byte) 0x26),

  /** Value bytes returned by MultiGet. Native name {@code rocksdb.number.multiget.bytes.read}. */
  NUMBER_MULTIGET_BYTES_READ((byte) 0x27),

  /** Keys MultiGet found. Native name {@code rocksdb.number.multiget.keys.found}. */
  NUMBER_MULTIGET_KEYS_FOUND((byte) 0x28),

  /** Bytes written by flushes. Native name {@code rocksdb.flush.write.bytes}. */
  FLUSH_WRITE_BYTES((byte) 0x29),

  /** Bytes read by compactions. Native name {@code rocksdb.compact.read.bytes}. */
  COMPACT_READ_BYTES((byte) 0x2A),

  /** Bytes written by compactions. Native name {@code rocksdb.compact.write.bytes}. */
  COMPACT_WRITE_BYTES((byte) 0x2B),

  /**
   * Entries compaction dropped because a newer entry shadows them. Native name {@code
   * rocksdb.compaction.key.drop.new}.
   */
  COMPACTION_KEY_DROP_NEWER_ENTRY((byte) 0x2C),

  /**
   * Tombstones compaction dropped at the bottom level (obsolete). Native name {@code
   * rocksdb.compaction.key.drop.obsolete}.
   */
  COMPACTION_KEY_DROP_OBSOLETE((byte) 0x2D),

  /**
   * Entries compaction dropped because a range deletion covers them. Native name {@code
   * rocksdb.compaction.key.drop.range_del}.
   */
  COMPACTION_KEY_DROP_RANGE_DEL((byte) 0x2E),

  /** WAL syncs (fsync/fdatasync). Native name {@code rocksdb.wal.synced}. */
  WAL_FILE_SYNCED((byte) 0x2F),

  /** Bytes appended to the WAL. Native name {@code rocksdb.wal.bytes}. */
  WAL_FILE_BYTES((byte) 0x30),

  /**
   * Writes committed by their own thread (as group-commit leader). Native name {@code
   * rocksdb.write.self}.
   */
  WRITE_DONE_BY_SELF((byte) 0x31),

  /** Writes committed by another thread's group commit. Native name {@code rocksdb.write.other}. */
  WRITE_DONE_BY_OTHER((byte) 0x32),

  /** Writes that went through the WAL. Native name {@code rocksdb.write.wal}. */
  WRITE_WITH_WAL((byte) 0x33),

  /**
   * Microseconds writers spent delayed or stopped by write stalls (all causes). Native name {@code
   * rocksdb.stall.micros}.
   */
  STALL_MICROS((byte) 0x34),

  /**
   * Times a rate limiter ran dry and a request waited for a refill. Native name {@code
   * rocksdb.number.rate_limiter.drains}.
   */
  NUMBER_RATE_LIMITER_DRAINS((byte) 0x35),

  /**
   * Block checksums computed (written or verified). Native name {@code
   * rocksdb.block.checksum.compute.count}.
   */
  BLOCK_CHECKSUM_COMPUTE_COUNT((byte) 0x36),

  /**
   * Block checksums that did not match on read. Native name {@code
   * rocksdb.block.checksum.mismatch.count}.
   */
  BLOCK_CHECKSUM_MISMATCH_COUNT((byte) 0x37),

  /** Blocks compressed. Native name {@code rocksdb.number.block.compressed}. */
  NUMBER_BLOCK_COMPRESSED((byte) 0x38),

  /** Blocks decompressed. Native name {@code rocksdb.number.block.decompressed}. */
  NUMBER_BLOCK_DECOMPRESSED((byte) 0x39),

  /**
   * Uncompressed bytes given to the compressor. Native name {@code rocksdb.bytes.compressed.from}.
   */
  BYTES_COMPRESSED_FROM((byte) 0x3A),

  /** Compressed bytes the compressor produced. Native name {@code rocksdb.bytes.compressed.to}. */
  BYTES_COMPRESSED_TO((byte) 0x3B),

  /**
   * Compressed bytes given to the decompressor. Native name {@code
   * rocksdb.bytes.decompressed.from}.
   */
  BYTES_DECOMPRESSED_FROM((byte) 0x3C),

  /**
   * Uncompressed bytes the decompressor produced. Native name {@code
   * rocksdb.bytes.decompressed.to}.
   */
  BYTES_DECOMPRESSED_TO((byte) 0x3D),

  /**
   * Talus addition: stall microseconds because the memtables were full (max_write_buffer_number
   * reached). Part of STALL_MICROS. Native name {@code talus.stall.memtable.limit.micros}.
   */
  STALL_MEMTABLE_LIMIT_MICROS((byte) 0x3E),

  /**
   * Talus addition: microseconds writes were delayed by the L0 slowdown trigger. Part of
   * STALL_MICROS. Native name {@code talus.stall.l0.slowdown.micros}.
   */
  STALL_L0_SLOWDOWN_MICROS((byte) 0x3F),

  /**
   * Talus addition: microseconds writes were stopped by the L0 stop trigger. Part of STALL_MICROS.
   * Native name {@code talus.stall.l0.stop.micros}.
   */
  STALL_L0_STOP_MICROS((byte) 0x40),

  /**
   * Talus addition: stall microseconds caused by the pending-compaction-bytes limits (soft:
   * delayed, hard: stopped). Part of STALL_MICROS. Native name {@code
   * talus.stall.pending.compaction.bytes.micros}.
   */
  STALL_PENDING_COMPACTION_BYTES_MICROS((byte) 0x41),

  /**
   * Nanoseconds spent in the merge operator (reads, flushes and compactions). Native name {@code
   * rocksdb.merge.operation.time.nanos}.
   */
  MERGE_OPERATION_TOTAL_TIME((byte) 0x42),

  /** Merges the merge operator could not do. Native name {@code rocksdb.number.merge.failures}. */
  NUMBER_MERGE_FAILURES((byte) 0x43),

  /**
   * Talus addition: times write admission ({@link Options#setMaxConcurrentWriters}) engaged, after
   * a sustained demand of more continuously writing threads than its slots. Native name {@code
   * talus.write.admission.engagements}.
   */
  WRITE_ADMISSION_ENGAGEMENTS((byte) 0x44),

  /**
   * Talus addition: writes that slept at the write admission gate for a turn. Native name {@code
   * talus.write.admission.waits}.
   */
  WRITE_ADMISSION_WAITS((byte) 0x45),

  /**
   * Talus addition: microseconds writes slept at the write admission gate for a turn. Native name
   * {@code talus.write.admission.wait.micros}.
   */
  WRITE_ADMISSION_WAIT_MICROS((byte) 0x46);

  private final byte value;

  TickerType(final byte value) {
    this.value = value;
  }

  /**
   * Returns the byte value that identifies this constant across JNI.
   *
   * @return Talus's byte value (not RocksJava's)
   */
  public byte getValue() {
    return value;
  }

  /**
   * Returns the constant with byte value {@code value}.
   *
   * @param value a byte value from {@link #getValue()}
   * @return the TickerType with that value
   * @throws IllegalArgumentException if no constant has that value
   */
  public static TickerType getTickerType(final byte value) {
    for (final TickerType t : TickerType.values()) {
      if (t.value == value) {
        return t;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for TickerType: " + value);
  }
}
