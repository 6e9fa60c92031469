package dev.talus;

import static dev.talus.Lsm.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a database does at open with logs and tables that are not what its manifest says: a log
 * missing in the middle (under each {@link WALRecoveryMode}), a table copied in from another
 * database, and a {@code walDir} shared with another database (also by {@code destroyDB}).
 */
class WalTrackingTest {
  private static final int PER_LOG = 300;

  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("wal-tracking");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static List<String> names(Path d, String suffix) throws Exception {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(suffix))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  private static Map<String, byte[]> logs(Path d) throws Exception {
    Map<String, byte[]> m = new TreeMap<>();
    for (String n : names(d, ".log")) {
      m.put(n, Files.readAllBytes(d.resolve(n)));
    }
    return m;
  }

  private static void assertSameLogs(Map<String, byte[]> want, Map<String, byte[]> got) {
    assertEquals(want.keySet(), got.keySet());
    for (String n : want.keySet()) {
      assertArrayEquals(want.get(n), got.get(n), n);
    }
  }

  /**
   * Three logs of {@link #PER_LOG} synced writes each (the memtables are switched out, not
   * flushed: background work is paused), then a clean close. Returns the logs, oldest first.
   */
  private List<String> threeSyncedLogs(Path db) throws Exception {
    try (Options o = new Options().setCreateIfMissing(true).setMaxWriteBufferNumber(4);
        WriteOptions sync = new WriteOptions().setSync(true);
        FlushOptions noWait = new FlushOptions().setWaitForFlush(false);
        TalusDB d = TalusDB.open(o, db.toString())) {
      d.pauseBackgroundWork();
      for (int i = 0; i < 3 * PER_LOG; i++) {
        if (i > 0 && i % PER_LOG == 0) {
          d.flush(noWait);
        }
        d.put(sync, b(Lsm.key(i)), b("v" + i));
      }
    }
    List<String> logs = names(db, ".log").stream()
        .filter(n -> db.resolve(n).toFile().length() > 0)
        .collect(Collectors.toList());
    assertEquals(3, logs.size(), logs.toString());
    return logs;
  }

  private static boolean[] present(TalusDB d) throws TalusException {
    boolean[] p = new boolean[3 * PER_LOG];
    for (int i = 0; i < p.length; i++) {
      byte[] v = d.get(b(Lsm.key(i)));
      if (v != null) {
        assertArrayEquals(b("v" + i), v, Lsm.key(i));
        p[i] = true;
      }
    }
    return p;
  }

