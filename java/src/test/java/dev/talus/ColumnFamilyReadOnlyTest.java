package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code openReadOnly} with column families, as RocksJava: every listed family sees its table
 * files and its writes still only in the write-ahead log (replayed into memory); a subset of the
 * families may be listed; a list without {@code "default"} or naming a family not on disk is
 * {@code InvalidArgument}; writes through the read-only handle fail with {@code NotSupported};
 * and a read-only open beside an open primary sees the primary's flushed state.
 */
class ColumnFamilyReadOnlyTest {
  private static final List<String> NAMES = List.of("default", "a", "b");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<ColumnFamilyDescriptor> descriptors(List<String> names) {
    List<ColumnFamilyDescriptor> ds = new ArrayList<>();
    for (String n : names) {
      ds.add(new ColumnFamilyDescriptor(b(n), new ColumnFamilyOptions()));
    }
    return ds;
  }

  private static TalusDB openPrimary(Path dir, List<ColumnFamilyHandle> hs) throws TalusException {
    DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setStatsDumpPeriodSec(0);
    return TalusDB.open(o, dir.toString(), descriptors(NAMES), hs);
  }

  /** In each family: 100 flushed keys, then 50 keys only in the write-ahead log. */
  private static void writeFlushedAndLogged(TalusDB db, List<ColumnFamilyHandle> hs)
      throws TalusException {
    for (int f = 0; f < hs.size(); f++) {
      for (int i = 0; i < 100; i++) {
        db.put(hs.get(f), b("flushed-" + i), b(NAMES.get(f) + "-f" + i));
      }
      try (FlushOptions fo = new FlushOptions()) {
        db.flush(fo, hs.get(f));
      }
    }
    for (int f = 0; f < hs.size(); f++) {
      for (int i = 0; i < 50; i++) {
        db.put(hs.get(f), b("logged-" + i), b(NAMES.get(f) + "-l" + i));
      }
    }
  }

  private static void checkFamily(TalusDB db, ColumnFamilyHandle h, String name, boolean logged)
      throws TalusException {
    for (int i = 0; i < 100; i++) {
      assertArrayEquals(b(name + "-f" + i), db.get(h, b("flushed-" + i)), name + " flushed " + i);
    }
    for (int i = 0; i < 50; i++) {
      byte[] want = logged ? b(name + "-l" + i) : null;
      assertArrayEquals(want, db.get(h, b("logged-" + i)), name + " logged " + i);
    }
    try (TalusIterator it = db.newIterator(h)) {
      int n = 0;
      for (it.seekToFirst(); it.isValid(); it.next()) {
        n++;
      }
      assertEquals(logged ? 150 : 100, n, name);
    }
  }

