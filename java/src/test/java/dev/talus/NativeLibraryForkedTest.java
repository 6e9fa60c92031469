package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

  /**
   * Runs {@link LoaderChild} in a new JVM with the jar and the test classes on its class path,
   * and returns its {@code key=value} output lines.
   */
  private static Map<String, String> runChild(
      final int expectedExit, final String libraryPath, final String mode) throws Exception {
    final List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xcheck:jni");
    if (libraryPath != null) {
      command.add("-D" + NativeLibrary.LIBRARY_PATH_PROPERTY + "=" + libraryPath);
    }
    command.add("-cp");
    command.add(codeSource(NativeLibrary.class) + File.pathSeparator + codeSource(LoaderChild.class));
    command.add(LoaderChild.class.getName());
    command.add(mode);

    final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child JVM did not exit");
    assertEquals(expectedExit, child.exitValue(), "child output:\n" + output);

    final Map<String, String> values = new HashMap<>();
    for (final String line : output.split("\\R")) {
      final int eq = line.indexOf('=');
      if (eq > 0) {
        values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return values;
  }

  private static String codeSource(final Class<?> type) throws URISyntaxException {
    return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }
}
