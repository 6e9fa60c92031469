package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Background errors through the Java API: the read-only state, {@code resume()}, {@code
 * paranoidChecks} and {@code verifyChecksum()}. The fault-injection cases are in the Rust suites
 * (native/engine/tests/durability); these drive real failures on the real file system.
 */
class TalusDBBackgroundErrorTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("bgerror");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(i).array();
  }

  private static byte[] value(long i) {
    byte[] v = new byte[100];
    ByteBuffer.wrap(v).putLong(i * 31);
    return v;
  }

  @Test
  void resumeWithoutAnErrorDoesNothing() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      db.resume();
      db.put(key(1), value(1));
      assertEquals(0, db.getLongProperty("rocksdb.background-errors"));
    }
  }

  @Test
  void aLostWalDirectoryStopsWritesUntilResume() throws Exception {
    Path wal = dir.resolve("wal");
    String db0 = dir.resolve("db").toString();
    try (Options o = new Options().setCreateIfMissing(true).setWalDir(wal.toString());
        TalusDB db = TalusDB.open(o, db0);
        FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      for (long i = 0; i < 100; i++) {
        db.put(key(i), value(i));
      }
      TestDirs.delete(wal);
      // The flush needs a new WAL in the missing directory: the error latches.
      TalusException e = assertThrows(TalusException.class, () -> db.flush(fo));
      assertEquals(Status.Code.IOError, e.getStatus().getCode(), e.getMessage());
      assertTrue(db.getLongProperty("rocksdb.background-errors") >= 1);
      TalusException w = assertThrows(TalusException.class, () -> db.put(key(500), value(500)));
      assertEquals(Status.Code.IOError, w.getStatus().getCode(), w.getMessage());
      assertArrayEquals(value(7), db.get(key(7)), "reads go on");
      // Still broken: resume fails and says why.
      assertThrows(TalusException.class, db::resume);
      Files.createDirectories(wal);
      db.resume();
      db.put(key(100), value(100));
    }
    try (Options o = new Options().setWalDir(wal.toString());
        TalusDB db = TalusDB.open(o, db0)) {
      for (long i = 0; i <= 100; i++) {
        assertArrayEquals(value(i), db.get(key(i)), "key " + i);
      }
    }
  }

  private Path newestTable() throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> t = s.filter(p -> p.toString().endsWith(".sst")).sorted()
          .collect(Collectors.toList());
      return t.get(t.size() - 1);
    }
  }

  /** Two L0 tables without compression; the newest gets a flipped byte in its first block. */
  private Path damagedDatabase() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true).setDisableAutoCompactions(true)
            .setCompressionType(CompressionType.NO_COMPRESSION);
        TalusDB db = TalusDB.open(o, dir.toString());
        FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      for (long t = 0; t < 2; t++) {
        for (long i = 0; i < 200; i++) {
          db.put(key(t * 1000 + i), value(i));
        }
        db.flush(fo);
      }
    }
    Path table = newestTable();
    byte[] bytes = Files.readAllBytes(table);
    bytes[40] ^= 0x40;
    Files.write(table, bytes);
    return table;
  }

  @Test
  void aCorruptionFoundByACompactionNeedsAReopenWithParanoidChecks() throws Exception {
    Path table = damagedDatabase();
    try (Options o = new Options().setParanoidChecks(true);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      TalusException e = assertThrows(TalusException.class, db::compactRange);
      assertEquals(Status.Code.Corruption, e.getStatus().getCode(), e.getMessage());
      assertTrue(e.getMessage().contains(table.getFileName().toString()), e.getMessage());
      TalusException w = assertThrows(TalusException.class, () -> db.put(key(5), value(5)));
      assertEquals(Status.Code.Corruption, w.getStatus().getCode());
      TalusException r = assertThrows(TalusException.class, db::resume);
      assertEquals(Status.Code.Corruption, r.getStatus().getCode());
      TalusException v = assertThrows(TalusException.class, db::verifyChecksum);
      assertTrue(v.getMessage().contains(table.getFileName().toString()), v.getMessage());
    }
  }

  @Test
  void withoutParanoidChecksACorruptCompactionDoesNotStopWrites() throws Exception {
    damagedDatabase();
    try (Options o = new Options().setParanoidChecks(false);
        TalusDB db = TalusDB.open(o, dir.toString())) {
      TalusException e = assertThrows(TalusException.class, db::compactRange);
      assertEquals(Status.Code.Corruption, e.getStatus().getCode(), e.getMessage());
      assertEquals(1, db.getLongProperty("rocksdb.background-errors"));
      db.put(key(5), value(5));
      assertArrayEquals(value(5), db.get(key(5)));
      db.resume();
    }
  }

  @Test
  void aDeletedTableFailsOpenWithParanoidChecksNamingIt() throws Exception {
    damagedDatabase();
    Path table = newestTable();
    Files.delete(table);
    try (Options o = new Options()) {
      TalusException e = assertThrows(TalusException.class, () -> TalusDB.open(o, dir.toString()));
      assertEquals(Status.Code.Corruption, e.getStatus().getCode(), e.getMessage());
      assertTrue(e.getMessage().contains(table.getFileName().toString()), e.getMessage());
    }
  }
}
