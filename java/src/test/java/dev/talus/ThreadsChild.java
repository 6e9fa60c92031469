package dev.talus;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Main class of the child JVMs started by {@link NativeLoadThreadsTest}: each child starts with
 * the library not loaded, makes its first Talus call on a thread that then ends, and goes on
 * calling from new threads. Prints {@code key=value} lines; exits 0 when every call worked. A
 * broken allocator crashes the JVM instead (SIGSEGV), which the parent sees as the exit status.
 */
public final class ThreadsChild {
  private ThreadsChild() {}

  /**
   * Modes: {@code short-lived} (first call on a thread that ends, then one thread after another),
   * {@code pool} (databases opened lazily on pool workers that retire), {@code churn} (thousands
   * of threads that each make one call).
   *
   * @param args the mode and a directory for databases
   * @throws Exception on an unexpected failure (exit code 1)
   */
  public static void main(final String[] args) throws Exception {
    final Path dir = Paths.get(args[1]);
    if (NativeLibrary.loadCount() != 0) {
      throw new AssertionError("the library must not be loaded before the first call below");
    }
    switch (args[0]) {
      case "short-lived":
        shortLived(dir);
        break;
      case "pool":
        pool(dir);
        break;
      case "churn":
        churn(dir, Integer.parseInt(args[2]));
        break;
      default:
        throw new IllegalArgumentException("mode " + args[0]);
    }
    System.out.println("loadCount=" + NativeLibrary.loadCount());
  }

  /** The reproduction: the loading thread ends, then each new thread calls once more. */
  private static void shortLived(final Path dir) throws Exception {
    runOnNewThread(() -> new Statistics().close());
    System.out.println("firstCallThreadEnded=true");
    int calls = 0;
    for (int i = 0; i < 20; i++) {
      runOnNewThread(() -> new Statistics().close());
      final int round = i;
      runOnNewThread(
          () -> {
            try (TalusDB db = TalusDB.open(dir.resolve("db-" + round).toString())) {
              db.put(key(round), key(round));
              check(db, round);
            }
          });
      calls++;
    }
    System.out.println("rounds=" + calls);
  }

  /**
   * A database opened lazily by a pool worker with a short keep-alive: the worker that loaded the
   * library retires, and the next task runs on a new worker. Then the same on ForkJoinPools.
   */
  private static void pool(final Path dir) throws Exception {
    final AtomicReference<TalusDB> db = new AtomicReference<>();
    final ThreadPoolExecutor pool =
        new ThreadPoolExecutor(0, 2, 1, TimeUnit.MILLISECONDS, new SynchronousQueue<>());
    int rounds = 0;
    try {
      for (int i = 0; i < 20; i++) {
        final int round = i;
        final Future<?> task =
            pool.submit(
                () -> {
                  // Lazily opened, and reopened every fifth round, on whatever worker runs.
                  if (db.get() == null || round % 5 == 0) {
                    final TalusDB old = db.getAndSet(null);
                    if (old != null) {
                      old.close();
                    }
                    db.set(TalusDB.open(dir.resolve("pool-db").toString()));
                  }
                  db.get().put(key(round), key(round));
                  for (int k = 0; k <= round; k++) {
                    check(db.get(), k);
                  }
                  return null;
                });
        task.get(60, TimeUnit.SECONDS);
        waitUntilRetired(pool);
        rounds++;
      }
    } finally {
      pool.shutdown();
      final TalusDB last = db.getAndSet(null);
      if (last != null) {
        last.close();
      }
    }
    System.out.println("poolRounds=" + rounds);
    for (int i = 0; i < 10; i++) {
      final ForkJoinPool fj = new ForkJoinPool(2);
      final int round = i;
      fj.submit(
              () -> {
                try (TalusDB d = TalusDB.open(dir.resolve("fj-db-" + round).toString())) {
                  d.put(key(round), key(round));
                  check(d, round);
                } catch (TalusException e) {
                  throw new IllegalStateException(e);
                }
              })
          .get(60, TimeUnit.SECONDS);
      fj.shutdown();
      if (!fj.awaitTermination(60, TimeUnit.SECONDS)) {
        throw new AssertionError("ForkJoinPool workers did not end");
      }
    }
    System.out.println("forkJoinRounds=10");
  }

  /**
   * {@code threads} threads, at most two alive at once, each making one Talus call: a new
   * Statistics, a put, or a get of a value an earlier thread wrote.
   */
  private static void churn(final Path dir, final int threads) throws Exception {
    final AtomicReference<TalusDB> db = new AtomicReference<>();
    runOnNewThread(() -> db.set(TalusDB.open(dir.resolve("churn-db").toString())));
    final List<Thread> alive = new ArrayList<>();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    try {
      for (int i = 0; i < threads; i++) {
        final int n = i;
        final Thread t =
            new Thread(
                () -> {
                  try {
                    switch (n % 3) {
                      case 0:
                        new Statistics().close();
                        break;
                      case 1:
                        db.get().put(key(n), key(n));
                        break;
                      default:
                        if (n >= 5) {
                          check(db.get(), n - 4); // n - 4 is 1 mod 3: a put thread, ended
                        } else {
                          NativeLibrary.version();
                        }
                        break;
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "churn-" + n);
        t.start();
        alive.add(t);
        // Joins thread n - 1 before thread n + 1 starts: every thread up to n - 2 has ended
        // when thread n starts, so its get of key n - 4 sees the put.
        if (alive.size() == 2) {
          alive.remove(0).join();
        }
      }
      for (final Thread t : alive) {
        t.join();
      }
    } finally {
      db.get().close();
    }
    if (failure.get() != null) {
      throw new AssertionError("a churn thread failed", failure.get());
    }
    System.out.println("churnThreads=" + threads);
  }

  /** What a worker runs; may throw. */
  interface Body {
    void run() throws Exception;
  }

  /** Runs {@code body} on a new thread and waits until that thread has ended. */
  static void runOnNewThread(final Body body) throws Exception {
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Throwable e) {
                failure.set(e);
              }
            });
    t.start();
    t.join();
    if (failure.get() != null) {
      throw new AssertionError("the thread failed", failure.get());
    }
  }

  private static void waitUntilRetired(final ThreadPoolExecutor pool) throws InterruptedException {
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (pool.getPoolSize() > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("pool workers did not retire");
      }
      Thread.sleep(1);
    }
  }

  static byte[] key(final int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  static void check(final TalusDB db, final int i) throws TalusException {
    final byte[] v = db.get(key(i));
    if (v == null || !new String(v, StandardCharsets.UTF_8).equals("key-" + i)) {
      throw new AssertionError("key-" + i + " read back as " + (v == null ? null : new String(v)));
    }
  }
}
