package dev.talus;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Main class of the child JVM started by {@link EnvTest}: lowering a pool's CPU priority is
 * process-wide, so it happens in a process of its own. Opens a database at {@code args[0]}, runs
 * one automatic compaction, lowers {@link Priority#LOW}, runs another, and prints {@code
 * key=value} lines with the nice values of the pool threads after each.
 */
public final class EnvChild {
  private EnvChild() {}

  /**
   * @param args the database folder
   * @throws Exception on an unexpected failure (exit code 1)
   */
  public static void main(final String[] args) throws Exception {
    final Env env = Env.getDefault();
    try (Options options =
            new Options()
                .setCreateIfMissing(true)
                .setEnv(env)
                .setLevel0FileNumCompactionTrigger(2);
        TalusDB db = TalusDB.open(options, args[0])) {
      System.out.println("base=" + niceOfThisThread());
      System.out.println("loweredBefore=" + env.isThreadPoolCPUPriorityLowered(Priority.LOW));
      compactTwoTables(db, "a");
      System.out.println("compactBefore=" + nices("talus-compact"));
      env.lowerThreadPoolCPUPriority(Priority.LOW);
      System.out.println("loweredAfter=" + env.isThreadPoolCPUPriorityLowered(Priority.LOW));
      System.out.println("highLowered=" + env.isThreadPoolCPUPriorityLowered(Priority.HIGH));
      compactTwoTables(db, "b");
      System.out.println("compactAfter=" + nices("talus-compact"));
      System.out.println("flushAfter=" + nices("talus-flush"));
    }
  }

  /** Flushes two tables to L0 and waits until the automatic compaction has merged them. */
  private static void compactTwoTables(final TalusDB db, final String prefix) throws Exception {
    try (FlushOptions wait = new FlushOptions().setWaitForFlush(true)) {
      for (int t = 0; t < 2; t++) {
        db.put(
            (prefix + t).getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
        db.flush(wait);
      }
    }
    final long deadline = System.nanoTime() + 30_000_000_000L;
    while (!"0".equals(db.getProperty("rocksdb.num-files-at-level0"))) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the compaction of two L0 tables did not run in 30 s");
      }
      Thread.sleep(10);
    }
  }

  /** The nice value of the calling thread (the priority the pool threads start with). */
  static int niceOfThisThread() throws Exception {
    return nice(Files.readString(Paths.get("/proc/thread-self/stat")));
  }

  private static int nice(final String stat) {
    // Fields after the name start at field 3 (state); nice is field 19.
    final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(fields[19 - 3]);
  }

  /** The nice values of this process's threads whose name starts with {@code prefix}. */
  static List<Integer> nices(final String prefix) throws Exception {
    final List<Integer> out = new ArrayList<>();
    try (Stream<Path> tasks = Files.list(Paths.get("/proc/self/task"))) {
      for (final Path task : (Iterable<Path>) tasks::iterator) {
        final String stat = Files.readString(task.resolve("stat"));
        final String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (name.startsWith(prefix)) {
          out.add(nice(stat));
        }
      }
    }
    out.sort(null);
    return out;
  }
}
