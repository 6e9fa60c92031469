package dev.talus;

import static dev.talus.Lsm.b;
import static dev.talus.Lsm.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * flush(FlushOptions) waiting and not waiting, flushWal, and compactRange (with the reads it
 * charges to a reads-only rate limiter).
 */
class FlushTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("flush");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static long sstFiles(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".sst")).count();
    }
  }

  @Test
  void flushWaitingMovesTheMemtableIntoAnL0Table() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true).setDisableAutoCompactions(true);
        TalusDB db = TalusDB.open(o, dir.toString());
        FlushOptions fo = new FlushOptions()) {
      assertTrue(fo.waitForFlush(), "waits by default");
      for (int i = 0; i < 1000; i++) {
        db.put(b(key(i)), Lsm.value("f", i, 100));
      }
      assertEquals(1000, db.getLongProperty("rocksdb.num-entries-active-mem-table"));
      assertEquals(0, Lsm.files(db, 0));
      db.flush(fo);
      // Flushed when flush returns: no waiting here.
      assertEquals(1, Lsm.files(db, 0));
      assertEquals(1, sstFiles(dir));
      assertEquals(0, db.getLongProperty("rocksdb.num-entries-active-mem-table"));
      assertEquals(0, db.getLongProperty("rocksdb.num-immutable-mem-table"));
      for (int i = 0; i < 1000; i += 37) {
        assertArrayEquals(Lsm.value("f", i, 100), db.get(b(key(i))));
      }
      // Flushing an empty memtable writes no table.
      db.flush(fo);
      assertEquals(1, Lsm.files(db, 0));
    }
  }

  @Test
  void flushNotWaitingReturnsBeforeTheTableIsWritten() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true).setDisableAutoCompactions(true);
        TalusDB db = TalusDB.open(o, dir.toString());
        FlushOptions noWait = new FlushOptions().setWaitForFlush(false)) {
      assertFalse(noWait.waitForFlush());
      for (int i = 0; i < 1000; i++) {
        db.put(b(key(i)), Lsm.value("f", i, 100));
      }
      // With background work paused, the flush can only be queued: if flush waited, this
      // call would never return.
      db.pauseBackgroundWork();
      db.flush(noWait);
      assertEquals(1, db.getLongProperty("rocksdb.num-immutable-mem-table"));
      assertEquals(0, Lsm.files(db, 0));
      assertArrayEquals(Lsm.value("f", 5, 100), db.get(b(key(5))), "readable while queued");
      // A waiting flush cannot finish while paused, and says so instead of hanging.
      try (FlushOptions wait = new FlushOptions()) {
        TalusException e = assertThrows(TalusException.class, () -> db.flush(wait));
        assertEquals(Status.Code.Incomplete, e.getStatus().getCode());
      }
      db.continueBackgroundWork();
      db.waitForCompactions();
      assertEquals(0, db.getLongProperty("rocksdb.num-immutable-mem-table"));
      assertTrue(Lsm.files(db, 0) >= 1);
      assertArrayEquals(Lsm.value("f", 5, 100), db.get(b(key(5))));
    }
  }

  @Test
  void flushWalMakesUnsyncedWritesSurviveTheProcessDying() throws Exception {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        FlushWalChild.class.getName(), dir.toString()).redirectErrorStream(true).start();
    StringBuilder out = new StringBuilder();
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        out.append(line).append('\n');
      }
    }
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child did not exit: " + out);
    assertEquals(FlushWalChild.EXIT_AFTER_FLUSH_WAL, p.exitValue(), out.toString());
    // The child never closed the database: everything comes back from the WAL.
    try (Options o = new Options(); TalusDB db = TalusDB.open(o, dir.toString())) {
      for (int i = 0; i < FlushWalChild.KEYS; i++) {
        assertArrayEquals(Lsm.value("wal", i, 64), db.get(b(key(i))), key(i));
      }
      assertNull(db.get(b(key(FlushWalChild.KEYS))));
    }
  }

  @Test
  void flushWalWithAndWithoutSyncAfterWritesAndAfterClose() throws Exception {
    TalusDB db;
    try (Options o = new Options().setCreateIfMissing(true)) {
      db = TalusDB.open(o, dir.toString());
    }
    db.flushWal(false); // nothing written yet
    db.put(b("a"), b("1"));
    db.flushWal(false);
    db.put(b("b"), b("2"));
    db.flushWal(true);
    db.syncWal();
    db.close();
    assertThrows(IllegalStateException.class, () -> db.flushWal(true));
    try (Options o = new Options(); TalusDB again = TalusDB.open(o, dir.toString())) {
      assertArrayEquals(b("1"), again.get(b("a")));
      assertArrayEquals(b("2"), again.get(b("b")));
    }
  }

  @Test
  void compactRangeEmptiesL0AndKeepsEveryKey() throws Exception {
    try (Options o = Lsm.smallOptions(); TalusDB db = TalusDB.open(o, dir.toString())) {
      java.util.NavigableMap<String, byte[]> model = Lsm.layered(db);
      long sstBytes = db.getLongProperty("rocksdb.total-sst-files-size");
      // A sub-range first: only files overlapping it move.
      db.compactRange(b(key(0)), b(key(100)));
      try (ReadOptions ro = new ReadOptions()) {
        Lsm.assertGetsMatch(db, ro, model, Lsm.BASE_KEYS + 120);
      }
      db.compactRange();
      assertEquals(0, Lsm.files(db, 0), db.getProperty("rocksdb.levelstats"));
      assertEquals(0, db.getLongProperty("rocksdb.num-entries-active-mem-table"));
      assertTrue(Lsm.deepLevels(db) >= 1);
      // Shadowed versions and deleted keys are gone, so the tables shrank.
      assertTrue(db.getLongProperty("rocksdb.total-sst-files-size") < sstBytes,
          "compaction dropped shadowed data");
      try (ReadOptions ro = new ReadOptions()) {
        Lsm.assertGetsMatch(db, ro, model, Lsm.BASE_KEYS + 120);
        Lsm.assertScansMatch(db, ro, model);
      }
      db.verifyChecksum();
    }
  }

  @Test
  void compactionReadsAreChargedToAReadsOnlyLimiter() throws Exception {
    try (RateLimiter limiter =
            new RateLimiter(256L << 20, 100_000, 10, RateLimiterMode.READS_ONLY, false);
        Options o = Lsm.smallOptions().setRateLimiter(limiter);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      Lsm.layered(db);
      long sstBytes = db.getLongProperty("rocksdb.total-sst-files-size");
      long before = limiter.getTotalBytesThrough();
      db.compactRange();
      // A full compaction reads every table's data blocks; flush writes are
      // not charged in this mode, so these bytes are the compactions' reads.
      long charged = limiter.getTotalBytesThrough() - before;
      assertTrue(charged >= sstBytes / 2, charged + " bytes charged for " + sstBytes + " read");
    }
  }
}
