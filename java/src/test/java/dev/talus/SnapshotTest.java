package dev.talus;

import static dev.talus.Lsm.b;
import static dev.talus.Lsm.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** getSnapshot / releaseSnapshot and reads at a snapshot, with get and iterators. */
class SnapshotTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("snapshot");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  @Test
  void readsAtASnapshotSeeItsStateThroughFlushesAndCompactions() throws Exception {
    try (Options o = Lsm.smallOptions(); TalusDB db = TalusDB.open(o, dir.toString())) {
      NavigableMap<String, byte[]> atFirst = Lsm.layered(db);
      Snapshot first = db.getSnapshot();
      assertEquals(db.getLatestSequenceNumber(), first.getSequenceNumber());
      assertEquals(1, db.getLongProperty("rocksdb.num-snapshots"));

      // Change everything: overwrite, delete, range-delete; then take a second snapshot.
      NavigableMap<String, byte[]> now = new TreeMap<>(atFirst);
      for (int i = 0; i < Lsm.BASE_KEYS; i += 2) {
        db.put(b(key(i)), Lsm.value("s1", i, 80));
        now.put(key(i), Lsm.value("s1", i, 80));
      }
      db.deleteRange(b(key(3000)), b(key(3500)));
      now.subMap(key(3000), key(3500)).clear();
      Snapshot second = db.getSnapshot();
      NavigableMap<String, byte[]> atSecond = new TreeMap<>(now);
      for (int i = 1; i < Lsm.BASE_KEYS; i += 2) {
        db.delete(b(key(i)));
        now.remove(key(i));
      }

      // Push it all through flushes and a full compaction while the snapshots live.
      db.enableAutoCompaction();
      db.compactRange();
      assertEquals(0, Lsm.files(db, 0));

      for (Object[] c : new Object[][] {{first, atFirst}, {second, atSecond}, {null, now}}) {
        @SuppressWarnings("unchecked")
        NavigableMap<String, byte[]> want = (NavigableMap<String, byte[]>) c[1];
        try (ReadOptions ro = new ReadOptions().setSnapshot((Snapshot) c[0])) {
          Lsm.assertGetsMatch(db, ro, want, Lsm.BASE_KEYS + 120);
          Lsm.assertScansMatch(db, ro, want);
          List<byte[]> keys = new ArrayList<>();
          for (int i = 0; i < 50; i++) {
            keys.add(b(key(i * 83)));
          }
          List<byte[]> got = db.multiGetAsList(ro, keys);
          for (int i = 0; i < 50; i++) {
            assertArrayEquals(want.get(key(i * 83)), got.get(i), key(i * 83));
          }
        }
      }

      // Releasing the first snapshot lets compaction drop what only it saw; the second
      // still reads its state.
      db.releaseSnapshot(first);
      assertTrue(first.isClosed());
      assertThrows(IllegalStateException.class, first::getSequenceNumber);
      assertEquals(1, db.getLongProperty("rocksdb.num-snapshots"));
      db.compactRange();
      try (ReadOptions ro = new ReadOptions().setSnapshot(second)) {
        Lsm.assertScansMatch(db, ro, atSecond);
      }
      try (ReadOptions ro = new ReadOptions().setSnapshot(first)) {
        assertThrows(IllegalStateException.class, () -> db.get(ro, b(key(0))),
            "reading at a released snapshot");
      }
      second.close();
      db.releaseSnapshot(second); // already released: a no-op
      db.releaseSnapshot(null);
      assertEquals(0, db.getLongProperty("rocksdb.num-snapshots"));
    }
  }

  @Test
  void aSnapshotOfAnEmptyDatabaseSeesNothing() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      Snapshot empty = db.getSnapshot();
      db.put(b("k"), b("v"));
      try (ReadOptions ro = new ReadOptions().setSnapshot(empty);
          TalusIterator it = db.newIterator(ro)) {
        assertNull(db.get(ro, b("k")));
        it.seekToFirst();
        assertTrue(!it.isValid());
      }
      assertArrayEquals(b("v"), db.get(b("k")));
      db.releaseSnapshot(empty);
    }
  }

  @Test
  void closingTheDatabaseReleasesItsSnapshots() throws Exception {
    Snapshot s;
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      db.put(b("k"), b("v"));
      s = db.getSnapshot();
    }
    assertTrue(s.isClosed());
    assertThrows(IllegalStateException.class, s::getSequenceNumber);
  }
}
