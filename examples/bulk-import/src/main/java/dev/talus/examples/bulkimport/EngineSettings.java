package dev.talus.examples.bulkimport;

/**
 * The database options of the import, applied identically by {@link TalusEngine} and {@link
 * RocksDbEngine}. {@link #bulkImportPreset} gives the values that the options chain of the
 * importer this example reproduces leaves in force: the chain itself, then {@code
 * optimizeLevelStyleCompaction()} with its 512 MiB memtable budget, which the importer calls
 * afterwards and which overrides the write buffer
 * count (4 → 6) and the L0 compaction trigger (4 → 2), and sets the target file size (64 MiB) and
 * base level size (512 MiB).
 *
 * <p>RocksDB's {@code OptimizeLevelStyleCompaction} also turns compression off for L0 and L1;
 * Talus's preset does not, so neither engine applies a per-level setting: both compress every
 * level with the same codec, LZ4 unless {@code --compression} says otherwise.
 *
 * @param path the database directory
 * @param walDir the WAL directory, or null for the database directory
 * @param writeBufferSize bytes of one memtable
 * @param maxWriteBufferNumber memtables (active and immutable) before writes stop
 * @param minWriteBufferNumberToMerge memtables merged per flush
 * @param level0FileNumCompactionTrigger L0 files that start an L0 compaction
 * @param level0SlowdownWritesTrigger L0 files that delay writes
 * @param level0StopWritesTrigger L0 files that stop writes
 * @param softPendingCompactionBytesLimit pending compaction bytes that delay writes
 * @param hardPendingCompactionBytesLimit pending compaction bytes that stop writes
 * @param maxBackgroundCompactions compaction threads
 * @param maxBackgroundFlushes flush threads
 * @param targetFileSizeBase bytes of a compaction output file
 * @param maxBytesForLevelBase bytes of the base level
 * @param rateLimitBytesPerSecond flush and compaction write rate (0 = no limiter)
 * @param rateLimitRefillMicros the limiter's refill period
 * @param rateLimitFairness the limiter's fairness
 * @param walBytesPerSync WAL bytes between syncs
 * @param blockCacheBytes LRU block cache capacity
 * @param bloomBitsPerKey Bloom filter bits per key (whole-key filtering)
 * @param blockSize target uncompressed bytes of a data block (both engines' default: 4 KiB)
 * @param cacheIndexAndFilterBlocks index and filter blocks in the block cache (true) or held by
 *     each open table (false, the default of both engines; with {@code max_open_files} -1, also
 *     both defaults, every table stays open, so they are all in memory outside the cache)
 * @param statistics collect a {@code Statistics} object (tickers and histograms; the import
 *     reads its stall and write-amplification figures from it). Off, neither engine records
 *     statistics on its read path, as a new user's database
 * @param lowCpuPriorityCompactions compaction threads at the lowest CPU priority ({@code
 *     Env.getDefault().lowerThreadPoolCPUPriority(Priority.LOW)} in both engines)
 * @param rocksdbWriteThreadAdaptiveYield RocksJava only: {@code
 *     setEnableWriteThreadAdaptiveYield} (RocksDB's default true: a writer waiting for its write
 *     group spins and yields up to 100 us before it blocks). Talus has no such setting: its
 *     writers spin 64 rounds, then park
 * @param talusMaxConcurrentWriters Talus only: {@code setMaxConcurrentWriters} (write admission;
 *     -1, Talus's default, is one writer thread at a time per core, 0 is none, as in RocksDB,
 *     which has no such setting)
 * @param compression the codec of every level, the same {@code CompressionType} on both engines
 * @param compactionStyle the compaction style, the same {@code CompactionStyle} on both engines
 *     with RocksDB's default universal options; FIFO with no size limit ({@code
 *     maxTableFilesSize} unlimited, no TTL), so that the import keeps every row it verifies: FIFO
 *     then never compacts, and L0 holds every table
 */
