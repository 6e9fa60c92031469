package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * About 1 GB through small write buffers: 5M entries of random 48-byte keys and 160-byte values,
 * written by a few threads in batches, must spread over at least three levels below L0 and all
 * read back. Keys and values are regenerated from per-thread seeded PRNGs instead of being kept.
 * Values are random, so compression is off (LZ4 would only spend CPU). Prints its timings.
 */
class LargeDatasetTest {
  private static final int THREADS = 3;
  private static final int PER_THREAD = 1_700_000;
  private static final int KEY_LEN = 48;
  private static final int VALUE_LEN = 160;
  private static final int BATCH = 1000;
  private static final long SEED = 0x7a1a5L;

  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("large");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  /** The entries of writer {@code t}, in order: key then value from one stream. */
  private static final class Entries {
    private final SplittableRandom rnd;
    final byte[] key = new byte[KEY_LEN];
    final byte[] value = new byte[VALUE_LEN];

    Entries(int t) {
      rnd = new SplittableRandom(SEED + t);
    }

    void next() {
      fill(key);
      fill(value);
    }

    private void fill(byte[] b) {
      for (int i = 0; i < b.length; i += 8) {
        long x = rnd.nextLong();
        for (int j = 0; j < 8 && i + j < b.length; j++) {
          b[i + j] = (byte) (x >>> (8 * j));
        }
      }
    }
  }

  private static Options options() {
    return new Options()
        .setCreateIfMissing(true)
        .setWriteBufferSize(8L << 20)
        .setTargetFileSizeBase(8L << 20)
        .setMaxBytesForLevelBase(32L << 20)
        .setMaxBackgroundJobs(2)
        .setCompressionType(CompressionType.NO_COMPRESSION)
        .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10)));
  }

  private static <T> void all(List<Future<T>> futures) throws Exception {
    for (Future<T> f : futures) {
      f.get();
    }
  }

  @Test
  void aGigabyteSpreadsOverSeveralLevelsAndEveryKeyReadsBack() throws Exception {
    long total = (long) THREADS * PER_THREAD;
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (Options o = options(); TalusDB db = TalusDB.open(o, dir.toString())) {
      long t0 = System.nanoTime();
      List<Future<Void>> writers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        final int thread = t;
        writers.add(pool.submit(() -> {
          Entries e = new Entries(thread);
          try (WriteOptions wo = new WriteOptions(); WriteBatch batch = new WriteBatch(1 << 20)) {
            for (int i = 0; i < PER_THREAD; i++) {
              e.next();
              batch.put(e.key, e.value);
              if (batch.count() == BATCH || i == PER_THREAD - 1) {
                db.write(wo, batch);
                batch.clear();
              }
            }
          }
          return null;
        }));
      }
      all(writers);
      long t1 = System.nanoTime();
      try (FlushOptions fo = new FlushOptions()) {
        db.flush(fo);
      }
      db.waitForCompactions();
      long t2 = System.nanoTime();

      long[] files = new long[db.numberLevels()];
      int deep = 0;
      for (int level = 0; level < files.length; level++) {
        files[level] = Lsm.files(db, level);
        if (level > 0 && files[level] > 0) {
          deep++;
        }
      }
      long sst = db.getLongProperty("rocksdb.total-sst-files-size");
      System.out.printf("LargeDatasetTest: %d entries (%d MB of keys and values) written by %d"
          + " threads in %.1f s; flush and compactions finished %.1f s later; files per level %s;"
          + " %d MB of tables%n", total, total * (KEY_LEN + VALUE_LEN) >> 20, THREADS,
          (t1 - t0) / 1e9, (t2 - t1) / 1e9, Arrays.toString(files), sst >> 20);
      assertTrue(deep >= 3, "at least three levels below L0 hold files: "
          + Arrays.toString(files) + "\n" + db.getProperty("rocksdb.levelstats"));
      assertTrue(sst >= total * (KEY_LEN + VALUE_LEN), "tables hold every byte: " + sst);
      // Every key was written once, so the estimate is exact.
      assertEquals(total, db.getLongProperty("rocksdb.estimate-num-keys"));

      List<Future<Long>> readers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        final int thread = t;
        readers.add(pool.submit(() -> {
          Entries e = new Entries(thread);
          byte[] got = new byte[VALUE_LEN + 1];
          long found = 0;
          for (int i = 0; i < PER_THREAD; i++) {
            e.next();
            int n = db.get(e.key, got);
            if (n != VALUE_LEN || !Arrays.equals(e.value, 0, VALUE_LEN, got, 0, VALUE_LEN)) {
              fail("writer " + thread + " entry " + i + ": got length " + n
                  + (n == TalusDB.NOT_FOUND ? " (not found)" : " or a different value"));
            }
            found++;
          }
          return found;
        }));
      }
      long found = 0;
      for (Future<Long> f : readers) {
        found += f.get();
      }
      long t3 = System.nanoTime();
      assertEquals(total, found);
      System.out.printf("LargeDatasetTest: read back all %d keys with %d threads in %.1f s;"
          + " total %.1f s%n", found, THREADS, (t3 - t2) / 1e9, (t3 - t0) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }
}
