package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a test main class in a fresh JVM, for what must start from a clean process (library
 * loading, process-wide settings), and collects the {@code key=value} lines it prints.
 */
final class ChildJvm {
  private ChildJvm() {}

  /**
   * Runs {@code main} with the library jar and the test classes on its class path, waits up to 60
   * s and checks its exit status.
   *
   * @param expectedExit the exit status the child must end with
   * @param jvmFlags flags before {@code -cp} (e.g. {@code -Xcheck:jni}, {@code -Dname=value})
   * @param main the class whose {@code main} runs
   * @param args its arguments
   * @return the child's {@code key=value} output lines
   */
  static Map<String, String> run(
      final int expectedExit, final List<String> jvmFlags, final Class<?> main,
      final String... args) throws Exception {
    return run(expectedExit, List.of(), jvmFlags, main, args);
  }

  /**
   * {@link #run(int, List, Class, String...)} with {@code launcher} before the {@code java}
   * command (e.g. {@code setpriv} options that run the child as another user).
   */
  static Map<String, String> run(
      final int expectedExit, final List<String> launcher, final List<String> jvmFlags,
      final Class<?> main, final String... args) throws Exception {
    final List<String> command = new ArrayList<>(launcher);
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    // A child that crashes writes its report under target/, not into the module's folder.
    command.add("-XX:ErrorFile=" + Paths.get("target", "hs_err_child_pid%p.log").toAbsolutePath());
    command.addAll(jvmFlags);
    command.add("-cp");
    command.add(codeSource(NativeLibrary.class) + File.pathSeparator + codeSource(main));
    command.add(main.getName());
    command.addAll(List.of(args));

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

  private static String codeSource(final Class<?> type) throws Exception {
    return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }
}
