package dev.talus.examples.bulkimport;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.Env;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.Priority;
import org.rocksdb.RateLimiter;
import org.rocksdb.RateLimiterMode;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * {@link Engine} on RocksJava, with the options of {@link TalusEngine}. RocksJava has no
 * per-thread stall counters (no {@code ThreadLocalInfo}): stall time comes from the {@code
 * STALL_MICROS} ticker and stall counts from {@code rocksdb.cf-write-stall-stats}, and the output
 * says so.
 *
 * <p>Talus's {@code setManualFlushEnabled(true)} (no flush triggered by WAL size) needs no
 * counterpart: RocksDB triggers WAL-size flushes ({@code max_total_wal_size}) only with more than
 * one column family, and this database has one.
 */
final class RocksDbEngine implements Engine {
  private final Options options;
  private final Statistics statistics;
  private final LRUCache cache;
  private final BloomFilter bloom;
  private final RateLimiter rateLimiter;
  private final FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true);
  private final RocksDB db;

  // setMaxBackgroundCompactions/Flushes are deprecated in RocksJava but still honoured by RocksDB
  // 10 (they override the max_background_jobs split); the importer sets them, and so does Talus.
  @SuppressWarnings("deprecation")
  RocksDbEngine(EngineSettings s) throws Exception {
    RocksDB.loadLibrary();
    statistics = new Statistics();
    cache = new LRUCache(s.blockCacheBytes());
    bloom = new BloomFilter(s.bloomBitsPerKey(), false);
    options = new Options()
        .setCreateIfMissing(true)
        .setWriteBufferSize(s.writeBufferSize())
        .setMaxWriteBufferNumber(s.maxWriteBufferNumber())
        .setMinWriteBufferNumberToMerge(s.minWriteBufferNumberToMerge())
        .setLevel0FileNumCompactionTrigger(s.level0FileNumCompactionTrigger())
        .setLevel0SlowdownWritesTrigger(s.level0SlowdownWritesTrigger())
        .setLevel0StopWritesTrigger(s.level0StopWritesTrigger())
        .setSoftPendingCompactionBytesLimit(s.softPendingCompactionBytesLimit())
        .setHardPendingCompactionBytesLimit(s.hardPendingCompactionBytesLimit())
        .setMaxBackgroundCompactions(s.maxBackgroundCompactions())
        .setMaxBackgroundFlushes(s.maxBackgroundFlushes())
        .setTargetFileSizeBase(s.targetFileSizeBase())
        .setMaxBytesForLevelBase(s.maxBytesForLevelBase())
        .setCompressionType(CompressionType.LZ4_COMPRESSION)
        .setWalBytesPerSync(s.walBytesPerSync())
        .setEnableWriteThreadAdaptiveYield(s.rocksdbWriteThreadAdaptiveYield())
        .setStatistics(statistics)
        .setTableFormatConfig(new BlockBasedTableConfig()
            .setBlockCache(cache)
            .setFilterPolicy(bloom)
            .setWholeKeyFiltering(true));
    if (s.rateLimitBytesPerSecond() > 0) {
      rateLimiter = new RateLimiter(s.rateLimitBytesPerSecond(), s.rateLimitRefillMicros(),
          s.rateLimitFairness(), RateLimiterMode.WRITES_ONLY, false);
      options.setRateLimiter(rateLimiter);
    } else {
      rateLimiter = null;
    }
    if (s.walDir() != null) {
      options.setWalDir(s.walDir());
    }
    if (s.lowCpuPriorityCompactions()) {
      // Process-wide and one-way, in both engines.
      Env.getDefault().lowerThreadPoolCPUPriority(Priority.LOW);
    }
    db = RocksDB.open(options, s.path());
  }

  @Override
  public String describe() {
    return "rocksdb " + RocksDB.rocksdbVersion() + " (RocksJava rocksdbjni)";
  }

  @Override
  public void put(byte[] key, byte[] value) throws Exception {
    db.put(key, value);
  }

  @Override
  public byte[] get(byte[] key) throws Exception {
    return db.get(key);
  }

  @Override
  public void flush() throws Exception {
    db.flush(flushOptions);
  }

  @Override
  public String property(String name) throws Exception {
    return db.getProperty(name);
  }

  @Override
  public long longProperty(String name) throws Exception {
    return db.getLongProperty(name);
  }

  @Override
  public long ticker(Ticker ticker) {
    return statistics.getTickerCount(TickerType.valueOf(ticker.name()));
  }

  @Override
  public double[] walSyncs() {
    org.rocksdb.HistogramData h = statistics.getHistogramData(org.rocksdb.HistogramType.WAL_FILE_SYNC_MICROS);
    return new double[] {h.getCount(), h.getPercentile99(), h.getMax()};
  }

  @Override
  public void startWriterThread() {}

  @Override
  public boolean hasThreadStalls() {
    return false;
  }

  @Override
  public void readThreadStalls(long[] out) {
    throw new UnsupportedOperationException("RocksJava has no per-thread stall counters");
  }

  @Override
  public String stallSource() {
    return "RocksJava has no ThreadLocalInfo: stall time from Statistics STALL_MICROS, stall "
        + "counts from rocksdb.cf-write-stall-stats (write-stall conditions, not stalled writes)";
  }

  @Override
  public void close() {
    try {
      db.closeE();
    } catch (org.rocksdb.RocksDBException e) {
      throw new IllegalStateException("closing the database failed: " + e.getMessage(), e);
    }
    options.close();
    flushOptions.close();
    if (rateLimiter != null) {
      rateLimiter.close();
    }
    bloom.close();
    cache.close();
    statistics.close();
  }
}
