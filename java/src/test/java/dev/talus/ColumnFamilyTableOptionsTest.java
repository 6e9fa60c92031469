package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Table options per column family, as RocksDB's table factory per family: each family's block
 * size, filter and index/filter caching, and its block cache (its own, or one shared by the
 * families naming the same {@link Cache}), at open, at {@code createColumnFamily} and across a
 * reopen with other table options; the block-cache properties answer per family.
 */
class ColumnFamilyTableOptionsTest {
  private static final long MIB = 1L << 20;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static DBOptions dbOptions() {
    return new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setStatsDumpPeriodSec(0);
  }

  /** The commonest RocksJava shape: a tuned default family, the others left at defaults. */
  private static ColumnFamilyOptions tunedDefault(Cache cache) {
    return new ColumnFamilyOptions().setTableFormatConfig(new BlockBasedTableConfig()
        .setFilterPolicy(new BloomFilter(10))
        .setBlockCache(cache)
        .setBlockSize(16 * 1024)
        .setCacheIndexAndFilterBlocks(true));
  }

  private static void fillAndFlush(TalusDB db, ColumnFamilyHandle h, String tag, int n)
      throws TalusException {
    for (int i = 0; i < n; i++) {
      db.put(h, b(String.format("%s-%06d", tag, i)), b("value-" + tag + "-" + i + "-"
          + "x".repeat(80)));
    }
    try (FlushOptions fo = new FlushOptions()) {
      db.flush(fo, h);
    }
  }

  private static void readAll(TalusDB db, ColumnFamilyHandle h, String tag, int n)
      throws TalusException {
    for (int i = 0; i < n; i++) {
      assertArrayEquals(b("value-" + tag + "-" + i + "-" + "x".repeat(80)),
          db.get(h, b(String.format("%s-%06d", tag, i))), tag + " key " + i);
    }
  }

  private static long usage(TalusDB db, ColumnFamilyHandle h) throws TalusException {
    return db.getLongProperty(h, "rocksdb.block-cache-usage");
  }

  private static long capacity(TalusDB db, ColumnFamilyHandle h) throws TalusException {
    return db.getLongProperty(h, "rocksdb.block-cache-capacity");
  }

