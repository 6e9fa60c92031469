package dev.talus;

import static dev.talus.Lsm.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Universal and FIFO compaction through the Java API: a random-operation model test under
 * universal compaction with each codec, FIFO dropping the oldest data, the options crossing to the
 * engine (RocksJava defaults, copies), style changes on an existing database, and {@link
 * CompactRangeOptions}.
 */
class CompactionStyleTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("compaction-style");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static byte[] value(Random rnd, int i) {
    StringBuilder v = new StringBuilder("v" + i + "-" + rnd.nextInt(1000) + ":");
    int n = rnd.nextInt(300);
    while (v.length() < n) {
      v.append("jumps over the lazy dog ");
    }
    return b(v.toString());
  }

  private static void checkAll(TalusDB db, TreeMap<String, byte[]> model, String what)
      throws Exception {
    for (Map.Entry<String, byte[]> e : model.entrySet()) {
      assertArrayEquals(e.getValue(), db.get(b(e.getKey())), what + ": " + e.getKey());
    }
    try (TalusIterator it = db.newIterator()) {
      it.seekToFirst();
      for (Map.Entry<String, byte[]> e : model.entrySet()) {
        assertTrue(it.isValid(), what + ": scan ended before " + e.getKey());
        assertEquals(e.getKey(), Lsm.s(it.key()), what);
        it.next();
      }
      assertFalse(it.isValid(), what + ": scan has extra keys");
    }
  }

  private static Options universal(CompressionType codec) {
    try (CompactionOptionsUniversal u =
        new CompactionOptionsUniversal().setSizeRatio(10).setAllowTrivialMove(true)) {
      return Lsm.smallOptions()
          .setCompactionStyle(CompactionStyle.UNIVERSAL)
          .setCompactionOptionsUniversal(u)
          .setCompressionType(codec);
    }
  }

  @Test
  void universalModelTestWithEachCodec() throws Exception {
    long seed = 0;
    for (CompressionType codec :
        new CompressionType[] {
          CompressionType.NO_COMPRESSION,
          CompressionType.LZ4_COMPRESSION,
          CompressionType.SNAPPY_COMPRESSION,
          CompressionType.ZSTD_COMPRESSION
        }) {
      TestDirs.delete(dir);
      dir = TestDirs.fresh("compaction-style");
      Random rnd = new Random(++seed);
      TreeMap<String, byte[]> model = new TreeMap<>();
      try (Options o = universal(codec)) {
        TalusDB db = TalusDB.open(o, dir.toString());
        try {
          for (int round = 0; round < 6; round++) {
            for (int op = 0; op < 3000; op++) {
              int k = rnd.nextInt(5000);
              String key = String.format("key%05d", k);
              if (rnd.nextInt(10) < 8) {
                byte[] v = value(rnd, k);
                db.put(b(key), v);
                model.put(key, v);
              } else {
                db.delete(b(key));
                model.remove(key);
              }
            }
            switch (round % 3) {
              case 0 -> db.flush(new FlushOptions().setWaitForFlush(true));
              case 1 -> db.compactRange();
              default -> {
                db.close();
                db = TalusDB.open(o, dir.toString());
              }
            }
            checkAll(db, model, codec + " round " + round);
          }
          // Universal compactRange leaves one sorted run at the last level.
          db.compactRange();
          assertEquals("0", db.getProperty("rocksdb.num-files-at-level0"));
          assertFalse("0".equals(db.getProperty("rocksdb.num-files-at-level6")));
          checkAll(db, model, codec + " after a full compaction");
        } finally {
          db.close();
        }
      }
    }
  }

  @Test
  void fifoDropsTheOldestTablesAndKeepsTheNewest() throws Exception {
    try (CompactionOptionsFIFO fifo =
            new CompactionOptionsFIFO().setMaxTableFilesSize(256 << 10);
        Options o =
            Lsm.smallOptions()
                .setCompactionStyle(CompactionStyle.FIFO)
                .setCompactionOptionsFIFO(fifo)
                .setCompressionType(CompressionType.NO_COMPRESSION);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      byte[] v = new byte[200];
      for (int round = 0; round < 12; round++) {
        for (int i = 0; i < 250; i++) {
          db.put(b(String.format("r%02d-%04d", round, i)), v);
        }
        db.flush(new FlushOptions().setWaitForFlush(true));
        db.waitForCompactions();
      }
      assertNull(db.get(b("r00-0000")), "the oldest are dropped");
      assertArrayEquals(v, db.get(b("r11-0249")), "the newest stay");
      assertTrue(db.getLongProperty("rocksdb.total-sst-files-size") <= 256 << 10);
      assertEquals("0", db.getProperty("rocksdb.num-files-at-level1"));
    }
  }

  @Test
  void optionsHaveRocksJavaDefaultsAndAreCopied() {
    try (CompactionOptionsUniversal u = new CompactionOptionsUniversal();
        CompactionOptionsFIFO f = new CompactionOptionsFIFO();
        Options o = new Options()) {
      assertEquals(1, u.sizeRatio());
      assertEquals(2, u.minMergeWidth());
      assertEquals(-1, u.maxMergeWidth());
      assertEquals(200, u.maxSizeAmplificationPercent());
      assertEquals(-1, u.compressionSizePercent());
      assertEquals(CompactionStopStyle.CompactionStopStyleTotalSize, u.stopStyle());
      assertFalse(u.allowTrivialMove());
      assertEquals(1L << 30, f.maxTableFilesSize());
      assertFalse(f.allowCompaction());
      assertEquals(0, o.ttl());
      o.setCompactionOptionsUniversal(u.setSizeRatio(7));
      u.setSizeRatio(9);
      assertEquals(7, o.compactionOptionsUniversal().sizeRatio(), "copied when set");
      o.setCompactionOptionsFIFO(f.setAllowCompaction(true));
      assertTrue(o.compactionOptionsFIFO().allowCompaction());
      try (ColumnFamilyOptions cf = new ColumnFamilyOptions(o)) {
        assertEquals(7, cf.compactionOptionsUniversal().sizeRatio());
        cf.setTtl(5).setCompactionStyle(CompactionStyle.FIFO);
        assertEquals(5, cf.ttl());
        assertEquals(CompactionStyle.FIFO, cf.compactionStyle());
      }
      o.optimizeUniversalStyleCompaction();
      assertEquals(CompactionStyle.UNIVERSAL, o.compactionStyle());
      assertEquals(80, o.compactionOptionsUniversal().compressionSizePercent());
      u.close();
      assertThrows(IllegalStateException.class, () -> o.setCompactionOptionsUniversal(u));
      assertThrows(IllegalStateException.class, u::sizeRatio);
    }
  }

  @Test
  void ttlWithLevelCompactionIsRefusedAtOpen() throws Exception {
    try (Options o = Lsm.smallOptions().setTtl(60)) {
      TalusException e =
          assertThrows(TalusException.class, () -> TalusDB.open(o, dir.toString()));
      assertEquals(Status.Code.NotSupported, e.getStatus().getCode());
      assertTrue(e.getMessage().contains("ttl"), e.getMessage());
    }
  }

  @Test
  void styleChangesRocksDbAllowsWorkAndFifoOverLevelsIsRefused() throws Exception {
    try (Options level = Lsm.smallOptions();
        Options uni = universal(CompressionType.LZ4_COMPRESSION);
        Options fifo = Lsm.smallOptions().setCompactionStyle(CompactionStyle.FIFO)) {
      try (TalusDB db = TalusDB.open(level, dir.toString())) {
        for (int i = 0; i < 5000; i++) {
          db.put(b(String.format("k%05d", i)), b("level" + i));
        }
        db.compactRange();
      }
      try (TalusDB db = TalusDB.open(uni, dir.toString())) {
        assertArrayEquals(b("level42"), db.get(b("k00042")));
        db.put(b("k00042"), b("universal"));
        db.compactRange();
      }
      try (TalusDB db = TalusDB.open(level, dir.toString())) {
        assertArrayEquals(b("universal"), db.get(b("k00042")));
      }
      TalusException e =
          assertThrows(TalusException.class, () -> TalusDB.open(fifo, dir.toString()));
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
      assertTrue(e.getMessage().contains("FIFO"), e.getMessage());
    }
  }

  @Test
  void compactRangeOptionsMoveDataAndForceTheBottommostLevel() throws Exception {
    try (Options o = Lsm.smallOptions().setDisableAutoCompactions(true);
        TalusDB db = TalusDB.open(o, dir.toString());
        ColumnFamilyHandle cf = db.getDefaultColumnFamily()) {
      for (int i = 0; i < 3000; i++) {
        db.put(b(String.format("k%05d", i)), b("v" + i));
      }
      try (CompactRangeOptions cro =
          new CompactRangeOptions().setChangeLevel(true).setTargetLevel(3)) {
        db.compactRange(cf, null, null, cro);
      }
      assertFalse("0".equals(db.getProperty("rocksdb.num-files-at-level3")));
      assertEquals("0", db.getProperty("rocksdb.num-files-at-level0"));
      assertEquals("0", db.getProperty("rocksdb.num-files-at-level6"));
      try (CompactRangeOptions cro =
          new CompactRangeOptions()
              .setBottommostLevelCompaction(
                  CompactRangeOptions.BottommostLevelCompaction.kForceOptimized)
              .setExclusiveManualCompaction(false)
              .setMaxSubcompactions(4)
              .setAllowWriteStall(true)) {
        db.compactRange(null, null, cro);
      }
      assertArrayEquals(b("v2999"), db.get(b("k02999")));
      try (CompactRangeOptions cro = new CompactRangeOptions().setChangeLevel(true)) {
        // Levels between L3 and L7 would not exist: target 9 is past numLevels.
        cro.setTargetLevel(9);
        TalusException e =
            assertThrows(TalusException.class, () -> db.compactRange(cf, null, null, cro));
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
      }
    }
    try (CompactRangeOptions cro = new CompactRangeOptions()) {
      assertTrue(cro.exclusiveManualCompaction());
      assertEquals(-1, cro.targetLevel());
      assertEquals(
          CompactRangeOptions.BottommostLevelCompaction.kIfHaveCompactionFilter,
          cro.bottommostLevelCompaction());
      UnsupportedOperationException e =
          assertThrows(UnsupportedOperationException.class, () -> cro.setTargetPathId(1));
      assertTrue(e.getMessage().contains("setTargetPathId"), e.getMessage());
      assertThrows(UnsupportedOperationException.class, () -> cro.setCanceled(true));
      assertThrows(IllegalArgumentException.class, () -> cro.setTargetLevel(-2));
      assertEquals(
          CompactRangeOptions.BottommostLevelCompaction.kForce,
          CompactRangeOptions.BottommostLevelCompaction.fromRocksId(2));
    }
  }
}
