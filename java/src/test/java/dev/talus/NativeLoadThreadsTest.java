package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The thread that loads the library may end at any time: Java applications make their first
 * Talus call on pool workers, {@code ForkJoinPool} threads or a test runner's threads. The native
 * library's allocator must keep working on every thread created after that one ended (its
 * per-thread state is set up on a thread's first allocation and torn down when the thread
 * exits). Each scenario runs in a new JVM ({@link ThreadsChild}), where its first call is the
 * one that loads the library; a crash of that JVM fails the test with its output.
 */
class NativeLoadThreadsTest {
  @TempDir Path tempDir;

  /**
   * The bundled allocator took the loading thread for the process's main thread; once it ended,
   * the next new thread's first allocation dereferenced the freed state of the dead one (SIGSEGV
   * in {@code mi_thread_init}), 10 times in 10.
   */
  @Test
  void regression_firstCallOnAThreadThatEndedCrashedTheJvmOnTheNextThread() throws Exception {
    final Map<String, String> out = runChild("short-lived");
    assertEquals("true", out.get("firstCallThreadEnded"));
    assertEquals("20", out.get("rounds"));
    assertEquals("1", out.get("loadCount"));
  }

  @Test
  void databasesOpenedLazilyOnPoolWorkersThatRetire() throws Exception {
    final Map<String, String> out = runChild("pool");
    assertEquals("20", out.get("poolRounds"));
    assertEquals("10", out.get("forkJoinRounds"));
  }

  @Test
  void thousandsOfThreadsEachMakingOneCallAfterTheLoadingThreadEnded() throws Exception {
    final Map<String, String> out = runChild("churn", "3000");
    assertEquals("3000", out.get("churnThreads"));
  }

  /** The same churn in the test JVM, whichever thread of the suite loaded the library. */
  @Test
  void thousandsOfShortLivedThreadsInThisJvm() throws Exception {
    try (TalusDB db = TalusDB.open(tempDir.resolve("db").toString())) {
      final AtomicReference<Throwable> failure = new AtomicReference<>();
      final List<Thread> alive = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        final int n = i;
        final Thread t =
            new Thread(
                () -> {
                  try {
                    if (n % 2 == 0) {
                      db.put(ThreadsChild.key(n), ThreadsChild.key(n));
                    } else {
                      new Statistics().close();
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                });
        t.start();
        alive.add(t);
        if (alive.size() == 4) {
          alive.remove(0).join();
        }
      }
      for (final Thread t : alive) {
        t.join();
      }
      assertNull(failure.get());
      for (int i = 0; i < 2000; i += 2) {
        ThreadsChild.check(db, i);
      }
    }
  }

  private Map<String, String> runChild(final String... args) throws Exception {
    final List<String> childArgs = new ArrayList<>();
    childArgs.add(args[0]);
    childArgs.add(tempDir.toString());
    for (int i = 1; i < args.length; i++) {
      childArgs.add(args[i]);
    }
    return ChildJvm.run(
        0,
        List.of("-Xcheck:jni", "-Djava.io.tmpdir=" + tempDir),
        ThreadsChild.class,
        childArgs.toArray(new String[0]));
  }
}
