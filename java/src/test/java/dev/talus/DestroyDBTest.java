package dev.talus;

import static dev.talus.Lsm.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code TalusDB.destroyDB} and {@code loadLibrary}, as RocksJava's. */
class DestroyDBTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("destroy");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static List<String> names(Path d) throws Exception {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  private static void fill(Options o, Path db) throws Exception {
    try (TalusDB d = TalusDB.open(o, db.toString())) {
      for (int i = 0; i < 500; i++) {
        d.put(b(Lsm.key(i)), Lsm.value("x", i, 300));
      }
      d.flush(new FlushOptions());
      d.put(b("in-the-wal"), b("v"));
    }
  }

  @Test
  void destroyRemovesTheDatabaseAndItsDirectory() throws Exception {
    Path db = dir.resolve("db");
    Path wal = dir.resolve("wal");
    try (Options o = Lsm.smallOptions().setWalDir(wal.toString())) {
      fill(o, db);
      TalusDB.open(o, db.toString()).close(); // an old info log too
      assertTrue(names(db).contains("CURRENT"));
      assertTrue(names(db).stream().anyMatch(n -> n.startsWith("LOG.old.")), names(db).toString());
      assertTrue(names(wal).stream().anyMatch(n -> n.endsWith(".log")), names(wal).toString());
      TalusDB.destroyDB(db.toString(), o);
      assertFalse(Files.exists(db), "the database directory is gone");
      assertFalse(Files.exists(wal), "the emptied walDir is gone");
      // Destroying what is not there does nothing.
      TalusDB.destroyDB(db.toString(), o);
      // And the name can be used again.
      try (TalusDB d = TalusDB.open(o, db.toString())) {
        assertEquals(null, d.get(b("in-the-wal")));
      }
    }
  }

  @Test
  void destroyKeepsFilesThatAreNotTheDatabases() throws Exception {
    Path db = dir.resolve("db");
    try (Options o = Lsm.smallOptions()) {
      fill(o, db);
      Files.writeString(db.resolve("README.txt"), "mine");
      TalusDB.destroyDB(db.toString(), o);
      assertEquals(List.of("README.txt"), names(db));
    }
  }

  @Test
  void destroyRefusesAnOpenDatabaseAndDeletesNothing() throws Exception {
    Path db = dir.resolve("db");
    try (Options o = Lsm.smallOptions()) {
      fill(o, db);
      // No background compaction changes the files while they are compared.
      o.setDisableAutoCompactions(true);
      try (TalusDB open = TalusDB.open(o, db.toString())) {
        open.waitForCompactions();
        List<String> before = names(db);
        TalusException e =
            assertThrows(TalusException.class, () -> TalusDB.destroyDB(db.toString(), o));
        assertEquals(Status.Code.IOError, e.getStatus().getCode(), e.getMessage());
        assertTrue(e.getMessage().contains("lock"), e.getMessage());
        // Nothing deleted. The listing may have grown by one file: the next
        // WAL is made ahead on a background thread after the open returns.
        List<String> after = names(db);
        assertTrue(after.containsAll(before), before + " -> " + after);
        List<String> added =
            after.stream().filter(n -> !before.contains(n)).collect(Collectors.toList());
        assertTrue(
            added.isEmpty() || (added.size() == 1 && added.get(0).endsWith(".log")),
            "only the WAL made ahead may appear: " + added);
        assertArrayEquals(b("v"), open.get(b("in-the-wal")));
      }
    }
  }

  @Test
  void loadLibraryIsANoOpOnceLoaded() {
    TalusDB.loadLibrary();
    TalusDB.loadLibrary();
    int loads = NativeLibrary.loadCount();
    // Loaded already: the directories are not even looked at.
    TalusDB.loadLibrary(List.of(dir.resolve("nowhere").toString()));
    assertEquals(loads, NativeLibrary.loadCount());
    assertThrows(NullPointerException.class, () -> TalusDB.loadLibrary(null));
  }
}
