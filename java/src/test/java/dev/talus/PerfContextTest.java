package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The perf context from Java: each getter moves when its event happens and stays zero when it
 * does not, contexts are per thread, levels gate counts, times and mutex times, a stalled writer
 * sees its stall. Perf calls act on the calling thread: JUnit runs these tests one after the other
 * on one thread, and each test leaves it at DISABLE.
 */
class PerfContextTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("perf");
  }

  @AfterEach
  void tearDown() throws Exception {
    TalusDB.enableThreadLocalPerformanceInfo(false);
    PerfContext.setPerLevelEnabled(false);
    TestDirs.delete(dir);
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] key(int i) {
    return b(String.format("key%06d", i));
  }

  private Options options() {
    return new Options()
        .setCreateIfMissing(true)
        .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10)));
  }

  /** Keys 0, 2, 4, ... in one table file; the database is reopened, so nothing is cached. */
  private TalusDB tableDb(int n) throws Exception {
    try (TalusDB db = TalusDB.open(options(), dir.toString())) {
      for (int i = 0; i < n; i += 2) {
        db.put(key(i), new byte[100]);
      }
      db.flush(new FlushOptions());
    }
    return TalusDB.open(options(), dir.toString());
  }

  @Test
  void levelsRoundTripPerThreadAndUnsetLevelsAreRejected() throws Exception {
    try (TalusDB db = TalusDB.open(options(), dir.toString())) {
      for (PerfLevel l : new PerfLevel[] {PerfLevel.DISABLE, PerfLevel.ENABLE_COUNT,
          PerfLevel.ENABLE_WAIT, PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX,
          PerfLevel.ENABLE_TIME_AND_CPU_TIME_EXCEPT_FOR_MUTEX, PerfLevel.ENABLE_TIME}) {
        db.setPerfLevel(l);
        assertEquals(l, db.getPerfLevel());
      }
      assertThrows(IllegalArgumentException.class,
          () -> db.setPerfLevel(PerfLevel.UNINITIALIZED));
      @SuppressWarnings("deprecation")
      PerfLevel oob = PerfLevel.OUT_OF_BOUNDS;
      assertThrows(IllegalArgumentException.class, () -> db.setPerfLevel(oob));
      assertThrows(NullPointerException.class, () -> db.setPerfLevel(null));
      assertEquals(PerfLevel.ENABLE_TIME, db.getPerfLevel(), "a rejected level changes nothing");
      AtomicReference<PerfLevel> other = new AtomicReference<>();
      Thread t = new Thread(() -> other.set(db.getPerfLevel()));
      t.start();
      t.join();
      assertEquals(PerfLevel.DISABLE, other.get(), "a new thread records nothing");
      // RocksJava's byte values, and Talus's ENABLE_WAIT.
      assertEquals(3, PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX.getValue());
      assertEquals(5, PerfLevel.ENABLE_TIME.getValue());
      assertEquals(7, PerfLevel.ENABLE_WAIT.getValue());
      assertEquals(PerfLevel.ENABLE_COUNT, PerfLevel.getPerfLevel((byte) 2));
      assertThrows(IllegalArgumentException.class, () -> PerfLevel.getPerfLevel((byte) 9));
      db.setPerfLevel(PerfLevel.DISABLE);
    }
    TalusDB closed = TalusDB.open(options(), dir.toString());
    closed.close();
    assertThrows(IllegalStateException.class, () -> closed.setPerfLevel(PerfLevel.DISABLE));
  }

  @Test
  void javaLayoutMatchesTheNativeOne() {
    List<String> want = new ArrayList<>();
    want.add("num_runs");
    want.addAll(List.of(PerfContext.FIELDS));
    for (int s = 0; s < PerfContext.LEVEL_SLOTS; s++) {
      for (String f : PerfContext.LEVEL_FIELDS) {
        want.add(f + "@level" + (s == PerfContext.LEVEL_SLOTS - 1 ? s + "+" : s));
      }
    }
    assertArrayEquals(want.toArray(new String[0]), PerfContext.nativeNames());
    assertEquals(PerfContext.LENGTH, want.size());
  }

  @Test
  void coldGetMissesAndReadsIndexAndFilterWarmGetHits() throws Exception {
    try (TalusDB db = tableDb(2000)) {
      db.setPerfLevel(PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX);
      PerfContext ctx = db.getPerfContext();
      ctx.reset();
      assertNotNull(db.get(key(500)));
      assertEquals(1, ctx.getBlockCacheMissCount(), ctx.toString());
      assertEquals(0, ctx.getBlockCacheHitCount());
      assertEquals(1, ctx.getIndexBlockReadCount());
      assertEquals(1, ctx.getFilterBlockReadCount());
      assertTrue(ctx.getBlockReadCount() >= 3);
      assertTrue(ctx.getBlockReadByte() > 0);
      assertTrue(ctx.getBlockReadTime() > 0);
      assertTrue(ctx.getBlockChecksumTime() > 0);
      assertTrue(ctx.getBlockDecompressTime() > 0);
      assertTrue(ctx.getFromOutputFilesTime() > 0);
      assertEquals(1, ctx.getBloomSstHitCount());
      assertEquals(100, ctx.getReadBytes());
      assertTrue(ctx.getUserKeyComparisonCount() > 0);
      assertTrue(ctx.getEnvNewRandomAccessFileNanos() > 0);
      assertEquals(1, ctx.getNumRuns());
      assertEquals(0, ctx.getWriteWalTime());

      ctx.reset();
      db.get(key(500));
      assertEquals(1, ctx.getBlockCacheHitCount(), ctx.toString());
      assertEquals(0, ctx.getBlockCacheMissCount());
      assertEquals(0, ctx.getBlockReadCount());
      assertEquals(0, ctx.getIndexBlockReadCount());
      assertEquals(0, ctx.getBlockReadTime());
      // A snapshot: later operations show after refresh() (or a new getPerfContext()).
      db.get(key(502));
      assertEquals(1, ctx.getBlockCacheHitCount());
      assertEquals(2, ctx.refresh().getBlockCacheHitCount());
      assertEquals(2, db.getPerfContext().getBlockCacheHitCount());
      String line = ctx.toString();
      assertTrue(line.startsWith("user_key_comparison_count = "), line);
      assertTrue(line.contains("block_cache_hit_count = 2"), line);
      assertTrue(!line.contains(" = 0,"), line);
      assertTrue(ctx.toString(false).contains("block_cache_miss_count = 0"));
      Map<String, Long> m = ctx.toMap();
      assertEquals(2L, m.get("block_cache_hit_count"));
      assertEquals(PerfContext.LENGTH, m.size());
    }
  }

  @Test
  void cachedIndexAndFilterBlocksCountTheirHits() throws Exception {
    try (TalusDB db0 = TalusDB.open(options(), dir.toString())) {
      for (int i = 0; i < 200; i++) {
        db0.put(key(i), new byte[100]);
      }
      db0.flush(new FlushOptions());
    }
    Options o = new Options().setTableFormatConfig(new BlockBasedTableConfig()
        .setFilterPolicy(new BloomFilter(10)).setCacheIndexAndFilterBlocks(true));
    try (TalusDB db = TalusDB.open(o, dir.toString())) {
      db.get(key(1));
      db.setPerfLevel(PerfLevel.ENABLE_COUNT);
      PerfContext ctx = db.getPerfContext();
      ctx.reset();
      db.get(key(1));
      assertEquals(1, ctx.getBlockCacheIndexHitCount(), ctx.toString());
      assertEquals(1, ctx.getBlockCacheFilterHitCount());
      assertEquals(3, ctx.getBlockCacheHitCount());
      assertEquals(0, ctx.getBlockCacheMissCount());
    }
  }

  @Test
  void memtableHitSpendsNothingInTableFiles() throws Exception {
    try (TalusDB db = tableDb(200)) {
      db.put(b("fresh"), b("x"));
      db.setPerfLevel(PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX);
      PerfContext ctx = db.getPerfContext();
      ctx.reset();
      db.get(b("fresh"));
      assertEquals(1, ctx.getFromMemtableCount());
      assertTrue(ctx.getFromMemtableTime() > 0);
      assertTrue(ctx.getSnapshotTime() > 0);
      assertTrue(ctx.getPostProcessTime() > 0);
      assertEquals(0, ctx.getFromOutputFilesTime(), ctx.toString());
      assertEquals(0, ctx.getBlockCacheHitCount() + ctx.getBlockCacheMissCount());
      assertEquals(0, ctx.getBloomMemtableHitCount() + ctx.getBloomMemtableMissCount());
    }
  }

  @Test
  void levelsGateCountsTimesAndMutexTimes() throws Exception {
    try (TalusDB db = tableDb(200)) {
      PerfContext ctx = db.getPerfContext();
      db.setPerfLevel(PerfLevel.ENABLE_COUNT);
      ctx.reset();
      db.get(key(2));
      db.put(b("k"), b("v"));
      assertTrue(ctx.getBlockCacheMissCount() > 0);
      assertEquals(0, ctx.getFromOutputFilesTime());
      assertEquals(0, ctx.getWriteWalTime());
      assertEquals(0, ctx.getWriteMemtableTime());

      db.setPerfLevel(PerfLevel.ENABLE_WAIT);
      ctx.reset();
      db.put(b("k"), b("v"));
      assertTrue(ctx.getWriteMemtableTime() > 0, ctx.toString());
      assertEquals(0, ctx.getWriteWalTime());

      db.setPerfLevel(PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX);
      ctx.reset();
      db.get(key(4));
      db.put(b("k"), b("v"));
      assertTrue(ctx.getFromOutputFilesTime() > 0);
      assertTrue(ctx.getWriteWalTime() > 0);
      assertTrue(ctx.getWritePreAndPostProcessTime() > 0);

      db.setPerfLevel(PerfLevel.DISABLE);
      ctx.reset();
      db.get(key(6));
      db.put(b("k"), b("v"));
      assertTrue(ctx.toMap().values().stream().allMatch(v -> v == 0), ctx.toString(true));
    }
    // The DB mutex is timed only at ENABLE_TIME: switching memtables takes it.
    Path d2 = TestDirs.fresh("perf-mutex");
    try (TalusDB db = TalusDB.open(new Options().setCreateIfMissing(true)
        .setWriteBufferSize(64 << 10).setMaxWriteBufferNumber(4), d2.toString())) {
      PerfContext ctx = db.getPerfContext();
      db.setPerfLevel(PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX);
      ctx.reset();
      for (int i = 0; i < 2000; i++) {
        db.put(key(i), new byte[100]);
      }
      assertTrue(ctx.getWriteSchedulingFlushesCompactionsTime() > 0, ctx.toString());
      assertEquals(0, ctx.getDbMutexLockNanos());
      db.setPerfLevel(PerfLevel.ENABLE_TIME);
      ctx.reset();
      for (int i = 2000; i < 4000; i++) {
        db.put(key(i), new byte[100]);
      }
      assertTrue(ctx.getDbMutexLockNanos() > 0, ctx.toString());
      db.setPerfLevel(PerfLevel.DISABLE);
    } finally {
      TestDirs.delete(d2);
    }
  }

  @Test
  void contextsArePerThread() throws Exception {
    try (TalusDB db = tableDb(200)) {
      db.setPerfLevel(PerfLevel.ENABLE_TIME);
      db.getPerfContext().reset();
      db.get(key(2));
      assertTrue(db.getPerfContext().getBlockCacheMissCount() > 0);
      AtomicReference<PerfContext> seen = new AtomicReference<>();
      AtomicReference<PerfContext> afterOwnGet = new AtomicReference<>();
      Thread t = new Thread(() -> {
        seen.set(db.getPerfContext().refresh());
        try {
          db.get(key(4)); // at this thread's level, DISABLE: nothing recorded
        } catch (TalusException e) {
          throw new RuntimeException(e);
        }
        afterOwnGet.set(db.getPerfContext().refresh());
      });
      t.start();
      t.join();
      assertTrue(seen.get().toMap().values().stream().allMatch(v -> v == 0), seen.toString());
      assertTrue(afterOwnGet.get().toMap().values().stream().allMatch(v -> v == 0));
      assertEquals(1, db.getPerfContext().getNumRuns());
    }
  }

  @Test
  void aStalledWriterSeesItsStallAndNoOtherThreadDoes() throws Exception {
    Options o = new Options().setCreateIfMissing(true)
        .setWriteBufferSize(64 << 10).setMaxWriteBufferNumber(2);
    try (TalusDB db = TalusDB.open(o, dir.toString())) {
      db.pauseBackgroundWork();
      AtomicReference<ThreadLocalInfo> writerInfo = new AtomicReference<>();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch started = new CountDownLatch(1);
      Thread writer = new Thread(() -> {
        try {
          TalusDB.enableThreadLocalPerformanceInfo(true);
          TalusDB.getThreadLocalInfo().reset();
          started.countDown();
          // Several memtables' worth: with background work paused, the writer waits.
          for (int i = 0; i < 2000; i++) {
            db.put(key(i), new byte[100]);
          }
          writerInfo.set(TalusDB.getThreadLocalInfo());
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      writer.start();
      started.await();
      Thread.sleep(200);
      db.setPerfLevel(PerfLevel.ENABLE_TIME);
      db.getPerfContext().reset();
      db.continueBackgroundWork();
      writer.join();
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      ThreadLocalInfo info = writerInfo.get();
      assertTrue(info.writeStallCount() >= 1, info.toString());
      assertTrue(info.writeStallMicros() >= 100_000, info.toString());
      assertEquals(info.writeStallMicros(), info.writeStallMemtableLimitMicros());
      assertTrue(info.writeDelayTime() >= 100_000_000L, info.toString());
      assertEquals(0, info.writeStallL0StopMicros());
      assertEquals(2000, info.numRuns());
      PerfContext mine = db.getPerfContext();
      assertEquals(0, mine.getWriteStallCount(), mine.toString());
      assertEquals(0, mine.getWriteDelayTime());
      assertTrue(mine.toMap().values().stream().allMatch(v -> v == 0), mine.toString());
    }
  }

  @Test
  void threadLocalInfoReadsAsSeed003Does() throws Exception {
    try (TalusDB db = tableDb(200)) {
      TalusDB.enableThreadLocalPerformanceInfo(true);
      assertEquals(PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX, db.getPerfLevel());
      TalusDB.getThreadLocalInfo().reset();
      int n = 0;
      try (TalusIterator it = db.newIterator()) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          n++;
        }
      }
      assertEquals(100, n);
      ThreadLocalInfo info = TalusDB.getThreadLocalInfo();
      assertEquals(100 * (9 + 100), info.iterBytesRead(), info.toString());
      assertEquals(info.iterBytesRead(), info.iterReadBytes());
      assertTrue(info.numRuns() >= 102, "creation, seek, 100 moves: " + info.numRuns());
      assertEquals(0, info.writeStallCount());
      assertEquals(0, info.writeStallMicros());
      assertEquals(1, info.iterSeekCount());
      assertTrue(info.internalKeySkippedCount() >= 99, info.toString());
      assertTrue(info.toString().contains("iter_read_bytes = 10900"), info.toString());
      info.reset();
      assertEquals(0, info.iterBytesRead());
      assertEquals(0, TalusDB.getThreadLocalInfo().numRuns());
      TalusDB.enableThreadLocalPerformanceInfo(false);
      assertEquals(PerfLevel.DISABLE, db.getPerfLevel());
    }
  }

  @Test
  void lastOperationExplainsOneCallWithoutAReset() throws Exception {
    try (TalusDB db = tableDb(200)) {
      db.setPerfLevel(PerfLevel.ENABLE_TIME_EXCEPT_FOR_MUTEX);
      db.setLastOperationPerfContextEnabled(true);
      db.put(b("zz"), b("1"));
      PerfContext put = db.getLastOperationPerfContext();
      assertTrue(put.getWriteWalTime() > 0, put.toString());
      assertTrue(put.getWriteMemtableTime() > 0);
      assertEquals(0, put.getSnapshotTime());
      db.get(key(2));
      PerfContext get = db.getLastOperationPerfContext();
      assertTrue(get.getSnapshotTime() > 0, get.toString());
      assertEquals(0, get.getWriteWalTime(), "the put is not part of it");
      assertTrue(db.getPerfContext().getWriteWalTime() >= put.getWriteWalTime());
    }
  }

  @Test
  void perLevelBreakdownAndAggregateAcrossThreads() throws Exception {
    try (TalusDB db = tableDb(200)) {
      db.get(key(0)); // open the table
      PerfContext.resetAggregate();
      int threads = 8;
      List<Thread> ts = new ArrayList<>();
      long[] perThread = new long[threads];
      for (int i = 0; i < threads; i++) {
        final int id = i;
        Thread t = new Thread(() -> {
          db.setPerfLevel(PerfLevel.ENABLE_COUNT);
          PerfContext.setPerLevelEnabled(true);
          try {
            for (int k = 0; k <= id; k++) {
              db.get(key(2 * k));
            }
          } catch (TalusException e) {
            throw new RuntimeException(e);
          }
          PerfContext c = db.getPerfContext();
          perThread[id] = c.getNumRuns();
          if (id % 2 == 1) {
            PerfContext.foldIntoAggregate(); // live threads fold explicitly
          }
        });
        ts.add(t);
        t.start();
      }
      for (Thread t : ts) {
        t.join();
      }
      long want = 0;
      for (int i = 0; i < threads; i++) {
        assertEquals(i + 1, perThread[i]);
        want += i + 1;
      }
      // Threads that ended fold from their thread-local destructor, which may run just after
      // join() returns.
      long deadline = System.nanoTime() + 10_000_000_000L;
      PerfContext agg = PerfContext.aggregate();
      while (agg.getNumRuns() < want && System.nanoTime() < deadline) {
        Thread.sleep(10);
        agg.refresh();
      }
      assertEquals(want, agg.getNumRuns(), agg.toString());
      assertEquals(want, agg.getBlockCacheHitCount() + agg.getBlockCacheMissCount()
          - agg.getBlockCacheIndexHitCount() - agg.getBlockCacheFilterHitCount());
      int level = 0;
      assertEquals(want, agg.getUserKeyReturnCount(level), agg.toString());
      assertEquals(want, agg.getBloomFilterFullPositive(level));
      assertEquals(0, agg.getBloomFilterUseful(level));
      assertEquals(0, agg.getUserKeyReturnCount(1));
      PerfContext.resetAggregate();
      assertEquals(0, PerfContext.aggregate().getNumRuns());
    }
  }
}
