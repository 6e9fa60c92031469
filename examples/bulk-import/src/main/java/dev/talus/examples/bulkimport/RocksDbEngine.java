package dev.talus.examples.bulkimport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompactionOptionsFIFO;
import org.rocksdb.CompactionStyle;
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
  /** Column families the rows are spread over; 1: the default family only, as before. */
  private final int families;
  /** The families' handles, {@link Engine#familyName} order; empty with one family. */
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;

  // setMaxBackgroundCompactions/Flushes are deprecated in RocksJava but still honoured by RocksDB
  // 11 (DBImpl::GetBGJobLimits: either set overrides the max_background_jobs split); the importer
  // sets them, and so does Talus.
  @SuppressWarnings("deprecation")
  RocksDbEngine(EngineSettings s, int families) throws Exception {
    this.families = families;
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
        .setMaxSubcompactions(EngineSettings.maxSubcompactions)
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
    switch (s.compactionStyle()) {
      case level -> options.setCompactionStyle(CompactionStyle.LEVEL);
      case universal -> options.setCompactionStyle(CompactionStyle.UNIVERSAL);
      case fifo -> {
        // No size limit: the import keeps (and verifies) every row.
        try (CompactionOptionsFIFO fifo = new CompactionOptionsFIFO().setMaxTableFilesSize(-1L)) {
          options.setCompactionStyle(CompactionStyle.FIFO).setCompactionOptionsFIFO(fifo);
        }
      }
    }
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
    if (families == 1) {
      dbOptions = null;
      cfOptions = null;
      db = RocksDB.open(options, s.path());
    } else {
      // The same options, split as RocksJava splits them; every family gets the family half.
      dbOptions = new DBOptions(options).setCreateMissingColumnFamilies(true);
      cfOptions = new ColumnFamilyOptions(options);
      List<ColumnFamilyDescriptor> ds = new ArrayList<>();
      for (int i = 0; i < families; i++) {
        ds.add(new ColumnFamilyDescriptor(
            Engine.familyName(i).getBytes(StandardCharsets.UTF_8), cfOptions));
      }
      db = RocksDB.open(dbOptions, s.path(), ds, handles);
    }
  }

  @Override
  public String describe() {
    return "rocksdb " + RocksDB.rocksdbVersion() + " (RocksJava rocksdbjni)";
  }

  @Override
  public int families() {
    return families;
  }

  private ColumnFamilyHandle handle(byte[] key) {
    return handles.get(Engine.familyOf(key, families));
  }

  @Override
  public void put(byte[] key, byte[] value) throws Exception {
    if (families == 1) {
      db.put(key, value);
    } else {
      db.put(handle(key), key, value);
    }
  }

  @Override
  public byte[] get(byte[] key) throws Exception {
    return families == 1 ? db.get(key) : db.get(handle(key), key);
  }

  @Override
  public int getDirect(ByteBuffer key, ByteBuffer value) throws Exception {
    if (families == 1) {
      return db.get(readOptions, key, value);
    }
    byte[] k = new byte[key.remaining()];
    key.duplicate().get(k);
    return db.get(handle(k), readOptions, key, value);
  }

  @Override
  public List<byte[]> multiGetAsList(List<byte[]> keys) throws Exception {
    if (families == 1) {
      return db.multiGetAsList(keys);
    }
    List<ColumnFamilyHandle> hs = new ArrayList<>(keys.size());
    for (byte[] k : keys) {
      hs.add(handle(k));
    }
    return db.multiGetAsList(hs, keys);
  }

  @Override
  public Cursor newCursor() {
    if (families != 1) {
      throw new UnsupportedOperationException("cursors read one family: use one column family");
    }
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
        if (families == 1) {
          batch.put(keys[i], values[i]);
        } else {
          batch.put(handle(keys[i]), keys[i], values[i]);
        }
      }
      db.write(disableWal ? noWalOptions : writeOptions, batch);
    }
  }

  @Override
  public long ingestSorted(SortedRows rows, String file) throws Exception {
    try (org.rocksdb.EnvOptions env = new org.rocksdb.EnvOptions();
        org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(env, options);
        org.rocksdb.IngestExternalFileOptions io =
            new org.rocksdb.IngestExternalFileOptions().setMoveFiles(true)) {
      w.open(file);
      byte[] key = new byte[rows.keySize()];
      byte[] value = new byte[rows.valueSize()];
      for (int i = 0, n = rows.count(); i < n; i++) {
        rows.row(i, key, value);
        w.put(key, value);
      }
      w.finish();
      long size = java.nio.file.Files.size(java.nio.file.Path.of(file));
      db.ingestExternalFile(List.of(file), io);
      return size;
    }
  }

  @Override
  public void compactRange() throws Exception {
    if (families == 1) {
      db.compactRange();
    } else {
      for (ColumnFamilyHandle h : handles) {
        db.compactRange(h);
      }
    }
  }

  @Override
  public void flush() throws Exception {
    if (families == 1) {
      db.flush(flushOptions);
    } else {
      db.flush(flushOptions, handles);
    }
  }

  @Override
  public String property(String name) throws Exception {
    if (families == 1) {
      return db.getProperty(name);
    }
    if (name.startsWith("rocksdb.num-files-at-level")) {
      return Long.toString(longProperty(name));
    }
    if (name.equals("rocksdb.stats") || name.equals("rocksdb.cf-write-stall-stats")) {
      StringBuilder sb = new StringBuilder();
      for (ColumnFamilyHandle h : handles) {
        sb.append(db.getProperty(h, name));
      }
      return sb.toString();
    }
    return db.getProperty(name);
  }

  @Override
  public long longProperty(String name) throws Exception {
    if (families == 1 || !Engine.perFamily(name)) {
      return db.getLongProperty(name);
    }
    // num-files-at-level<N> is a string property in RocksDB (getLongProperty: NotFound).
    boolean files = name.startsWith("rocksdb.num-files-at-level");
    long v = 0;
    for (ColumnFamilyHandle h : handles) {
      long f = files ? Long.parseLong(db.getProperty(h, name).trim())
          : db.getLongProperty(h, name);
      v = files ? Math.max(v, f) : v + f;
    }
    return v;
  }

  @Override
  public long ticker(Ticker ticker) {
    if (ticker == Ticker.WRITE_ADMISSION_ENGAGEMENTS || ticker == Ticker.WRITE_ADMISSION_WAITS) {
      return -1; // RocksDB has no write admission
    }
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
    for (ColumnFamilyHandle h : handles) {
      h.close();
    }
    try {
      db.closeE();
    } catch (org.rocksdb.RocksDBException e) {
      throw new IllegalStateException("closing the database failed: " + e.getMessage(), e);
    }
    options.close();
    if (dbOptions != null) {
      dbOptions.close();
      cfOptions.close();
    }
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
