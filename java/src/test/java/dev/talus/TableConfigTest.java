package dev.talus;

import static dev.talus.Lsm.b;
import static dev.talus.Lsm.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** BlockBasedTableConfig: Bloom filters and a block cache shared by two databases. */
class TableConfigTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("table");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static void fill(TalusDB db, String tag, int n) throws TalusException {
    for (int i = 0; i < n; i++) {
      db.put(b(key(i)), Lsm.value(tag, i, 100));
    }
    try (FlushOptions fo = new FlushOptions()) {
      db.flush(fo);
    }
    db.waitForCompactions();
  }

  private static long usage(TalusDB db) throws TalusException {
    return db.getLongProperty("rocksdb.block-cache-usage");
  }

  @Test
  void aSharedCacheGrowsWithReadsOfEitherDatabase() throws Exception {
    try (LRUCache cache = new LRUCache(8 << 20);
        BloomFilter bloom = new BloomFilter(10)) {
      BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache)
          .setFilterPolicy(bloom).setBlockSize(1024);
      try (Options o1 = new Options().setCreateIfMissing(true).setTableFormatConfig(table);
          Options o2 = new Options(o1);
          TalusDB db1 = TalusDB.open(o1, dir.resolve("one").toString());
          TalusDB db2 = TalusDB.open(o2, dir.resolve("two").toString())) {
        fill(db1, "one", 5000);
        fill(db2, "two", 5000);
        assertEquals(8 << 20, db1.getLongProperty("rocksdb.block-cache-capacity"));
        assertEquals(8 << 20, cache.getCapacity());

        // Reads that do not fill the cache leave it alone.
        long before = cache.getUsage();
        assertEquals(before, usage(db1));
        assertEquals(before, usage(db2));
        try (ReadOptions noFill = new ReadOptions().setFillCache(false)) {
          for (int i = 0; i < 5000; i += 10) {
            assertArrayEquals(Lsm.value("one", i, 100), db1.get(noFill, b(key(i))));
          }
        }
        assertEquals(before, cache.getUsage(), "fillCache=false");

        for (int i = 0; i < 5000; i += 10) {
          assertArrayEquals(Lsm.value("one", i, 100), db1.get(b(key(i))));
        }
        long afterOne = usage(db1);
        assertTrue(afterOne > before + 100 * 1024, before + " -> " + afterOne);
        assertEquals(afterOne, usage(db2), "one cache, seen from both databases");
        assertEquals(afterOne, cache.getUsage());

        for (int i = 0; i < 5000; i += 10) {
          assertArrayEquals(Lsm.value("two", i, 100), db2.get(b(key(i))));
        }
        long afterTwo = usage(db2);
        assertTrue(afterTwo > afterOne + 100 * 1024, afterOne + " -> " + afterTwo);
        assertEquals(afterTwo, usage(db1));
        // Misses (the Bloom filter answers most without reading a block) find nothing.
        for (int i = 0; i < 5000; i += 10) {
          assertNull(db1.get(b(key(i) + "-absent")));
        }
      }
      // The databases are closed; the cache outlives them and still answers.
      assertTrue(cache.getUsage() >= 0);
    }
  }

  @Test
  void aBloomFilterIsWrittenIntoEveryTable() throws Exception {
    long[] sizes = new long[2];
    for (int withFilter = 0; withFilter < 2; withFilter++) {
      BlockBasedTableConfig table = new BlockBasedTableConfig();
      if (withFilter == 1) {
        table.setFilterPolicy(new BloomFilter(10));
      }
      try (Options o = new Options().setCreateIfMissing(true).setTableFormatConfig(table);
          TalusDB db = TalusDB.open(o, dir.resolve("f" + withFilter).toString())) {
        fill(db, "f", 20_000);
        sizes[withFilter] = db.getLongProperty("rocksdb.total-sst-files-size");
        for (int i = 0; i < 20_000; i += 7) {
          assertArrayEquals(Lsm.value("f", i, 100), db.get(b(key(i))), "no false negatives");
        }
      }
    }
    // 10 bits per key over 20 000 keys is about 25 KB of filter.
    long filterBytes = sizes[1] - sizes[0];
    assertTrue(filterBytes > 20_000 && filterBytes < 40_000,
        "filter bytes " + filterBytes + " (" + sizes[0] + " vs " + sizes[1] + ")");
  }

  @Test
  void noBlockCacheMeansNoCache() throws Exception {
    BlockBasedTableConfig table = new BlockBasedTableConfig().setNoBlockCache(true);
    try (Options o = new Options().setCreateIfMissing(true).setTableFormatConfig(table);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      fill(db, "n", 2000);
      for (int i = 0; i < 2000; i += 3) {
        assertArrayEquals(Lsm.value("n", i, 100), db.get(b(key(i))));
      }
      assertEquals(0, usage(db));
      assertEquals(0, db.getLongProperty("rocksdb.block-cache-capacity"));
    }
  }

  @Test
  void theDefaultCacheIsEightMegabytesPerDatabase() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      assertEquals(8 << 20, db.getLongProperty("rocksdb.block-cache-capacity"));
      fill(db, "d", 2000);
      long before = usage(db);
      for (int i = 0; i < 2000; i += 3) {
        db.get(b(key(i)));
      }
      assertTrue(usage(db) > before, "reads fill the default cache");
    }
  }
}