record EngineSettings(
    String path,
    String walDir,
    long writeBufferSize,
    int maxWriteBufferNumber,
    int minWriteBufferNumberToMerge,
    int level0FileNumCompactionTrigger,
    int level0SlowdownWritesTrigger,
    int level0StopWritesTrigger,
    long softPendingCompactionBytesLimit,
    long hardPendingCompactionBytesLimit,
    int maxBackgroundCompactions,
    int maxBackgroundFlushes,
    long targetFileSizeBase,
    long maxBytesForLevelBase,
    long rateLimitBytesPerSecond,
    long rateLimitRefillMicros,
    int rateLimitFairness,
    long walBytesPerSync,
    long blockCacheBytes,
    double bloomBitsPerKey,
    long blockSize,
    boolean cacheIndexAndFilterBlocks,
    boolean statistics,
    boolean lowCpuPriorityCompactions,
    boolean rocksdbWriteThreadAdaptiveYield,
    int talusMaxConcurrentWriters,
    Compression compression,
    Style compactionStyle) {

  /** Compaction style of both engines (their {@code CompactionStyle} of the same name). */
  enum Style {
    level,
    universal,
    fifo
  }

  /** Block codec of both engines (their {@code CompressionType} of the same name). */
  enum Compression {
    lz4,
    snappy,
    zstd,
    none
  }

  private static final long MIB = 1L << 20;

  /**
   * The options in force in the importer this example reproduces (its values: {@code
   * walBytesPerSyncMb} 4, {@code lowCpuPriorityCompactions} false), with those two as flags.
   *
   * @param path database directory
   * @param walDir WAL directory or null
   * @param rateLimitMb the limiter's rate in MiB/s (the importer: 150; 0 = none)
   * @param walBytesPerSyncMb WAL MiB between syncs (the importer: 4; 0 = off)
   * @param lowCpuPriorityCompactions compaction threads at the lowest CPU priority
   * @param rocksdbWriteThreadAdaptiveYield RocksJava's adaptive yield (the importer: its
   *     default, true)
   * @param talusMaxConcurrentWriters Talus's write admission (its default: -1)
   * @return the settings
   */
  static EngineSettings bulkImportPreset(String path, String walDir, long rateLimitMb,
      long walBytesPerSyncMb, boolean lowCpuPriorityCompactions,
      boolean rocksdbWriteThreadAdaptiveYield, int talusMaxConcurrentWriters) {
    long budget = 512 * MIB; // optimizeLevelStyleCompaction()'s default memtable budget
    return new EngineSettings(
        path,
        walDir,
        budget / 4, // setWriteBufferSize(128 MB); the preset sets the same
        6, // setMaxWriteBufferNumber(4), then the preset's 6
        2, // setMinWriteBufferNumberToMerge(2); the preset sets the same
        2, // setLevel0FileNumCompactionTrigger(4), then the preset's 2
        20, // setLevel0FileNumSlowdownTrigger(20)
        36, // RocksDB's default stop trigger
        1L << 30, // setLevel0FileNumSoftPendingCompactionBytesLimit(1 GB)
        256L << 30, // RocksDB's default hard limit
        4, // setMaxBackgroundCompactions(4)
        2, // setMaxBackgroundFlushes(2)
        budget / 8, // the preset's target file size, 64 MB
        budget, // the preset's base level size, 512 MB
        rateLimitMb * MIB, // RateLimiter(150 MB/s, ...)
        10 * MIB, // refill period 10 * 1024 * 1024 us (the importer's "10 s")
        10, // fairness
        walBytesPerSyncMb * MIB, // setWalBytesPerSync(4 MB)
        512 * MIB, // block cache 512 MB
        10.0, // BloomFilter(10, false), whole-key filtering
        4096, // both engines' default block size
        false, // both engines' default: index and filter blocks held by the table readers
        true, // the import reads stalls and write amplification from the statistics
        lowCpuPriorityCompactions,
        rocksdbWriteThreadAdaptiveYield,
        talusMaxConcurrentWriters,
        Compression.lz4,
        Style.level);
  }

  /**
   * The same settings with statistics on or off ({@link ReadBench} leaves them off by default,
   * as a new user's database: both engines then skip their per-read tickers and timers).
   *
   * @param on whether to collect statistics
   * @return the settings
   */
  EngineSettings withStatistics(boolean on) {
    return new EngineSettings(path, walDir, writeBufferSize, maxWriteBufferNumber,
        minWriteBufferNumberToMerge, level0FileNumCompactionTrigger, level0SlowdownWritesTrigger,
        level0StopWritesTrigger, softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit,
        maxBackgroundCompactions, maxBackgroundFlushes, targetFileSizeBase, maxBytesForLevelBase,
        rateLimitBytesPerSecond, rateLimitRefillMicros, rateLimitFairness, walBytesPerSync,
        blockCacheBytes, bloomBitsPerKey, blockSize, cacheIndexAndFilterBlocks, on,
        lowCpuPriorityCompactions, rocksdbWriteThreadAdaptiveYield, talusMaxConcurrentWriters,
        compression, compactionStyle);
  }

  /**
   * The same settings with another codec.
   *
   * @param codec the codec of every level on both engines
   * @return the settings
   */
  /**
   * {@code --mode bulk-load}: the engines call {@code Options.prepareForBulkLoad()} on top of these
   * settings when they open. Set once by the harness before the engine opens.
   */
  static volatile boolean prepareForBulkLoad;

  /**
   * {@code --max-subcompactions}: {@code setMaxSubcompactions(n)} on both engines' options (the
   * most key ranges one L0 or manual compaction is split into, each run by a thread of its own;
   * both engines' default 1). Set once by the harness before the engine opens.
   */
  static volatile int maxSubcompactions = 1;

  EngineSettings withCompression(Compression codec) {
    return new EngineSettings(path, walDir, writeBufferSize, maxWriteBufferNumber,
        minWriteBufferNumberToMerge, level0FileNumCompactionTrigger, level0SlowdownWritesTrigger,
        level0StopWritesTrigger, softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit,
        maxBackgroundCompactions, maxBackgroundFlushes, targetFileSizeBase, maxBytesForLevelBase,
        rateLimitBytesPerSecond, rateLimitRefillMicros, rateLimitFairness, walBytesPerSync,
        blockCacheBytes, bloomBitsPerKey, blockSize, cacheIndexAndFilterBlocks, statistics,
        lowCpuPriorityCompactions, rocksdbWriteThreadAdaptiveYield, talusMaxConcurrentWriters,
        codec, compactionStyle);
  }

  /**
   * The same settings with another compaction style.
   *
   * @param style the compaction style of both engines
   * @return the settings
   */
  EngineSettings withCompactionStyle(Style style) {
    return new EngineSettings(path, walDir, writeBufferSize, maxWriteBufferNumber,
        minWriteBufferNumberToMerge, level0FileNumCompactionTrigger, level0SlowdownWritesTrigger,
        level0StopWritesTrigger, softPendingCompactionBytesLimit, hardPendingCompactionBytesLimit,
        maxBackgroundCompactions, maxBackgroundFlushes, targetFileSizeBase, maxBytesForLevelBase,
        rateLimitBytesPerSecond, rateLimitRefillMicros, rateLimitFairness, walBytesPerSync,
        blockCacheBytes, bloomBitsPerKey, blockSize, cacheIndexAndFilterBlocks, statistics,
        lowCpuPriorityCompactions, rocksdbWriteThreadAdaptiveYield, talusMaxConcurrentWriters,
        compression, style);
  }

  /** @return the settings as one line, for the run's header and summary */
  String describe() {
    return String.format(
        "write_buffer_size=%dMiB max_write_buffer_number=%d min_write_buffer_number_to_merge=%d "
            + "level0_file_num_compaction_trigger=%d level0_slowdown_writes_trigger=%d "
            + "level0_stop_writes_trigger=%d soft_pending_compaction_bytes_limit=%dMiB "
            + "hard_pending_compaction_bytes_limit=%dGiB max_background_compactions=%d "
            + "max_background_flushes=%d target_file_size_base=%dMiB "
            + "max_bytes_for_level_base=%dMiB rate_limiter=%s wal_bytes_per_sync=%dMiB "
            + "block_cache=%dMiB(LRU, shards auto, high_pri_pool_ratio 0) "
            + "bloom=%.0fbits(whole key) block_size=%d cache_index_and_filter_blocks=%b "
            + "statistics=%s compression=%s compaction_style=%s "
            + "manual_flush(no WAL-size flush) sync=false compaction_cpu_priority=%s wal_dir=%s "
            + "rocksdb_write_thread_adaptive_yield=%b talus_max_concurrent_writers=%s "
            + "max_subcompactions=%d",
        writeBufferSize / MIB, maxWriteBufferNumber, minWriteBufferNumberToMerge,
        level0FileNumCompactionTrigger, level0SlowdownWritesTrigger, level0StopWritesTrigger,
        softPendingCompactionBytesLimit / MIB, hardPendingCompactionBytesLimit >> 30,
        maxBackgroundCompactions, maxBackgroundFlushes, targetFileSizeBase / MIB,
        maxBytesForLevelBase / MIB,
        rateLimitBytesPerSecond == 0
            ? "none"
            : (rateLimitBytesPerSecond / MIB) + "MiB/s(refill " + rateLimitRefillMicros
                + "us, fairness " + rateLimitFairness + ", writes only)",
        walBytesPerSync / MIB, blockCacheBytes / MIB, bloomBitsPerKey, blockSize,
        cacheIndexAndFilterBlocks, statistics ? "on" : "off", compression, compactionStyle,
        lowCpuPriorityCompactions ? "low(nice 19)" : "normal",
        walDir == null ? "(db dir)" : walDir, rocksdbWriteThreadAdaptiveYield,
        switch (talusMaxConcurrentWriters) {
          case -1 -> "-1(one per core)";
          case 0 -> "0(no limit)";
          default -> Integer.toString(talusMaxConcurrentWriters);
        },
        maxSubcompactions);
  }
}
