package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The names seed 003's importer writes are aliases of RocksJava's, and both spellings set the
 * same option (compared through the option string handed to the engine at open).
 */
class SeedNamesTest {

  @Test
  void optionAliasesSetTheSameOption() {
    assertEquals(new Options().setLevel0SlowdownWritesTrigger(7).toNativeString(),
        new Options().setLevel0FileNumSlowdownTrigger(7).toNativeString());
    assertEquals(new Options().setSoftPendingCompactionBytesLimit(1L << 30).toNativeString(),
        new Options().setLevel0FileNumSoftPendingCompactionBytesLimit(1L << 30)
            .toNativeString());
    assertEquals(new Options().optimizeLevelStyleCompaction().toNativeString(),
        new Options().setOptimizeLevelStyle(Options.OptimizeLevelStyle.OPTIMIZE_LEVEL_STYLE)
            .toNativeString());
    BlockBasedTableConfig t = new BlockBasedTableConfig().setBlockSize(8192);
    assertSame(t, new Options().setBlockBasedTableFactory(t).tableFormatConfig());
    assertEquals(new Options().setTableFormatConfig(t).toNativeString(),
        new Options().setBlockBasedTableFactory(t).toNativeString());
    assertFalse(new BlockBasedTableConfig().setUseBloomFilterWithWholeKey(false)
        .wholeKeyFiltering());
    assertEquals(
        new Options().setTableFormatConfig(new BlockBasedTableConfig().setWholeKeyFiltering(false))
            .toNativeString(),
        new Options().setTableFormatConfig(
            new BlockBasedTableConfig().setUseBloomFilterWithWholeKey(false)).toNativeString());
    assertSame(RateLimiterMode.WRITES_ONLY, RateLimiter.RateLimiterMode.kWritesOnly);
  }

  @Test
  void cacheIsAnLruCacheAndBothPropertyFormsAgree() throws Exception {
    Path dir = TestDirs.fresh("seed-names");
    try (Cache cache = new Cache(512L << 20);
        LRUCache lru = new LRUCache(512L << 20);
        Options o = new Options().setCreateIfMissing(true)
            .setBlockBasedTableFactory(new BlockBasedTableConfig().setBlockCache(cache));
        TalusDB db = TalusDB.open(o, dir.toString())) {
      assertEquals(lru.getCapacity(), cache.getCapacity());
      assertEquals(String.valueOf(512L << 20), db.getProperty("rocksdb.block-cache-capacity"));
      db.put("k".getBytes(), "v".getBytes());
      db.flush(new FlushOptions().setWaitForFlush(true));
      ColumnFamilyHandle defaultCF = db.getDefaultColumnFamily();
      assertEquals(db.getProperty(defaultCF, "rocksdb.num-files-at-level0"),
          db.getProperty("rocksdb.num-files-at-level0", defaultCF));
      assertEquals("1", db.getProperty("rocksdb.num-files-at-level0", defaultCF));
    } finally {
      TestDirs.delete(dir);
    }
  }
}
