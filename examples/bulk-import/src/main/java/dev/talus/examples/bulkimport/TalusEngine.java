package dev.talus.examples.bulkimport;

import dev.talus.BlockBasedTableConfig;
import java.nio.ByteBuffer;
import java.util.List;
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
import dev.talus.ReadOptions;
import dev.talus.Statistics;
import dev.talus.TalusDB;
import dev.talus.TalusIterator;
import dev.talus.ThreadLocalInfo;
import dev.talus.TickerType;
import dev.talus.WriteBatch;
import dev.talus.WriteOptions;

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
  private final ReadOptions readOptions = new ReadOptions();
  private final WriteOptions writeOptions = new WriteOptions();
  private final WriteOptions noWalOptions = new WriteOptions().setDisableWAL(true);
  private final TalusDB db;

  TalusEngine(EngineSettings s) throws Exception {
    statistics = s.statistics() ? new Statistics() : null;
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
        .setCompressionType(switch (s.compression()) {
          case lz4 -> CompressionType.LZ4_COMPRESSION;
          case snappy -> CompressionType.SNAPPY_COMPRESSION;
          case zstd -> CompressionType.ZSTD_COMPRESSION;
          case none -> CompressionType.NO_COMPRESSION;
        })
        .setWalBytesPerSync(s.walBytesPerSync())
        .setTableFormatConfig(new BlockBasedTableConfig()
            .setBlockCache(cache)
            .setFilterPolicy(new BloomFilter(s.bloomBitsPerKey(), false))
            .setWholeKeyFiltering(true)
            .setBlockSize(s.blockSize())
            .setCacheIndexAndFilterBlocks(s.cacheIndexAndFilterBlocks()));
    if (statistics != null) {
      options.setStatistics(statistics);
    }
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
    if (EngineSettings.prepareForBulkLoad) {
      options.prepareForBulkLoad();
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
  public int getDirect(ByteBuffer key, ByteBuffer value) throws Exception {
    return db.get(readOptions, key, value);
  }

  @Override
  public List<byte[]> multiGetAsList(List<byte[]> keys) throws Exception {
    return db.multiGetAsList(keys);
  }

  @Override
  public Cursor newCursor() {
    TalusIterator it = db.newIterator();
    return new Cursor() {
      @Override
      public void seekToFirst() {
        it.seekToFirst();
      }

      @Override
      public void seekToLast() {
        it.seekToLast();
      }

      @Override
      public void seek(byte[] target) {
        it.seek(target);
      }

      @Override
      public boolean isValid() {
        return it.isValid();
      }

      @Override
      public void next() {
        it.next();
      }

      @Override
      public void prev() {
        it.prev();
      }

      @Override
      public byte[] key() {
        return it.key();
      }

      @Override
      public byte[] value() {
        return it.value();
      }

      @Override
      public void status() throws Exception {
        it.status();
      }

      @Override
      public void close() {
        it.close();
      }
    };
  }

  @Override
  public void writeBatch(byte[][] keys, byte[][] values, int n, boolean disableWal)
      throws Exception {
    try (WriteBatch batch = new WriteBatch()) {
      for (int i = 0; i < n; i++) {
        batch.put(keys[i], values[i]);
      }
      db.write(disableWal ? noWalOptions : writeOptions, batch);
    }
  }

  @Override
  public long ingestSorted(byte[][] keys, byte[][] values, int n, String file) throws Exception {
    try (dev.talus.EnvOptions env = new dev.talus.EnvOptions();
        dev.talus.SstFileWriter w = new dev.talus.SstFileWriter(env, options);
        dev.talus.IngestExternalFileOptions io =
            new dev.talus.IngestExternalFileOptions().setMoveFiles(true)) {
      w.open(file);
      for (int i = 0; i < n; i++) {
        w.put(keys[i], values[i]);
      }
      w.finish();
      long size = java.nio.file.Files.size(java.nio.file.Path.of(file));
      db.ingestExternalFile(List.of(file), io);
      return size;
    }
  }

  @Override
  public void compactRange() throws Exception {
    db.compactRange();
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
    return statistics == null ? 0 : statistics.getTickerCount(TickerType.valueOf(ticker.name()));
  }

  @Override
  public double[] walSyncs() {
    if (statistics == null) {
      return new double[] {0, 0, 0};
    }
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
    readOptions.close();
    writeOptions.close();
    noWalOptions.close();
    if (rateLimiter != null) {
      rateLimiter.close();
    }
    cache.close();
    if (statistics != null) {
      statistics.close();
    }
  }
}