  @Test
  void regressionFamilyWithDefaultTableConfigWasRefused() throws Exception {
    Path dir = TestDirs.fresh("cf-table-default");
    try (LRUCache cache = new LRUCache(16 * MIB)) {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (TalusDB db = TalusDB.open(dbOptions(), dir.toString(),
          List.of(new ColumnFamilyDescriptor(TalusDB.DEFAULT_COLUMN_FAMILY, tunedDefault(cache)),
              new ColumnFamilyDescriptor(b("plain"), new ColumnFamilyOptions())),
          hs)) {
        ColumnFamilyHandle d = hs.get(0);
        ColumnFamilyHandle plain = hs.get(1);
        // Each family's cache: the default family's the LRUCache it names, the other one of
        // its own, of the default size (8 MiB), as RocksDB.
        assertEquals(16 * MIB, capacity(db, d));
        assertEquals(16 * MIB, db.getLongProperty("rocksdb.block-cache-capacity"));
        assertEquals(8 * MIB, capacity(db, plain));
        fillAndFlush(db, d, "d", 2000);
        fillAndFlush(db, plain, "p", 2000);
        long plainBefore = usage(db, plain);
        readAll(db, d, "d", 2000);
        assertEquals(plainBefore, usage(db, plain), "the default family's reads stay in its cache");
        assertTrue(usage(db, d) > 0);
        long defaultBefore = usage(db, d);
        readAll(db, plain, "p", 2000);
        assertTrue(usage(db, plain) > plainBefore + 100_000,
            plainBefore + " -> " + usage(db, plain));
        assertEquals(defaultBefore, usage(db, d));
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void familiesNamingOneCacheShareIt() throws Exception {
    Path dir = TestDirs.fresh("cf-table-shared");
    try (LRUCache shared = new LRUCache(4 * MIB)) {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      ColumnFamilyOptions withShared = new ColumnFamilyOptions()
          .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(shared));
      ColumnFamilyOptions own = new ColumnFamilyOptions()
          .setTableFormatConfig(new BlockBasedTableConfig().setBlockCacheSize(2 * MIB));
      try (TalusDB db = TalusDB.open(dbOptions(), dir.toString(),
          List.of(new ColumnFamilyDescriptor(TalusDB.DEFAULT_COLUMN_FAMILY, withShared),
              new ColumnFamilyDescriptor(b("a"), withShared),
              new ColumnFamilyDescriptor(b("b"), own)),
          hs)) {
        ColumnFamilyHandle d = hs.get(0);
        ColumnFamilyHandle a = hs.get(1);
        ColumnFamilyHandle bh = hs.get(2);
        assertEquals(4 * MIB, capacity(db, d));
        assertEquals(4 * MIB, capacity(db, a));
        assertEquals(2 * MIB, capacity(db, bh));
        fillAndFlush(db, a, "a", 2000);
        fillAndFlush(db, bh, "b", 2000);
        long bBefore = usage(db, bh);
        readAll(db, a, "a", 2000);
        assertTrue(usage(db, a) > 100_000, "a's reads filled the shared cache");
        assertEquals(usage(db, a), usage(db, d), "one cache: both families report it");
        assertEquals(bBefore, usage(db, bh));
        // A created family naming the same cache shares it too.
        ColumnFamilyHandle late = db.createColumnFamily(new ColumnFamilyDescriptor(b("late"),
            new ColumnFamilyOptions()
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(shared))));
        assertEquals(4 * MIB, capacity(db, late));
        long sharedBefore = usage(db, d);
        fillAndFlush(db, late, "late", 2000);
        readAll(db, late, "late", 2000);
        assertEquals(usage(db, late), usage(db, d));
        assertTrue(usage(db, d) > sharedBefore);
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void createColumnFamilyTakesItsOwnTableConfig() throws Exception {
    Path dir = TestDirs.fresh("cf-table-create");
    try (LRUCache cache = new LRUCache(16 * MIB); LRUCache small = new LRUCache(3 * MIB)) {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (TalusDB db = TalusDB.open(dbOptions(), dir.toString(),
          List.of(new ColumnFamilyDescriptor(TalusDB.DEFAULT_COLUMN_FAMILY, tunedDefault(cache))),
          hs)) {
        ColumnFamilyHandle plain = db.createColumnFamily(new ColumnFamilyDescriptor(b("plain")));
        ColumnFamilyHandle tuned = db.createColumnFamily(new ColumnFamilyDescriptor(b("tuned"),
            new ColumnFamilyOptions().setTableFormatConfig(new BlockBasedTableConfig()
                .setBlockSize(1024).setBlockRestartInterval(4)
                .setFilterPolicy(new BloomFilter(6)).setWholeKeyFiltering(true)
                .setBlockCache(small))));
        ColumnFamilyHandle none = db.createColumnFamily(new ColumnFamilyDescriptor(b("none"),
            new ColumnFamilyOptions().setTableFormatConfig(new BlockBasedTableConfig()
                .setNoBlockCache(true))));
        assertEquals(16 * MIB, capacity(db, hs.get(0)));
        assertEquals(8 * MIB, capacity(db, plain));
        assertEquals(3 * MIB, capacity(db, tuned));
        assertEquals(0, capacity(db, none));
        for (ColumnFamilyHandle h : List.of(plain, tuned, none)) {
          String tag = new String(h.getName(), StandardCharsets.UTF_8);
          fillAndFlush(db, h, tag, 1500);
          readAll(db, h, tag, 1500);
          assertTrue(db.get(h, b(tag + "-absent")) == null);
        }
        assertTrue(usage(db, tuned) > 0);
        assertEquals(0, usage(db, none));
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void reopenWithChangedTableConfigReadsEveryFamily() throws Exception {
    Path dir = TestDirs.fresh("cf-table-reopen");
    try (LRUCache cache = new LRUCache(16 * MIB)) {
      List<String> names = List.of("default", "a", "b");
      ColumnFamilyOptions[] first = {
        tunedDefault(cache),
        new ColumnFamilyOptions(),
        new ColumnFamilyOptions().setTableFormatConfig(new BlockBasedTableConfig()
            .setBlockSize(512).setFilterPolicy(new BloomFilter(12)))
      };
      ColumnFamilyOptions[] second = {
        new ColumnFamilyOptions(),
        new ColumnFamilyOptions().setTableFormatConfig(new BlockBasedTableConfig()
            .setBlockSize(64 * 1024).setFilterPolicy(new BloomFilter(4))
            .setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true)),
        tunedDefault(cache)
      };
      for (int round = 0; round < 3; round++) {
        ColumnFamilyOptions[] opts = round % 2 == 0 ? first : second;
        List<ColumnFamilyDescriptor> ds = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
          ds.add(new ColumnFamilyDescriptor(b(names.get(i)), opts[i]));
        }
        List<ColumnFamilyHandle> hs = new ArrayList<>();
        try (TalusDB db = TalusDB.open(dbOptions(), dir.toString(), ds, hs)) {
          for (int i = 0; i < names.size(); i++) {
            ColumnFamilyHandle h = hs.get(i);
            // Tables written under every earlier round's options read back.
            for (int r = 0; r < round; r++) {
              readAll(db, h, names.get(i) + r, 800);
            }
            fillAndFlush(db, h, names.get(i) + round, 800);
            db.compactRange(h);
            readAll(db, h, names.get(i) + round, 800);
          }
          long want = opts == first ? 16 * MIB : 8 * MIB;
          assertEquals(want, capacity(db, hs.get(0)), "round " + round);
          assertEquals(opts == first ? 16 * MIB : 8 * MIB,
              db.getLongProperty("rocksdb.block-cache-capacity"));
          assertEquals(opts == first ? 8 * MIB : 16 * MIB, capacity(db, hs.get(2)));
        }
      }
    } finally {
      TestDirs.delete(dir);
    }
  }
}
