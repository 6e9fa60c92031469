package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading in fresh child JVMs, where nothing is loaded yet and system properties can differ. */
class NativeLibraryForkedTest {
  @TempDir Path tempDir;

  @Test
  void sixteenThreadsRacingTheFirstLoadLoadOnce() throws Exception {
    final Map<String, String> out = runChild(0, null, "race");
    assertEquals("1", out.get("loadCount"));
    assertEquals(NativeLibraryTest.cargoWorkspaceVersion(), out.get("version"));
    assertTrue(
        Paths.get(out.get("loadedFrom")).getFileName().toString().startsWith("libtalusjni-"),
        "extracted from the jar: " + out);
  }

  @Test
  void propertyNamingADirectoryLoadsFromThere() throws Exception {
    final Path library = copyLibraryOutOfTheJar(tempDir);
    final Map<String, String> out = runChild(0, tempDir.toString(), "load");
    assertEquals(library, Paths.get(out.get("loadedFrom")).toRealPath());
    assertEquals(NativeLibraryTest.cargoWorkspaceVersion(), out.get("version"));
  }

  @Test
  void propertyNamingTheFileLoadsIt() throws Exception {
    final Path library = copyLibraryOutOfTheJar(tempDir);
    final Map<String, String> out = runChild(0, library.toString(), "load");
    assertEquals(library, Paths.get(out.get("loadedFrom")).toRealPath());
  }

  @Test
  void badPropertyFailsWithAClearMessage() throws Exception {
    final Path missing = tempDir.resolve("no-such-dir");
    final Map<String, String> out = runChild(3, missing.toString(), "load");
    final String error = out.get("error");
    final String platform = NativeLibrary.platform();
    assertTrue(error.contains("platform " + platform), error);
    assertTrue(error.contains(NativeLibrary.resourcePath(platform)), error);
    assertTrue(error.contains(NativeLibrary.LIBRARY_PATH_PROPERTY + "=" + missing), error);
  }

  @Test
  void loadLibraryWithDirectoriesLoadsFromTheFirstThatHoldsIt() throws Exception {
    final Path empty = Files.createDirectories(tempDir.resolve("empty"));
    final Path holder = Files.createDirectories(tempDir.resolve("holder"));
    final Path library = copyLibraryOutOfTheJar(holder);
    final Map<String, String> out =
        runChild(0, null, "dirs=" + tempDir.resolve("missing") + "," + empty + "," + holder);
    assertEquals(library, Paths.get(out.get("loadedFrom")).toRealPath());
    assertEquals("1", out.get("loadCount"));
  }

  @Test
  void loadLibraryWithDirectoriesWithoutTheLibraryFailsNamingThem() throws Exception {
    final Path empty = Files.createDirectories(tempDir.resolve("empty"));
    final Map<String, String> out = runChild(3, null, "dirs=" + empty);
    assertTrue(out.get("error").contains(empty.toString()), out.toString());
    assertTrue(out.get("error").contains(NativeLibrary.fileName()), out.toString());
  }

  /** Copies the library resource of this platform to {@code dir}, under its platform name. */
  private static Path copyLibraryOutOfTheJar(final Path dir) throws IOException {
    final Path target = dir.resolve(NativeLibrary.fileName());
    try (InputStream in =
        NativeLibrary.class.getResourceAsStream(
            NativeLibrary.resourcePath(NativeLibrary.platform()))) {
      Files.copy(in, target);
    }
    return target.toRealPath();
  }

  /** Runs {@link LoaderChild} in a new JVM (with {@code -Xcheck:jni}) in {@code mode}. */
  private static Map<String, String> runChild(
      final int expectedExit, final String libraryPath, final String mode) throws Exception {
    final List<String> flags = new ArrayList<>();
    flags.add("-Xcheck:jni");
    if (libraryPath != null) {
      flags.add("-D" + NativeLibrary.LIBRARY_PATH_PROPERTY + "=" + libraryPath);
    }
    return ChildJvm.run(expectedExit, flags, LoaderChild.class, mode);
  }
}
