package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Options and BlockBasedTableConfig: every setter's getter returns what was set (and the engine
 * accepts it), values RocksJava accepts are accepted (open corrects them as RocksDB does), unsafe
 * values throw IllegalArgumentException naming the option, and unsupported ones throw
 * UnsupportedOperationException.
 */
class OptionsTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("options");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  /** Setters this test covers, checked against the classes by reflection. */
  private static final Set<String> OPTIONS_SETTERS = Set.of("setCreateIfMissing",
      "setCreateMissingColumnFamilies", "setErrorIfExists", "setParanoidChecks", "setUseFsync", "setAllowFAllocate", "setWalDir",
      "setAllowIngestBehind",
      "setWalRecoveryMode", "setWalBytesPerSync", "setBytesPerSync", "setMaxBackgroundJobs",
      "setMaxBackgroundCompactions", "setMaxBackgroundFlushes", "setMaxOpenFiles", "setMaxSubcompactions",
      "setDelayedWriteRate", "setMaxTotalWalSize", "setManualFlushEnabled", "setMaxConcurrentWriters",
      "setWriteBufferSize",
      "setMaxWriteBufferNumber", "setMinWriteBufferNumberToMerge",
      "setLevel0FileNumCompactionTrigger", "setLevelZeroFileNumCompactionTrigger",
      "setLevel0SlowdownWritesTrigger", "setLevel0FileNumSlowdownTrigger",
      "setLevelZeroSlowdownWritesTrigger", "setLevel0StopWritesTrigger",
      "setLevelZeroStopWritesTrigger", "setSoftPendingCompactionBytesLimit",
      "setLevel0FileNumSoftPendingCompactionBytesLimit", "setHardPendingCompactionBytesLimit",
      "setNumLevels", "setMaxBytesForLevelBase", "setMaxBytesForLevelMultiplier",
      "setLevelCompactionDynamicLevelBytes", "setTargetFileSizeBase",
      "setTargetFileSizeMultiplier", "setCompactionPriority", "setCompactionStyle",
      "setCompactionOptionsUniversal", "setCompactionOptionsFIFO", "setTtl",
      "setDisableAutoCompactions", "setEnv", "setCompressionType", "setTableFormatConfig",
      "setCompressionOptions", "setCompressionPerLevel", "setBottommostCompressionType",
      "setBottommostCompressionOptions",
      "setBlockBasedTableFactory", "setOptimizeLevelStyle", "setRateLimiter", "setStatistics",
      "setLogger", "setInfoLogLevel", "setMaxLogFileSize", "setKeepLogFileNum",
      "setStatsDumpPeriodSec", "setMergeOperator", "setMergeOperatorName");

  private static final Set<String> TABLE_SETTERS = Set.of("setBlockCache", "setNoBlockCache",
      "setBlockCacheSize", "setBlockSize", "setBlockRestartInterval", "setBlockSizeDeviation",
      "setFilterPolicy",
      "setFilter", "setWholeKeyFiltering", "setUseBloomFilterWithWholeKey",
      "setCacheIndexAndFilterBlocks", "setPinL0FilterAndIndexBlocksInCache");

  private static Set<String> publicSetters(Class<?> c) {
    Set<String> names = new TreeSet<>();
    for (Method m : c.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers()) && m.getName().startsWith("set")) {
        names.add(m.getName());
      }
    }
    return names;
  }

  @Test
  void everySetterIsCoveredHere() {
    assertEquals(new TreeSet<>(OPTIONS_SETTERS), publicSetters(Options.class),
        "a setter was added to Options: add it to this test");
    assertEquals(new TreeSet<>(TABLE_SETTERS), publicSetters(BlockBasedTableConfig.class),
        "a setter was added to BlockBasedTableConfig: add it to this test");
  }

  @Test
  void defaultsAreRocksDbDefaults() {
    try (Options o = new Options()) {
      assertFalse(o.createIfMissing());
      assertTrue(o.paranoidChecks());
      assertEquals(64L << 20, o.writeBufferSize());
      assertEquals(2, o.maxWriteBufferNumber());
      assertEquals(4, o.level0FileNumCompactionTrigger());
      assertEquals(7, o.numLevels());
      assertEquals(256L << 20, o.maxBytesForLevelBase());
      assertEquals(10.0, o.maxBytesForLevelMultiplier());
      assertTrue(o.levelCompactionDynamicLevelBytes());
      assertEquals(CompactionPriority.MinOverlappingRatio, o.compactionPriority());
      assertEquals(CompressionType.LZ4_COMPRESSION, o.compressionType());
      assertEquals(CompactionStyle.LEVEL, o.compactionStyle());
      assertEquals(WALRecoveryMode.TolerateCorruptedTailRecords, o.walRecoveryMode());
      assertTrue(o.tableFormatConfig() instanceof BlockBasedTableConfig);
    }
    BlockBasedTableConfig t = new BlockBasedTableConfig();
    assertEquals(4096, t.blockSize());
    assertEquals(16, t.blockRestartInterval());
    assertEquals(10, t.blockSizeDeviation());
    assertNull(t.filterPolicy());
    assertTrue(t.wholeKeyFiltering());
    assertEquals(8L << 20, t.blockCacheSize());
  }

  @Test
  void everySetterRoundTripsAndTheEngineAcceptsIt() throws Exception {
    Path wal = dir.resolve("wal");
    try (Options o = new Options(); LRUCache cache = new LRUCache(1 << 20);
        BloomFilter bloom = new BloomFilter(7.5)) {
      assertSame(o, o.setCreateIfMissing(true));
      assertTrue(o.createIfMissing());
      o.setErrorIfExists(true);
      assertTrue(o.errorIfExists());
      assertSame(o, o.setEnv(Env.getDefault()));
      assertSame(Env.getDefault(), o.getEnv());
      o.setParanoidChecks(false);
      assertFalse(o.paranoidChecks());
      o.setUseFsync(true);
      assertTrue(o.useFsync());
      assertTrue(o.allowFAllocate(), "RocksDB's default");
      assertSame(o, o.setAllowFAllocate(false));
      assertFalse(o.allowFAllocate());
      o.setWalDir(wal.toString());
      assertEquals(wal.toString(), o.walDir());
      o.setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery);
      assertEquals(WALRecoveryMode.PointInTimeRecovery, o.walRecoveryMode());
      o.setWalBytesPerSync(1 << 20);
      assertEquals(1 << 20, o.walBytesPerSync());
      o.setBytesPerSync(2 << 20);
      assertEquals(2 << 20, o.bytesPerSync());
      o.setMaxBackgroundJobs(3);
      assertEquals(3, o.maxBackgroundJobs());
      o.setMaxBackgroundCompactions(2);
      assertEquals(2, o.maxBackgroundCompactions());
      o.setMaxBackgroundFlushes(1);
      assertEquals(1, o.maxBackgroundFlushes());
      o.setMaxOpenFiles(100);
      assertEquals(100, o.maxOpenFiles());
      o.setDelayedWriteRate(4 << 20);
      assertEquals(4 << 20, o.delayedWriteRate());
      o.setMaxTotalWalSize(128L << 20);
      assertEquals(128L << 20, o.maxTotalWalSize());
      o.setManualFlushEnabled(true);
      assertTrue(o.manualFlushEnabled());
      assertEquals(-1, o.maxConcurrentWriters(), "default: one per core");
      o.setMaxConcurrentWriters(0);
      assertEquals(0, o.maxConcurrentWriters());
      o.setMaxConcurrentWriters(3);
      assertEquals(3, o.maxConcurrentWriters());
      o.setWriteBufferSize(1 << 20);
      assertEquals(1 << 20, o.writeBufferSize());
      o.setMaxWriteBufferNumber(5);
      assertEquals(5, o.maxWriteBufferNumber());
      o.setMinWriteBufferNumberToMerge(2);
      assertEquals(2, o.minWriteBufferNumberToMerge());
      o.setLevel0FileNumCompactionTrigger(3);
      assertEquals(3, o.level0FileNumCompactionTrigger());
      o.setLevelZeroFileNumCompactionTrigger(5);
      assertEquals(5, o.levelZeroFileNumCompactionTrigger());
      assertEquals(5, o.level0FileNumCompactionTrigger());
      o.setLevel0SlowdownWritesTrigger(11);
      assertEquals(11, o.level0SlowdownWritesTrigger());
      o.setLevel0FileNumSlowdownTrigger(12);
      assertEquals(12, o.level0SlowdownWritesTrigger());
      o.setLevelZeroSlowdownWritesTrigger(13);
      assertEquals(13, o.levelZeroSlowdownWritesTrigger());
      o.setLevel0StopWritesTrigger(30);
      assertEquals(30, o.level0StopWritesTrigger());
      o.setLevelZeroStopWritesTrigger(31);
      assertEquals(31, o.levelZeroStopWritesTrigger());
      o.setSoftPendingCompactionBytesLimit(1L << 30);
      assertEquals(1L << 30, o.softPendingCompactionBytesLimit());
      o.setLevel0FileNumSoftPendingCompactionBytesLimit(2L << 30);
      assertEquals(2L << 30, o.softPendingCompactionBytesLimit());
      o.setHardPendingCompactionBytesLimit(8L << 30);
      assertEquals(8L << 30, o.hardPendingCompactionBytesLimit());
      o.setNumLevels(5);
      assertEquals(5, o.numLevels());
      o.setMaxBytesForLevelBase(32L << 20);
      assertEquals(32L << 20, o.maxBytesForLevelBase());
      o.setMaxBytesForLevelMultiplier(8.5);
      assertEquals(8.5, o.maxBytesForLevelMultiplier());
      o.setLevelCompactionDynamicLevelBytes(false);
      assertFalse(o.levelCompactionDynamicLevelBytes());
      o.setTargetFileSizeBase(8L << 20);
      assertEquals(8L << 20, o.targetFileSizeBase());
      o.setTargetFileSizeMultiplier(2);
      assertEquals(2, o.targetFileSizeMultiplier());
      o.setCompactionPriority(CompactionPriority.RoundRobin);
      assertEquals(CompactionPriority.RoundRobin, o.compactionPriority());
      o.setCompactionStyle(CompactionStyle.LEVEL);
      assertEquals(CompactionStyle.LEVEL, o.compactionStyle());
      o.setDisableAutoCompactions(true);
      assertTrue(o.disableAutoCompactions());
      o.setCompressionType(CompressionType.NO_COMPRESSION);
      assertEquals(CompressionType.NO_COMPRESSION, o.compressionType());
      o.setInfoLogLevel(InfoLogLevel.WARN_LEVEL);
      assertEquals(InfoLogLevel.WARN_LEVEL, o.infoLogLevel());
      o.setMaxLogFileSize(1 << 20);
      assertEquals(1 << 20, o.maxLogFileSize());
      o.setKeepLogFileNum(3);
      assertEquals(3, o.keepLogFileNum());
      o.setStatsDumpPeriodSec(0);
      assertEquals(0, o.statsDumpPeriodSec());
      assertSame(o, o.setMergeOperatorName("uint64add"));
      // setRateLimiter, setStatistics and setLogger are exercised with a running database in
      // StatisticsIntegrationTest and WriteStallGatesTest; setOptimizeLevelStyle in SeedNamesTest;
      // setMergeOperator and the other operator names in MergeTest.

      BlockBasedTableConfig t = new BlockBasedTableConfig();
      assertSame(t, t.setBlockCacheSize(2 << 20));
      assertEquals(2 << 20, t.blockCacheSize());
      t.setBlockSize(16 << 10);
      assertEquals(16 << 10, t.blockSize());
      t.setBlockRestartInterval(4);
      assertEquals(4, t.blockRestartInterval());
      t.setBlockSizeDeviation(0);
      assertEquals(0, t.blockSizeDeviation());
      t.setFilterPolicy(bloom);
      assertSame(bloom, t.filterPolicy());
      t.setFilter(new BloomFilter(9));
      assertEquals(new BloomFilter(9), t.filterPolicy());
      t.setFilter(bloom);
      t.setWholeKeyFiltering(false);
      assertFalse(t.wholeKeyFiltering());
      t.setUseBloomFilterWithWholeKey(true);
      assertTrue(t.wholeKeyFiltering());
      t.setCacheIndexAndFilterBlocks(true);
      assertTrue(t.cacheIndexAndFilterBlocks());
      t.setPinL0FilterAndIndexBlocksInCache(true);
      assertTrue(t.pinL0FilterAndIndexBlocksInCache());
      t.setNoBlockCache(true);
      assertTrue(t.noBlockCache());
      t.setNoBlockCache(false);
      t.setBlockCache(cache);
      assertSame(o, o.setTableFormatConfig(t));
      assertSame(t, o.tableFormatConfig());
      o.setBlockBasedTableFactory(t);
      assertSame(t, o.tableFormatConfig());

      // A copy has every value.
      try (Options c = new Options(o)) {
        assertEquals(wal.toString(), c.walDir());
        assertEquals(5, c.numLevels());
        assertEquals(8.5, c.maxBytesForLevelMultiplier());
        assertEquals(CompactionPriority.RoundRobin, c.compactionPriority());
        assertSame(t, c.tableFormatConfig());
      }

      // The engine accepts all of it and runs with it.
      try (TalusDB db = TalusDB.open(o, dir.resolve("db").toString())) {
        assertSame(o, db.getOptions());
        assertEquals(5, db.numberLevels());
        db.put(Lsm.b("k"), Lsm.b("v"));
        assertEquals("v", Lsm.s(db.get(Lsm.b("k"))));
        assertEquals(1 << 20, db.getLongProperty("rocksdb.block-cache-capacity"),
            "the shared cache, not blockCacheSize");
        db.getLongProperty("rocksdb.num-files-at-level4");
        assertThrows(TalusException.class,
            () -> db.getLongProperty("rocksdb.num-files-at-level5"), "5 levels only");
      }
      // errorIfExists now refuses the existing database.
      TalusException e = assertThrows(TalusException.class,
          () -> TalusDB.open(o, dir.resolve("db").toString()).close());
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
      assertTrue(wal.toFile().isDirectory(), "the WAL went to walDir");
    }
  }

  private static void assertNames(String option, Executable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call, option);
    assertTrue(e.getMessage() != null && e.getMessage().contains(option),
        option + ": " + e.getMessage());
  }

  /**
   * Every value RocksJava accepts is accepted by the setter and by open, which corrects what
   * RocksDB corrects and says so in the info log. Regression: setWriteBufferSize(64000) and
   * setMaxBytesForLevelMultiplier(1) threw, so a RocksJava program using them did not port.
   */
  @Test
  void valuesRocksJavaAcceptsAreAcceptedAndSanitizedAtOpen() throws Exception {
    Path db = dir.resolve("db");
    try (Options o = new Options().setCreateIfMissing(true)) {
      o.setWriteBufferSize(64_000).setMaxBytesForLevelMultiplier(1).setMaxWriteBufferNumber(0)
          .setMinWriteBufferNumberToMerge(-3).setLevel0FileNumCompactionTrigger(0)
          .setLevel0StopWritesTrigger(0).setNumLevels(0).setMaxOpenFiles(5)
          .setTargetFileSizeBase(0).setTargetFileSizeMultiplier(0).setMaxBytesForLevelBase(0)
          .setMaxBackgroundJobs(0).setMaxBackgroundCompactions(0).setMaxBackgroundFlushes(-7)
          .setWalBytesPerSync(-1).setBytesPerSync(-1).setDelayedWriteRate(-1)
          .setMaxTotalWalSize(-1).setSoftPendingCompactionBytesLimit(-1)
          .setHardPendingCompactionBytesLimit(-1).setMaxLogFileSize(-1).setKeepLogFileNum(-1)
          .setStatsDumpPeriodSec(-1);
      o.setTableFormatConfig(new BlockBasedTableConfig().setBlockRestartInterval(-2)
          .setBlockSizeDeviation(101).setBlockSize(0).setFilterPolicy(new BloomFilter(-1)));
      // The getters return what was set.
      assertEquals(64_000, o.writeBufferSize());
      assertEquals(1.0, o.maxBytesForLevelMultiplier());
      assertEquals(0, o.numLevels());
      assertEquals(-1, o.statsDumpPeriodSec());
      try (TalusDB d = TalusDB.open(o, db.toString())) {
        for (int i = 0; i < 2000; i++) {
          d.put(Lsm.b("key" + i), new byte[100]);
        }
        d.flush(new FlushOptions());
        d.compactRange();
        assertArrayEquals(new byte[100], d.get(Lsm.b("key1999")));
        assertEquals(2, d.numberLevels(), "open raised numLevels to 2, as RocksDB");
      }
      String log = Files.readString(db.resolve("LOG"));
      for (String note : new String[] {
          "write_buffer_size clamped from 64000 to 65536",
          "max_write_buffer_number raised from 0 to 2",
          "min_write_buffer_number_to_merge raised from -3 to 1",
          "level0_file_num_compaction_trigger raised from 0 to 1",
          "num_levels raised from 0 to 2",
          "max_open_files clamped from 5 to 20",
          "target_file_size_multiplier raised from 0 to 1",
          "table.block_restart_interval raised from 0 to 1",
          "table.block_size_deviation 101 taken as 0",
          "bloom filter bits per key -1 taken as no filter"}) {
        assertTrue(log.contains("Option sanitized: " + note), note + " not in the LOG:\n" + log);
      }
      assertTrue(log.contains("max_bytes_for_level_multiplier: 1"), log);
    }
    // A write buffer size above RocksDB's 64 GiB clamp is clamped, not refused.
    try (Options o = new Options().setCreateIfMissing(true).setAllowFAllocate(false)) {
      o.setWriteBufferSize((64L << 30) + 1);
      TalusDB.open(o, dir.resolve("big").toString()).close();
      assertTrue(Files.readString(dir.resolve("big").resolve("LOG"))
          .contains("write_buffer_size clamped from " + ((64L << 30) + 1) + " to " + (64L << 30)));
    }
  }

  /**
   * Only values no database can run with safely are refused, naming the option and its range:
   * by the setter (thread counts, levels, Talus-only options, cache sizes) or by open with
   * InvalidArgument where RocksDB refuses too.
   */
  @Test
  void unsafeValuesAreRefusedNamingTheOption() throws Exception {
    try (Options o = new Options()) {
      // All threads are started at open: Integer.MAX_VALUE of them exhausted the system.
      assertNames("maxBackgroundJobs", () -> o.setMaxBackgroundJobs(Integer.MAX_VALUE));
      assertNames("maxBackgroundJobs", () -> o.setMaxBackgroundJobs(1025));
      assertNames("maxBackgroundCompactions", () -> o.setMaxBackgroundCompactions(1025));
      assertNames("maxBackgroundFlushes", () -> o.setMaxBackgroundFlushes(Integer.MAX_VALUE));
      o.setMaxBackgroundJobs(1024).setMaxBackgroundCompactions(-1).setMaxBackgroundFlushes(1024);
      assertNames("numLevels", () -> o.setNumLevels(65));
      assertNames("maxConcurrentWriters", () -> o.setMaxConcurrentWriters(-2));
      assertNames("maxConcurrentWriters", () -> o.setMaxConcurrentWriters(1025));
      assertEquals(7, o.numLevels(), "nothing changed by the refused calls");
    }
    BlockBasedTableConfig t = new BlockBasedTableConfig();
    assertNames("blockCacheSize", () -> t.setBlockCacheSize(-1));
    assertNames("capacity", () -> new LRUCache(-1));
    assertNames("numShardBits", () -> new LRUCache(1 << 20, 20));
    assertNames("highPriPoolRatio", () -> new LRUCache(1 << 20, -1, false, 1.5));
    // Refused by open, as RocksDB refuses them, and nothing is created.
    String[][] atOpen = {{"keep_log_file_num", "keepLogFileNum"}, {"block_size", "blockSize"}};
    for (String[] c : atOpen) {
      try (Options o = new Options().setCreateIfMissing(true)) {
        if (c[1].equals("keepLogFileNum")) {
          o.setKeepLogFileNum(0);
        } else {
          o.setTableFormatConfig(new BlockBasedTableConfig().setBlockSize((1L << 30) + 1));
        }
        Path where = dir.resolve("refused-" + c[1]);
        TalusException e = assertThrows(TalusException.class,
            () -> TalusDB.open(o, where.toString()).close(), c[1]);
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.getMessage());
        assertTrue(e.getMessage().contains(c[0]), e.getMessage());
        assertFalse(Files.exists(where), "open created " + where);
      }
    }
  }

  @Test
  void nullsThrowNullPointerExceptionNamingTheOption() {
    try (Options o = new Options()) {
      assertEquals("walDir",
          assertThrows(NullPointerException.class, () -> o.setWalDir(null)).getMessage());
      assertEquals("walRecoveryMode",
          assertThrows(NullPointerException.class, () -> o.setWalRecoveryMode(null))
              .getMessage());
      assertEquals("compactionPriority",
          assertThrows(NullPointerException.class, () -> o.setCompactionPriority(null))
              .getMessage());
      assertEquals("compressionType",
          assertThrows(NullPointerException.class, () -> o.setCompressionType(null))
              .getMessage());
      assertEquals("tableFormatConfig",
          assertThrows(NullPointerException.class, () -> o.setTableFormatConfig(null))
              .getMessage());
    }
  }

  @Test
  void unsupportedValuesThrowUnsupportedOperationException() {
    try (Options o = new Options()) {
      // As RocksJava, every codec is accepted here; open refuses those Talus lacks
      // (CompressionTest.codecsTalusLacksFailAtOpenNamingThem).
      for (CompressionType c : CompressionType.values()) {
        o.setCompressionType(c);
        assertEquals(c, o.compressionType());
      }
      o.setCompressionType(CompressionType.LZ4_COMPRESSION);
      for (CompactionStyle s : CompactionStyle.values()) {
        if (s != CompactionStyle.NONE) {
          o.setCompactionStyle(s);
          assertEquals(s, o.compactionStyle());
        } else {
          UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
              () -> o.setCompactionStyle(s), s.toString());
          assertTrue(e.getMessage().contains("NONE"), e.getMessage());
        }
      }
      o.setCompactionStyle(CompactionStyle.LEVEL);
      assertEquals(CompressionType.LZ4_COMPRESSION, o.compressionType());
      assertEquals(CompactionStyle.LEVEL, o.compactionStyle());
    }
    assertThrows(UnsupportedOperationException.class, () -> new BloomFilter(10, true));
    new BloomFilter(10, false).close();
    assertThrows(UnsupportedOperationException.class,
        () -> new LRUCache(1 << 20, -1, false, 0.5, 0.1));
  }

  @Test
  void aClosedOptionsRejectsUse() {
    Options o = new Options();
    o.close();
    assertThrows(IllegalStateException.class, () -> o.setNumLevels(3));
    assertThrows(IllegalStateException.class, o::numLevels);
    assertThrows(IllegalStateException.class, () -> TalusDB.open(o, dir.toString()));
  }
}