  private static int count(boolean[] p, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      n += p[i] ? 1 : 0;
    }
    return n;
  }

  /**
   * Regression (issue 30): a log that was not the newest, deleted while the database was closed,
   * made {@code open} succeed, drop every synced write from that log on (those of the intact
   * newest log too) and delete the later logs. Under the default mode and {@code
   * AbsoluteConsistency} the open now fails with {@code Corruption} naming the log and changes
   * nothing; with the log put back every write is there.
   */
  @Test
  void regressionMissingMiddleLogFailsOpenInsteadOfDroppingSyncedWrites() throws Exception {
    Path db = dir.resolve("db");
    List<String> logs = threeSyncedLogs(db);
    Path middle = db.resolve(logs.get(1));
    Path aside = dir.resolve("aside.log");
    Files.move(middle, aside);
    Map<String, byte[]> before = logs(db);
    for (WALRecoveryMode mode :
        new WALRecoveryMode[] {
          WALRecoveryMode.TolerateCorruptedTailRecords, WALRecoveryMode.AbsoluteConsistency
        }) {
      try (Options o = new Options().setWalRecoveryMode(mode)) {
        TalusException e = assertThrows(TalusException.class, () -> TalusDB.open(o, db.toString()));
        assertEquals(Status.Code.Corruption, e.getStatus().getCode(), mode + ": " + e.getMessage());
        assertTrue(e.getMessage().contains(logs.get(1)), e.getMessage());
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
        assertSameLogs(before, logs(db));
      }
    }
    Files.move(aside, middle);
    try (Options o = new Options();
        TalusDB d = TalusDB.open(o, db.toString())) {
      assertEquals(3 * PER_LOG, count(present(d), 0, 3 * PER_LOG));
    }
  }

  /**
   * The modes that trade writes for an open: point-in-time recovery keeps the writes before the
   * missing log and none after it (the newest log is kept as {@code .log.unreplayed}, not
   * deleted); {@code SkipAnyCorruptedRecords} keeps the logs on both sides of it.
   */
  @Test
  void missingMiddleLogUnderPointInTimeRecoveryAndSkipAnyCorruptedRecords() throws Exception {
    for (WALRecoveryMode mode :
        new WALRecoveryMode[] {
          WALRecoveryMode.PointInTimeRecovery, WALRecoveryMode.SkipAnyCorruptedRecords
        }) {
      Path db = dir.resolve("db-" + mode);
      List<String> logs = threeSyncedLogs(db);
      Files.delete(db.resolve(logs.get(1)));
      boolean[] p;
      try (Options o = new Options().setWalRecoveryMode(mode);
          TalusDB d = TalusDB.open(o, db.toString())) {
        p = present(d);
      }
      assertEquals(PER_LOG, count(p, 0, PER_LOG), mode + ": the first log");
      assertEquals(0, count(p, PER_LOG, 2 * PER_LOG), mode + ": the missing log");
      if (mode == WALRecoveryMode.PointInTimeRecovery) {
        assertEquals(0, count(p, 2 * PER_LOG, 3 * PER_LOG), "nothing after the missing log");
        assertTrue(Files.exists(db.resolve(logs.get(2) + ".unreplayed")),
            names(db, "").toString());
      } else {
        assertEquals(PER_LOG, count(p, 2 * PER_LOG, 3 * PER_LOG), "the newest log");
      }
      String info = Files.readString(db.resolve("LOG"));
      assertTrue(info.contains(logs.get(1)), "the LOG names the missing log");
      // The database is consistent afterwards: the default mode opens it as it was.
      try (Options o = new Options();
          TalusDB d = TalusDB.open(o, db.toString())) {
        assertArrayEquals(p, present(d), mode + ": reopen");
      }
    }
  }

  /** One table of 500 keys, values of equal length naming {@code who}; no compression. */
  private static Path oneTable(Path db, String who) throws Exception {
    try (Options o = new Options()
            .setCreateIfMissing(true)
            .setCompressionType(CompressionType.NO_COMPRESSION)
            .setDisableAutoCompactions(true);
        TalusDB d = TalusDB.open(o, db.toString())) {
      for (int i = 0; i < 500; i++) {
        d.put(b(Lsm.key(i)), b(who + "-" + Lsm.key(i)));
      }
      d.flush(new FlushOptions());
    }
    List<String> tables = names(db, ".sst");
    assertEquals(1, tables.size(), tables.toString());
    return db.resolve(tables.get(0));
  }

  /**
   * Regression (issue 30): another database's valid table of the same size copied over one of
   * ours while closed passed open and {@code verifyChecksum()}, and reads returned its values. A
   * table now names its database and file number: the open fails with {@code Corruption} naming
   * the table; without paranoid checks reads of it and {@code verifyChecksum()} fail the same way.
   */
  @Test
  void regressionTableCopiedFromAnotherDatabaseIsCorruptionNotWrongData() throws Exception {
    Path ours = oneTable(dir.resolve("ours"), "ours");
    Path theirs = oneTable(dir.resolve("theirs"), "them");
    assertEquals(Files.size(ours), Files.size(theirs), "tables of the same size");
    Files.copy(theirs, ours, StandardCopyOption.REPLACE_EXISTING);
    String db = ours.getParent().toString();
    String table = ours.getFileName().toString();
    try (Options o = new Options()) {
      TalusException e = assertThrows(TalusException.class, () -> TalusDB.open(o, db));
      assertEquals(Status.Code.Corruption, e.getStatus().getCode(), e.getMessage());
      assertTrue(e.getMessage().contains(table), e.getMessage());
      assertTrue(e.getMessage().contains("another database"), e.getMessage());
    }
    try (Options o = new Options().setParanoidChecks(false);
        TalusDB d = TalusDB.open(o, db)) {
      TalusException e = assertThrows(TalusException.class, () -> d.get(b(Lsm.key(7))));
      assertEquals(Status.Code.Corruption, e.getStatus().getCode(), e.getMessage());
      assertTrue(e.getMessage().contains(table), e.getMessage());
      e = assertThrows(TalusException.class, d::verifyChecksum);
      assertEquals(Status.Code.Corruption, e.getStatus().getCode(), e.getMessage());
    }
  }

  /**
   * Regression (issue 30): a second database opened on the {@code walDir} of a first deleted the
   * first one's logs, which then lost its synced writes and could not open. While the first is
   * open the second is refused ({@code IOError} naming the lock and the directory); after it
   * closed the second opens and works without touching the first's logs, and {@code destroyDB}
   * of the second removes only its own.
   */
  @Test
  void regressionSecondDatabaseOnTheSameWalDirLeavesTheFirstsLogs() throws Exception {
    Path wal = dir.resolve("wal");
    String a = dir.resolve("a").toString();
    String bPath = dir.resolve("b").toString();
    try (Options o = new Options().setCreateIfMissing(true).setWalDir(wal.toString());
        WriteOptions sync = new WriteOptions().setSync(true)) {
      try (TalusDB first = TalusDB.open(o, a)) {
        for (int i = 0; i < 200; i++) {
          first.put(sync, b("a" + i), b("from a"));
        }
        TalusException e = assertThrows(TalusException.class, () -> TalusDB.open(o, bPath));
        assertEquals(Status.Code.IOError, e.getStatus().getCode(), e.getMessage());
        assertTrue(e.getMessage().contains("lock"), e.getMessage());
        assertTrue(e.getMessage().contains(wal.toString()), e.getMessage());
      }
      Map<String, byte[]> aLogs = logs(wal);
      assertFalse(aLogs.isEmpty());
      try (TalusDB second = TalusDB.open(o, bPath)) {
        assertNull(second.get(b("a0")), "a's writes are not b's");
        for (int i = 0; i < 200; i++) {
          second.put(sync, b("b" + i), b("from b"));
        }
        second.flush(new FlushOptions());
      }
      Map<String, byte[]> now = logs(wal);
      for (Map.Entry<String, byte[]> l : aLogs.entrySet()) {
        assertArrayEquals(l.getValue(), now.get(l.getKey()), "a's log " + l.getKey());
      }
      TalusDB.destroyDB(bPath, o);
      assertSameLogs(aLogs, logs(wal));
      try (TalusDB first = TalusDB.open(o, a)) {
        for (int i = 0; i < 200; i++) {
          assertArrayEquals(b("from a"), first.get(b("a" + i)), "a" + i);
        }
        assertNull(first.get(b("b0")));
      }
    }
  }
}
