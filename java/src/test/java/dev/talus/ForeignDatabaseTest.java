package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Opening a directory that holds a RocksDB database fails with {@code InvalidArgument} naming
 * what was found, and leaves every file as it was (the info log {@code LOG} is not rotated). The
 * database is a real one written by RocksJava 11.8.1, kept with the engine's tests ({@code
 * native/engine/tests/fixtures/rocksdb-11.8.1}, whose README says how it was made): this module
 * does not depend on RocksJava.
 */
class ForeignDatabaseTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("foreign");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static Path fixture() {
    return Paths.get(System.getProperty("talus.test.cargoToml")).getParent()
        .resolve("native/engine/tests/fixtures/rocksdb-11.8.1/db");
  }

  private static Map<String, String> contents(Path d) throws Exception {
    Map<String, String> m = new TreeMap<>();
    try (Stream<Path> s = Files.list(d)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        m.put(p.getFileName().toString(), java.util.Arrays.toString(Files.readAllBytes(p)));
      }
    }
    return m;
  }

  @Test
  void openingARocksDbDirectoryIsInvalidArgumentAndTouchesNothing() throws Exception {
    Path rocks = Files.createDirectories(dir.resolve("rocks"));
    try (Stream<Path> s = Files.list(fixture())) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Files.copy(p, rocks.resolve(p.getFileName().toString()));
      }
    }
    Map<String, String> before = contents(rocks);
    assertTrue(before.containsKey("LOG") && before.containsKey("OPTIONS-000007"), before.keySet()
        .toString());
    try (Options o = new Options().setCreateIfMissing(true)) {
      TalusException e =
          assertThrows(TalusException.class, () -> TalusDB.open(o, rocks.toString()).close());
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.getMessage());
      String m = e.getMessage();
      assertTrue(m.contains("not a Talus database: it looks like RocksDB"), m);
      assertTrue(m.contains("OPTIONS-000007") && m.contains("MANIFEST-000005"), m);
      assertEquals(before, contents(rocks), "the open changed the directory");
      TalusException d =
          assertThrows(TalusException.class, () -> TalusDB.destroyDB(rocks.toString(), o));
      assertEquals(Status.Code.InvalidArgument, d.getStatus().getCode(), d.getMessage());
      assertEquals(before, contents(rocks), "destroyDB changed the directory");
    }
  }
}
