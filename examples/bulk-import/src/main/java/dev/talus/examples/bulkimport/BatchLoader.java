package dev.talus.examples.bulkimport;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The read benchmark's load: the fast path of a bulk load, the same on both engines. Loader
 * threads claim batches of consecutive row indices, put each batch's rows ({@link Rows}) into
 * one write batch and write it with the WAL disabled; then one flush makes everything durable,
 * {@code compactRange()} compacts the whole key space, and the loader waits until no flush or
 * compaction is pending or running. The database then holds every row once, fully compacted.
 */
final class BatchLoader {
  private BatchLoader() {}

  /**
   * Writes rows {@code [0, total)}.
   *
   * @return seconds of the writes (the flush not included)
   */
  static double load(Engine engine, Rows rows, long total, int threads, int batchSize,
      PrintStream out) throws Exception {
    AtomicLong next = new AtomicLong();
    AtomicLong done = new AtomicLong();
    AtomicReference<Throwable> error = new AtomicReference<>();
    long t0 = System.nanoTime();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> {
        byte[][] keys = new byte[batchSize][rows.keySize()];
        byte[][] values = new byte[batchSize][rows.valueSize()];
        try {
          while (error.get() == null) {
            long start = next.getAndAdd(batchSize);
            if (start >= total) {
              return;
            }
            int n = (int) Math.min(batchSize, total - start);
            for (int i = 0; i < n; i++) {
              rows.key(start + i, keys[i]);
              rows.value(keys[i], values[i]);
            }
            engine.writeBatch(keys, values, n, true);
            done.addAndGet(n);
          }
        } catch (Throwable e) {
          error.compareAndSet(null, e);
        }
      }, "loader-" + t);
      ts.add(th);
      th.start();
    }
    long lastPrint = System.nanoTime();
    for (Thread th : ts) {
      while (th.isAlive()) {
        th.join(1000);
        long now = System.nanoTime();
        if (now - lastPrint >= 5_000_000_000L) {
          lastPrint = now;
          long d = done.get();
          out.printf("load: %s/%s rows, %s rows/s%n", Fmt.count(d), Fmt.count(total),
              Fmt.count((long) (d / ((now - t0) / 1e9))));
        }
      }
    }
    Throwable e = error.get();
    if (e != null) {
      if (e instanceof Exception ex) {
        throw ex;
      }
      throw new RuntimeException(e);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /**
   * Flushes, compacts the whole key space and waits until the engine has no flush or compaction
   * pending or running (RocksJava has no wait-for-compactions call, so both engines are polled
   * through the same properties).
   *
   * @return seconds taken
   */
  static double flushAndCompact(Engine engine) throws Exception {
    long t0 = System.nanoTime();
    engine.flush();
    engine.compactRange();
    waitIdle(engine);
    return (System.nanoTime() - t0) / 1e9;
  }

  static void waitIdle(Engine engine) throws Exception {
    while (engine.longProperty("rocksdb.mem-table-flush-pending") != 0
        || engine.longProperty("rocksdb.num-running-flushes") != 0
        || engine.longProperty("rocksdb.compaction-pending") != 0
        || engine.longProperty("rocksdb.num-running-compactions") != 0) {
      Thread.sleep(100);
    }
  }

  /** @return table files per level, L0 first, up to the last level the engine reports */
  static List<Long> levelFiles(Engine engine) throws Exception {
    List<Long> files = new ArrayList<>();
    for (int level = 0; level < 64; level++) {
      String v;
      try {
        v = engine.property("rocksdb.num-files-at-level" + level);
      } catch (Exception e) {
        break; // past the last level: both engines refuse the property
      }
      if (v == null || v.isBlank()) {
        break;
      }
      files.add(Long.parseLong(v.trim()));
    }
    return files;
  }
}
