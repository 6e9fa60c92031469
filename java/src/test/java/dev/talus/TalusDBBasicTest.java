package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TalusDBBasicTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("basic");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private TalusDB open() throws TalusException {
    return TalusDB.open(new Options().setCreateIfMissing(true), dir.toString());
  }

  @Test
  void putGetDeleteOverwrite() throws Exception {
    try (TalusDB db = open()) {
      assertNull(db.get(b("a")));
      db.put(b("a"), b("1"));
      assertArrayEquals(b("1"), db.get(b("a")));
      db.put(b("a"), b("2"));
      assertArrayEquals(b("2"), db.get(b("a")));
      db.delete(b("a"));
      assertNull(db.get(b("a")));
      db.put(new byte[0], new byte[0]);
      assertArrayEquals(new byte[0], db.get(new byte[0]));
      // Offset forms and the buffer-filling get.
      byte[] key = b("xxkeyxx");
      db.put(key, 2, 3, b("--value--"), 2, 5);
      assertArrayEquals(b("value"), db.get(b("key")));
      byte[] out = new byte[3];
      assertEquals(5, db.get(b("key"), out));
      assertArrayEquals(b("val"), out);
      assertEquals(TalusDB.NOT_FOUND, db.get(b("nope"), out));
      assertThrows(IndexOutOfBoundsException.class, () -> db.put(key, 5, 5, b("v"), 0, 1));
    }
  }

  @Test
  void hundredThousandRandomWritesSurviveCloseAndReopen() throws Exception {
    Map<String, byte[]> model = new HashMap<>();
    Random rnd = new Random(42);
    try (TalusDB db = open()) {
      for (int i = 0; i < 100_000; i++) {
        String k = "key-" + rnd.nextInt(60_000);
        byte[] v = new byte[rnd.nextInt(64)];
        rnd.nextBytes(v);
        if (rnd.nextInt(10) == 0) {
          db.delete(b(k));
          model.remove(k);
        } else {
          db.put(b(k), v);
          model.put(k, v);
        }
      }
    }
    try (TalusDB db = open()) {
      for (int i = 0; i < 60_000; i++) {
        String k = "key-" + i;
        assertArrayEquals(model.get(k), db.get(b(k)), k);
      }
    }
  }

  @Test
  @SuppressWarnings("try") // db is open only to hold the lock
  void secondOpenOfALockedDirectoryFails() throws Exception {
    try (TalusDB db = open()) {
      // RocksJava's status: IOError, with "lock" in the message (it was Busy).
      TalusException e = assertThrows(TalusException.class, this::open);
      assertEquals(Status.Code.IOError, e.getStatus().getCode());
      assertTrue(e.getMessage().contains("lock hold by current process"), e.getMessage());
      assertTrue(e.getMessage().contains("LOCK"), e.getMessage());
    }
    try (TalusDB again = open()) {
      assertNull(again.get(b("x")));
    }
  }

  @Test
  void missingDatabaseWithoutCreateIfMissingFails() {
    TalusException e = assertThrows(TalusException.class,
        () -> TalusDB.open(new Options(), dir.resolve("absent").toString()));
    assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
    assertTrue(e.getMessage().contains("create_if_missing"), e.getMessage());
  }

  @Test
  void nullArgumentsThrowNullPointerExceptionNamingTheParameter() throws Exception {
    try (TalusDB db = open()) {
      assertEquals("key", assertThrows(NullPointerException.class,
          () -> db.put(null, b("v"))).getMessage());
      assertEquals("value", assertThrows(NullPointerException.class,
          () -> db.put(b("k"), null)).getMessage());
      assertEquals("key", assertThrows(NullPointerException.class,
          () -> db.get((byte[]) null)).getMessage());
      assertEquals("key", assertThrows(NullPointerException.class,
          () -> db.delete((byte[]) null)).getMessage());
      assertEquals("writeOptions", assertThrows(NullPointerException.class,
          () -> db.put((WriteOptions) null, b("k"), b("v"))).getMessage());
      assertEquals("path", assertThrows(NullPointerException.class,
          () -> TalusDB.open(new Options(), null)).getMessage());
      assertEquals("options", assertThrows(NullPointerException.class,
          () -> TalusDB.open(null, "x")).getMessage());
    }
  }

  @Test
  void everyMethodThrowsAfterClose() throws Exception {
    TalusDB db = open();
    db.close();
    db.close(); // idempotent
    assertTrue(db.isClosed());
    assertThrows(IllegalStateException.class, () -> db.put(b("k"), b("v")));
    assertThrows(IllegalStateException.class, () -> db.get(b("k")));
    assertThrows(IllegalStateException.class, () -> db.delete(b("k")));
    assertThrows(IllegalStateException.class, () -> db.getProperty("rocksdb.stats"));
    assertThrows(IllegalStateException.class, db::newIterator);
    assertThrows(IllegalStateException.class, db::getSnapshot);
  }
}
