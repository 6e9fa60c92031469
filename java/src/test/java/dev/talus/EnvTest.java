package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** {@link Env}: the pools' CPU priority, lowered in a child JVM (it is process-wide). */
class EnvTest {
  @TempDir Path tempDir;

  @Test
  void badPoolsAreRejectedWithoutChangingAnything() {
    final Env env = Env.getDefault();
    final IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> env.lowerThreadPoolCPUPriority(Priority.TOTAL));
    assertTrue(e.getMessage().contains("not a thread pool"), e.getMessage());
    assertThrows(NullPointerException.class, () -> env.lowerThreadPoolCPUPriority(null));
    assertThrows(
        IllegalArgumentException.class, () -> env.isThreadPoolCPUPriorityLowered(Priority.TOTAL));
    assertSame(env, Env.getDefault());
    try (Options options = new Options()) {
      assertSame(options, options.setEnv(env));
      assertSame(env, options.getEnv());
      assertThrows(NullPointerException.class, () -> options.setEnv(null));
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void loweringTheLowPoolRenicesCompactionThreadsOfAnOpenDatabaseOnly() throws Exception {
    final Map<String, String> out = runChild(tempDir.resolve("db").toString());
    final int base = Integer.parseInt(out.get("base"));
    assumeTrue(base < 19, "the tests already run at nice " + base + ": nothing to lower");
    assertEquals("false", out.get("loweredBefore"));
    final List<Integer> before = parse(out.get("compactBefore"));
    assertTrue(!before.isEmpty() && before.stream().allMatch(n -> n == base), out.toString());
    assertEquals("true", out.get("loweredAfter"));
    assertEquals("false", out.get("highLowered"));
    // The thread that ran the second compaction lowered itself before that job.
    assertTrue(parse(out.get("compactAfter")).contains(19), out.toString());
    assertTrue(parse(out.get("flushAfter")).stream().allMatch(n -> n == base), out.toString());
  }

  private static List<Integer> parse(final String list) {
    final String inner = list.substring(1, list.length() - 1).trim();
    return inner.isEmpty()
        ? List.of()
        : java.util.Arrays.stream(inner.split(",\\s*")).map(Integer::valueOf).toList();
  }

  private static Map<String, String> runChild(final String db) throws Exception {
    return ChildJvm.run(0, List.of(), EnvChild.class, db);
  }
}
