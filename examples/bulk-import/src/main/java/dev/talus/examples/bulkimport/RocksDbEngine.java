package dev.talus.examples.bulkimport;

import java.nio.ByteBuffer;
import java.util.List;
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
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

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
  private final ReadOptions readOptions = new ReadOptions();
  private final WriteOptions writeOptions = new WriteOptions();
  private final WriteOptions noWalOptions = new WriteOptions().setDisableWAL(true);
  private final RocksDB db;

  // setMaxBackgroundCompactions/Flushes are deprecated in RocksJava but still honoured by RocksDB
  // 11 (DBImpl::GetBGJobLimits: either set overrides the max_background_jobs split); the importer
  // sets them, and so does Talus.
  @SuppressWarnings("deprecation")
  RocksDbEngine(EngineSettings s) throws Exception {
    RocksDB.loadLibrary();
    statistics = s.statistics() ? new Statistics() : null;
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
        .setCompressionType(switch (s.compression()) {
          case lz4 -> CompressionType.LZ4_COMPRESSION;
          case snappy -> CompressionType.SNAPPY_COMPRESSION;
          case zstd -> CompressionType.ZSTD_COMPRESSION;
          case none -> CompressionType.NO_COMPRESSION;
        })
        .setWalBytesPerSync(s.walBytesPerSync())
        .setEnableWriteThreadAdaptiveYield(s.rocksdbWriteThreadAdaptiveYield())
        .setTableFormatConfig(new BlockBasedTableConfig()
            .setBlockCache(cache)
            .setFilterPolicy(bloom)
            .setWholeKeyFiltering(true)
            .setBlockSize(s.blockSize())
            .setCacheIndexAndFilterBlocks(s.cacheIndexAndFilterBlocks()));
    if (statistics != null) {
      options.setStatistics(statistics);
    }
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
    if (EngineSettings.prepareForBulkLoad) {
      options.prepareForBulkLoad();
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
  public int getDirect(ByteBuffer key, ByteBuffer value) throws Exception {
    return db.get(readOptions, key, value);
  }

  @Override
  public List<byte[]> multiGetAsList(List<byte[]> keys) throws Exception {
    return db.multiGetAsList(keys);
  }

  @Override
  public Cursor newCursor() {
    RocksIterator it = db.newIterator();
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
    try (org.rocksdb.EnvOptions env = new org.rocksdb.EnvOptions();
        org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(env, options);
        org.rocksdb.IngestExternalFileOptions io =
            new org.rocksdb.IngestExternalFileOptions().setMoveFiles(true)) {
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
    readOptions.close();
    writeOptions.close();
    noWalOptions.close();
    if (rateLimiter != null) {
      rateLimiter.close();
    }
    bloom.close();
    cache.close();
    if (statistics != null) {
      statistics.close();
    }
  }
}
