package dev.talus.examples.bulkimport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

// The seed's imports were org.rocksdb.*; the port changes them to dev.talus.* (allowed change 1).
import dev.talus.BlockBasedTableConfig;
import dev.talus.BloomFilter;
import dev.talus.Cache;
import dev.talus.ColumnFamilyHandle;
import dev.talus.FlushOptions;
import dev.talus.InfoLogLevel;
import dev.talus.Logger;
import dev.talus.Options;
import dev.talus.RateLimiter;
import dev.talus.TalusDB;
import dev.talus.TalusIterator;
import dev.talus.ThreadLocalInfo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The importer of seed 003 (section 3 of the postmortem), ported to Talus with only the allowed
 * changes, run at 600 000 rows, then every row is checked.
 *
 * <p>Allowed changes, and nothing else: imports {@code org.rocksdb} → {@code dev.talus}; {@code
 * RocksDB} → {@code TalusDB}; {@code RocksDBThreadLocalInfo} → {@code ThreadLocalInfo}; the seed's
 * type slip {@code List<ColumnFamilyMetaData> cf = db.getProperty(...)} → {@code String cf}. The
 * WAL directory {@code "/data/rocksdb/wal"} is a variable holding a temporary directory.
 *
 * <p>What the seed leaves out and this test supplies around its code, without touching it: the
 * user's {@code RocksDbLogger} (a {@link Logger} subclass), {@code setCreateIfMissing(true)} and
 * the {@code open} call, the {@code defaultCF} handle, the {@code source} of {@code Row}s, and
 * the two locals {@code key} and {@code value} the loop body names. 600 000 rows (about 125 MB)
 * instead of 200 million keep the flush rhythm of 500 000 rows, so the loop's flush, L0 check and
 * back-pressure branch runs once; a final explicit flush follows, as after any import.
 */
class SeedImporterTest {
  private static final int ROWS = 600_000;

  /** The user's own info-log sink the seed passes to {@code setLogger} (section 3.1). */
  static final class RocksDbLogger extends Logger {
    static final AtomicLong LINES = new AtomicLong();

    RocksDbLogger(InfoLogLevel level) {
      super(level);
    }

    @Override
    protected void log(InfoLogLevel level, String message) {
      LINES.incrementAndGet();
    }
  }

  /** One row of the import: a 48-byte key and a 160-byte value, as in the seed. */
  record Row(byte[] key, byte[] value) {}

  static byte[] keyOf(long i) {
    byte[] k = new byte[48];
    ByteBuffer b = ByteBuffer.wrap(k);
    b.put("feature:".getBytes(StandardCharsets.US_ASCII));
    b.putLong(Long.reverse(i) ^ 0x5DEECE66DL); // spread the keys over the key space
    b.putLong(i);
    while (b.hasRemaining()) {
      b.put((byte) ('a' + (i + b.position()) % 26));
    }
    return k;
  }

  static byte[] valueOf(long i) {
    byte[] v = new byte[160];
    ByteBuffer b = ByteBuffer.wrap(v);
    long x = i * 0x9E3779B97F4A7C15L;
    while (b.hasRemaining()) {
      x ^= x >>> 29;
      x *= 0xBF58476D1CE4E5B9L;
      b.putLong(x);
    }
    return v;
  }

  static Iterable<Row> rows(int n) {
    return () -> new Iterator<>() {
      private long next;

      @Override
      public boolean hasNext() {
        return next < n;
      }

      @Override
      public Row next() {
        if (next >= n) {
          throw new NoSuchElementException();
        }
        long i = next++;
        return new Row(keyOf(i), valueOf(i));
      }
    };
  }

