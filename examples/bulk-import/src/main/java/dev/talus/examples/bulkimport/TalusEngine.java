package dev.talus.examples.bulkimport;

import dev.talus.BlockBasedTableConfig;
import dev.talus.BloomFilter;
import dev.talus.CompressionType;
import dev.talus.Env;
import dev.talus.FlushOptions;
import dev.talus.LRUCache;
import dev.talus.Options;
import dev.talus.PerfLevel;
import dev.talus.Priority;
import dev.talus.RateLimiter;
import dev.talus.RateLimiterMode;
import dev.talus.Statistics;
import dev.talus.TalusDB;
import dev.talus.ThreadLocalInfo;
import dev.talus.TickerType;

/**
 * {@link Engine} on Talus. Writer threads run at {@link PerfLevel#ENABLE_COUNT} (RocksDB's
 * default level, which records write-stall counts and micros) and read their stalls from {@link
 * TalusDB#getThreadLocalInfo()}, one JNI call.
 */
final class TalusEngine implements Engine {
  private final Options options;
  private final Statistics statistics;
  private final LRUCache cache;
  private final RateLimiter rateLimiter;
  private final FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true);
  private final TalusDB db;

  TalusEngine(EngineSettings s) throws Exception {
    statistics = new Statistics();
    cache = new LRUCache(s.blockCacheBytes());
    options = new Options()
        .setCreateIfMissing(true)
        .setWriteBufferSize(s.writeBufferSize())
        .setMaxWriteBufferNumber(s.maxWriteBufferNumber())
        .setMinWriteBufferNumberToMerge(s.minWriteBufferNumberToMerge())
        .setManualFlushEnabled(true)
        .setMaxConcurrentWriters(s.talusMaxConcurrentWriters())
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
        .setStatistics(statistics)
        .setTableFormatConfig(new BlockBasedTableConfig()
            .setBlockCache(cache)
            .setFilterPolicy(new BloomFilter(s.bloomBitsPerKey(), false))
            .setWholeKeyFiltering(true));
    if (s.rateLimitBytesPerSecond() > 0) {
      // RocksJava's RateLimiter has no single-burst parameter, so neither engine sets one.
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
    db = TalusDB.open(options, s.path());
  }

  @Override
  public String describe() {
    String v = TalusDB.class.getPackage().getImplementationVersion();
    return "talus " + (v == null ? "(version unknown)" : v);
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
    dev.talus.HistogramData h = statistics.getHistogramData(dev.talus.HistogramType.WAL_FILE_SYNC_MICROS);
    return new double[] {h.getCount(), h.getPercentile99(), h.getMax()};
  }

  @Override
  public void startWriterThread() {
    db.setPerfLevel(PerfLevel.ENABLE_COUNT);
  }

  @Override
  public boolean hasThreadStalls() {
    return true;
  }

  @Override
  public void readThreadStalls(long[] out) {
    ThreadLocalInfo info = TalusDB.getThreadLocalInfo();
    out[STALL_COUNT] = info.writeStallCount();
    out[STALL_MICROS] = info.writeStallMicros();
    out[STALL_MEMTABLE_MICROS] = info.writeStallMemtableLimitMicros();
    out[STALL_L0_SLOWDOWN_MICROS] = info.writeStallL0SlowdownMicros();
    out[STALL_L0_STOP_MICROS] = info.writeStallL0StopMicros();
    out[STALL_PENDING_MICROS] = info.writeStallPendingCompactionBytesMicros();
  }

  @Override
  public String stallSource() {
    return "Talus ThreadLocalInfo of each writer thread (write_stall_count/micros by cause), "
        + "summed; stall time also from Statistics STALL_MICROS";
  }

  @Override
  public void close() {
    try {
      db.closeE();
    } catch (dev.talus.TalusException e) {
      throw new IllegalStateException("closing the database failed: " + e.getMessage(), e);
    }
    options.close();
    flushOptions.close();
    if (rateLimiter != null) {
      rateLimiter.close();
    }
    cache.close();
    statistics.close();
  }
}
