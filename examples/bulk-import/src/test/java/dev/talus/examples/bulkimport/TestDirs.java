package dev.talus.examples.bulkimport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Where the tests put their databases: {@code target/test-dbs} (set by the pom), never git. */
final class TestDirs {
  private TestDirs() {}

  static Path root() throws IOException {
    String dir = System.getProperty("bulkimport.test.dir");
    Path p = dir != null ? Path.of(dir) : Path.of("target", "test-dbs");
    return Files.createDirectories(p);
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