  @Test
  void readOnlyWithEveryFamilySeesFlushedAndLoggedWrites() throws Exception {
    Path dir = TestDirs.fresh("cf-ro-all");
    try {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (TalusDB db = openPrimary(dir, hs)) {
        writeFlushedAndLogged(db, hs);
      }
      List<ColumnFamilyHandle> ro = new ArrayList<>();
      try (DBOptions o = new DBOptions();
          TalusDB db = TalusDB.openReadOnly(o, dir.toString(), descriptors(NAMES), ro)) {
        assertEquals(3, ro.size());
        for (int f = 0; f < NAMES.size(); f++) {
          assertArrayEquals(b(NAMES.get(f)), ro.get(f).getName());
          checkFamily(db, ro.get(f), NAMES.get(f), true);
        }
        assertTrue(db.getLongProperty(ro.get(1), "rocksdb.num-files-at-level0") >= 1);
        // The logged writes are in memory, not in new tables: nothing was written.
        assertEquals(50, db.getLongProperty(ro.get(2), "rocksdb.num-entries-active-mem-table"));
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void readOnlyWithASubsetOfTheFamilies() throws Exception {
    Path dir = TestDirs.fresh("cf-ro-subset");
    try {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (TalusDB db = openPrimary(dir, hs)) {
        writeFlushedAndLogged(db, hs);
      }
      List<ColumnFamilyHandle> ro = new ArrayList<>();
      try (TalusDB db = TalusDB.openReadOnly(dir.toString(), descriptors(List.of("default", "b")),
          ro)) {
        assertEquals(2, ro.size());
        checkFamily(db, ro.get(0), "default", true);
        checkFamily(db, ro.get(1), "b", true);
      }
      // errorIfWalFileExists: the logs hold writes not in the tables.
      TalusException e = assertThrows(TalusException.class,
          () -> TalusDB.openReadOnly(new DBOptions(), dir.toString(), descriptors(NAMES),
              new ArrayList<>(), true));
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.getMessage());
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void readOnlyRefusesAListWithoutDefaultOrWithAnUnknownFamily() throws Exception {
    Path dir = TestDirs.fresh("cf-ro-bad");
    try {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (TalusDB db = openPrimary(dir, hs)) {
        writeFlushedAndLogged(db, hs);
      }
      List<ColumnFamilyHandle> ro = new ArrayList<>();
      TalusException noDefault = assertThrows(TalusException.class,
          () -> TalusDB.openReadOnly(dir.toString(), descriptors(List.of("a", "b")), ro));
      assertEquals(Status.Code.InvalidArgument, noDefault.getStatus().getCode(),
          noDefault.getMessage());
      assertTrue(noDefault.getMessage().toLowerCase().contains("default"),
          noDefault.getMessage());
      TalusException unknown = assertThrows(TalusException.class,
          () -> TalusDB.openReadOnly(dir.toString(), descriptors(List.of("default", "zzz")),
              ro));
      assertEquals(Status.Code.InvalidArgument, unknown.getStatus().getCode(),
          unknown.getMessage());
      assertTrue(unknown.getMessage().contains("zzz"), unknown.getMessage());
      assertTrue(ro.isEmpty());
      // Nothing was lost or created by the refusals.
      try (TalusDB db = TalusDB.openReadOnly(dir.toString(), descriptors(NAMES), ro)) {
        checkFamily(db, ro.get(1), "a", true);
      }
      try (Options o = new Options()) {
        assertEquals(NAMES.size(), TalusDB.listColumnFamilies(o, dir.toString()).size());
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void writesThroughAReadOnlyHandleFailClearly() throws Exception {
    Path dir = TestDirs.fresh("cf-ro-writes");
    try {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (TalusDB db = openPrimary(dir, hs)) {
        writeFlushedAndLogged(db, hs);
      }
      List<ColumnFamilyHandle> ro = new ArrayList<>();
      try (TalusDB db = TalusDB.openReadOnly(dir.toString(), descriptors(NAMES), ro)) {
        ColumnFamilyHandle a = ro.get(1);
        List<Executable> writes = List.of(
            () -> db.put(a, b("k"), b("v")),
            () -> db.delete(a, b("flushed-1")),
            () -> db.deleteRange(a, b("a"), b("z")),
            () -> {
              try (WriteBatch batch = new WriteBatch(); WriteOptions wo = new WriteOptions()) {
                batch.put(a, b("k"), b("v"));
                db.write(wo, batch);
              }
            },
            () -> {
              try (FlushOptions fo = new FlushOptions()) {
                db.flush(fo, a);
              }
            },
            () -> db.compactRange(a),
            () -> db.createColumnFamily(new ColumnFamilyDescriptor(b("new"))),
            () -> db.dropColumnFamily(a));
        for (Executable w : writes) {
          TalusException e = assertThrows(TalusException.class, w::run);
          assertEquals(Status.Code.NotSupported, e.getStatus().getCode(), e.getMessage());
          assertTrue(e.getMessage().contains("read only"), e.getMessage());
        }
        checkFamily(db, a, "a", true);
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void readOnlyBesideAnOpenPrimarySeesItsFlushedState() throws Exception {
    Path dir = TestDirs.fresh("cf-ro-beside");
    try {
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (TalusDB primary = openPrimary(dir, hs)) {
        writeFlushedAndLogged(primary, hs);
        try (FlushOptions fo = new FlushOptions()) {
          primary.flush(fo, hs);
        }
        List<ColumnFamilyHandle> ro = new ArrayList<>();
        try (TalusDB db = TalusDB.openReadOnly(dir.toString(), descriptors(NAMES), ro)) {
          for (int f = 0; f < NAMES.size(); f++) {
            checkFamily(db, ro.get(f), NAMES.get(f), true);
          }
          // It shows the state at its open: later writes of the primary are not followed.
          primary.put(hs.get(1), b("later"), b("x"));
          try (FlushOptions fo = new FlushOptions()) {
            primary.flush(fo, hs.get(1));
          }
          assertNull(db.get(ro.get(1), b("later")));
          assertArrayEquals(b("x"), primary.get(hs.get(1), b("later")));
        }
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  /** A call that may throw. */
  private interface Executable {
    void run() throws Exception;
  }
}