  @Test
  void seedImporterRunsOnTalusAndEveryRowIsThere() throws Exception {
    Path dir = Files.createDirectories(TestDirs.root().resolve("seed-importer"));
    TestDirs.deleteTree(dir);
    String path = dir.resolve("db").toString();
    String walDir = dir.resolve("wal").toString();
    Iterable<Row> source = rows(ROWS);

    // ---- section 3.2, as written (the WAL directory through the variable walDir) ----
    Options options = new Options()
        // —— memtable 层 ——
        .setWriteBufferSize(128 * 1024 * 1024)          // 默认 64MB，调到 128MB
        .setMinWriteBufferNumberToMerge(2)              // 保持默认，别改 1
        .setMaxWriteBufferNumber(4)                     // 允许 4 个 immutable 排队 flush
        .setManualFlushEnabled(true)                    // 配合导入节奏手动 flush

        // —— L0 / compaction 层 ——
        .setLevel0FileNumCompactionTrigger(4)           // 默认 4，保持
        .setLevel0FileNumSlowdownTrigger(20)            // 默认 20，保持
        .setLevel0FileNumSoftPendingCompactionBytesLimit(1L << 30) // 1GB 软限
        .setMaxBackgroundCompactions(4)                 // 默认 1，关键改动
        .setMaxBackgroundFlushes(2)                     // 默认 1

        // —— rate limiter（关键！）——
        .setRateLimiter(new RateLimiter(
            150 * 1024 * 1024,                          // 150MB/s 上限
            10 * 1024 * 1024,                           // refill 周期 10s
            10,                                         // fairness
            RateLimiter.RateLimiterMode.kWritesOnly,
            false,                                      // 不自动调优
            10 * 1024 * 1024))                          // 单次 burst 上限 10MB

        // —— WAL ——
        .setWalBytesPerSync(4 * 1024 * 1024)            // 4MB 一次 fsync，而非每条
        .setWalDir(walDir)                              // WAL 和数据分盘

        // —— 读路径 ——
        .setBlockBasedTableFactory(new BlockBasedTableConfig()
            .setBlockCache(new Cache(512 * 1024 * 1024)) // 512MB block cache
            .setFilterPolicy(new BloomFilter(10, false)) // 10 bit/key
            .setUseBloomFilterWithWholeKey(true));

    // 导入完成后切换读优化
    options.setOptimizeLevelStyle(Options.OptimizeLevelStyle.OPTIMIZE_LEVEL_STYLE);

    // ---- section 3.1, as written (RocksDB → TalusDB) ----
    // 打开每次操作的耗时分解
    TalusDB.enableThreadLocalPerformanceInfo(true);
    // 打开 INFO 级日志，重点看 STALL 关键字
    options.setInfoLogLevel(InfoLogLevel.INFO_LEVEL);
    options.setLogger(new RocksDbLogger(InfoLogLevel.INFO_LEVEL));

    // Not in the seed: creating the database and naming the default column family.
    options.setCreateIfMissing(true);
    try (TalusDB db = TalusDB.open(options, path)) {
      ColumnFamilyHandle defaultCF = db.getDefaultColumnFamily();

      // ---- section 3.3, as written (List<ColumnFamilyMetaData> → String: the type slip) ----
      // 每 50 万行主动 flush 一次，避免 immutable 堆积
      long rowCounter = 0;
      for (Row row : source) {
        byte[] key = row.key();       // not in the seed: where key and value come from
        byte[] value = row.value();
        db.put(key, value);
        if (++rowCounter % 500_000 == 0) {
          db.flush(new FlushOptions().setWaitForFlush(true));
          // 观察 L0 文件数
          String cf = db.getProperty(
              "rocksdb.num-files-at-level0", defaultCF);
          if (Integer.parseInt(cf) >= 15) {
            Thread.sleep(50); // 软背压，给 compaction 让路
          }
        }
      }
      db.flush(new FlushOptions().setWaitForFlush(true)); // the import's final flush

      // ---- section 3.1, what the seed reads after a spike (RocksDBThreadLocalInfo → ThreadLocalInfo)
      ThreadLocalInfo info = TalusDB.getThreadLocalInfo();
      // 关键指标：
      System.out.println("write_stall_count=" + info.writeStallCount());
      System.out.println("write_stall_micros=" + info.writeStallMicros());
      System.out.println("num_runs=" + info.numRuns());
      System.out.println("iter_read_bytes=" + info.iterBytesRead());

      assertEquals(ROWS, rowCounter);
      assertTrue(info.numRuns() >= ROWS, "every put is an operation: " + info.numRuns());
      assertTrue(Integer.parseInt(db.getProperty("rocksdb.num-files-at-level0", defaultCF)) >= 1);
      assertTrue(RocksDbLogger.LINES.get() > 0, "the info log reaches the user's Logger");

      // The import's options reached the engine: the preset after the chain wins, as in RocksDB.
      assertEquals(128L << 20, options.writeBufferSize());
      assertEquals(6, options.maxWriteBufferNumber());
      assertEquals(2, options.level0FileNumCompactionTrigger());
      assertEquals(20, options.level0SlowdownWritesTrigger());
      assertEquals(1L << 30, options.softPendingCompactionBytesLimit());
      assertTrue(options.manualFlushEnabled());
      assertTrue(Files.list(dir.resolve("wal")).anyMatch(p -> p.toString().endsWith(".log")),
          "the WAL is in walDir");
      checkEveryRow(db);
    } finally {
      TalusDB.enableThreadLocalPerformanceInfo(false);
    }

    // Every row again after a reopen: the rows are in table files, not only in the WAL.
    try (Options reopen = new Options().setWalDir(walDir);
        TalusDB db = TalusDB.open(reopen, path)) {
      checkEveryRow(db);
    }
    options.close();
    TestDirs.deleteTree(dir);
  }

  private static void checkEveryRow(TalusDB db) throws Exception {
    long missing = 0;
    long wrong = 0;
    for (long i = 0; i < ROWS; i++) {
      byte[] v = db.get(keyOf(i));
      if (v == null) {
        missing++;
      } else if (!java.util.Arrays.equals(v, valueOf(i))) {
        wrong++;
      }
    }
    assertEquals(0, missing, "missing rows");
    assertEquals(0, wrong, "wrong rows");
    long count = 0;
    byte[] first = null;
    try (TalusIterator it = db.newIterator()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        if (first == null) {
          first = it.key();
        }
        count++;
      }
    }
    assertEquals(ROWS, count, "no row beyond the imported ones");
    assertNotNull(first);
    assertEquals(48, first.length);
    assertArrayEquals(valueOf(ByteBuffer.wrap(first, 16, 8).getLong()), db.get(first));
  }
}
