package dev.talus.examples.bulkimport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * The bulk import with {@code threads} writers: each claims rows in chunks from a shared
 * counter, computes key and value from the row index ({@link Rows}) into buffers it reuses, and
 * puts them. Nothing is kept per row.
 *
 * <p>The flush rhythm: the writer whose put completes row number {@code n * flushEvery} (counted
 * over all writers, as an importer's {@code ++rowCounter % 500_000 == 0}) flushes and waits, then
 * reads {@code rocksdb.num-files-at-level0}; at {@code l0Backpressure} files or more, every writer
 * sleeps {@code backpressureSleepMs} (an importer's single loop sleeping pauses the whole import, so
 * here all writers pause). After the last row, one final flush.
 *
 * <p>Put latency is {@code System.nanoTime()} around each put, recorded into one HdrHistogram
 * {@link SingleWriterRecorder} per writer (no contention); the sampler drains them each second.
 * Flush waits and back-pressure sleeps are not put latency and are counted apart.
 */
final class Importer {
  /** Puts slower than this are counted one by one. */
  static final long SLOW_PUT_NANOS = 50_000_000L;
  /** Writer threads are named this and their number ({@link CpuWait} finds them by it). */
  static final String WRITER_THREAD_PREFIX = "writer-";
  /** Highest latency the histograms track: one hour. */
  static final long HIGHEST_NANOS = 3_600_000_000_000L;

  private static final int CHUNK = 1024;
  private static final int PUBLISH_EVERY = 256;

  private final Engine engine;
  private final Rows rows;
  private final long total;
  private final int threads;
  private final long flushEvery;
  private final int l0Backpressure;
  private final long sleepNanos;

  final AtomicLong done = new AtomicLong();
  private final AtomicLong next = new AtomicLong();
  final AtomicLong flushes = new AtomicLong();
  final AtomicLong flushNanos = new AtomicLong();
  final AtomicLong backpressureSleeps = new AtomicLong();
  /** CPU time of the writer threads, added by each as it ends (user and system, nanoseconds). */
  final AtomicLong writersCpuNanos = new AtomicLong();
  private volatile long pauseUntil;
  private volatile boolean failed;
  private final AtomicReference<Throwable> error = new AtomicReference<>();
  final List<Writer> writers = new ArrayList<>();
  /**
   * {@code --mode ingest}: where the writers put their table files (null: {@code put} and {@code
   * bulk-load} modes, rows go through {@code put}).
   */
  private java.nio.file.Path sstDir;

  /** Rows per table file in {@code --mode ingest}: each writer's chunk, sorted. */
  static final int INGEST_CHUNK = 1 << 17;

  /** Bytes of the table files ingested ({@code --mode ingest}). */
  final AtomicLong ingestedBytes = new AtomicLong();

  /** Makes the writers write sorted table files into {@code dir} and ingest them. */
  void ingestVia(java.nio.file.Path dir) {
    this.sstDir = dir;
  }

  /** One writer thread's recorder and published counters. */
  final class Writer implements Runnable {
    final SingleWriterRecorder recorder = new SingleWriterRecorder(1, HIGHEST_NANOS, 3);
    /** Slow puts, then the stall fields of {@link Engine} from index 1. */
    final AtomicLongArray counters = new AtomicLongArray(1 + Engine.STALL_FIELDS);
    private final long[] stalls = new long[Engine.STALL_FIELDS];

    @Override
    public void run() {
      try {
        engine.startWriterThread();
        if (sstDir != null) {
          ingestChunks();
          return;
        }
        byte[] key = new byte[rows.keySize()];
        byte[] value = new byte[rows.valueSize()];
        long slow = 0;
        int sincePublish = 0;
        while (!failed) {
          long start = next.getAndAdd(CHUNK);
          if (start >= total) {
            break;
          }
          long end = Math.min(total, start + CHUNK);
          for (long i = start; i < end && !failed; i++) {
            rows.key(i, key);
            rows.value(key, value);
            long pause = pauseUntil;
            if (pause != 0) {
              long wait = pause - System.nanoTime();
              if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
              }
            }
            long t0 = System.nanoTime();
            engine.put(key, value);
            long dt = System.nanoTime() - t0;
            recorder.recordValue(Math.min(Math.max(dt, 1), HIGHEST_NANOS));
            if (dt > SLOW_PUT_NANOS) {
              counters.lazySet(0, ++slow);
            }
            long n = done.incrementAndGet();
            if (n % flushEvery == 0) {
              flushAndCheck();
            }
            if (++sincePublish >= PUBLISH_EVERY) {
              sincePublish = 0;
              publishStalls();
            }
          }
        }
        publishStalls();
      } catch (Throwable t) {
        error.compareAndSet(null, t);
        failed = true;
      } finally {
        writersCpuNanos.addAndGet(CpuWait.currentThreadCpuNanos());
      }
    }

    /**
     * {@code --mode ingest}: takes chunks of {@link #INGEST_CHUNK} rows, sorts each by key, writes
     * it as one table file and ingests it. Each file's ingestion is timed as one "put" in the
     * latency histogram (per file, not per row).
     *
     * <p>A key is a function of its row's 64-bit id alone, and keys sort as their ids do as
     * unsigned integers ({@link Rows#keyOfId}); so the chunk is sorted as a {@code long[]} of ids
     * (sign bit flipped, so that the signed sort is the unsigned order) and each row is computed
     * from its id as the table file is written, into two buffers: no array of rows, no boxed
     * index, no comparator call per comparison.
     */
    private void ingestChunks() throws Exception {
      int chunk = INGEST_CHUNK;
      long[] ids = new long[chunk];
      int[] count = new int[1];
      Engine.SortedRows sorted = new Engine.SortedRows() {
        @Override
        public int count() {
          return count[0];
        }

        @Override
        public void row(int i, byte[] key, byte[] value) {
          rows.keyOfId(ids[i] ^ Long.MIN_VALUE, key);
          rows.value(key, value);
        }

        @Override
        public int keySize() {
          return rows.keySize();
        }

        @Override
        public int valueSize() {
          return rows.valueSize();
        }
      };
      while (!failed) {
        long start = next.getAndAdd(chunk);
        if (start >= total) {
          break;
        }
        int n = (int) Math.min(chunk, total - start);
        for (int i = 0; i < n; i++) {
          ids[i] = rows.id(start + i) ^ Long.MIN_VALUE;
        }
        java.util.Arrays.sort(ids, 0, n);
        count[0] = n;
        String file = sstDir.resolve("chunk-" + start + ".sst").toString();
        long t0 = System.nanoTime();
        ingestedBytes.addAndGet(engine.ingestSorted(sorted, file));
        long dt = System.nanoTime() - t0;
        recorder.recordValue(Math.min(Math.max(dt, 1), HIGHEST_NANOS));
        done.addAndGet(n);
      }
    }

    private void publishStalls() {
      if (engine.hasThreadStalls()) {
        engine.readThreadStalls(stalls);
        for (int f = 0; f < stalls.length; f++) {
          counters.lazySet(1 + f, stalls[f]);
        }
      }
    }

    long slowPuts() {
      return counters.get(0);
    }

    long stall(int field) {
      return counters.get(1 + field);
    }
  }

  Importer(Engine engine, Rows rows, long total, int threads, long flushEvery, int l0Backpressure,
      long backpressureSleepMs) {
    this.engine = engine;
    this.rows = rows;
    this.total = total;
    this.threads = threads;
    this.flushEvery = flushEvery;
    this.l0Backpressure = l0Backpressure;
    this.sleepNanos = backpressureSleepMs * 1_000_000L;
    for (int t = 0; t < threads; t++) {
      writers.add(new Writer());
    }
  }

  private void flushAndCheck() throws Exception {
    long t0 = System.nanoTime();
    engine.flush();
    flushNanos.addAndGet(System.nanoTime() - t0);
    flushes.incrementAndGet();
    int l0 = Integer.parseInt(engine.property("rocksdb.num-files-at-level0").trim());
    if (l0 >= l0Backpressure) {
      backpressureSleeps.incrementAndGet();
      pauseUntil = System.nanoTime() + sleepNanos;
      Thread.sleep(sleepNanos / 1_000_000, (int) (sleepNanos % 1_000_000));
    }
  }

  /**
   * Runs the writers to the end, then the final flush.
   *
   * @throws Exception the first error of any writer, or of the final flush
   */
  void run() throws Exception {
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(writers.get(t), WRITER_THREAD_PREFIX + t);
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) {
      th.join();
    }
    Throwable t = error.get();
    if (t != null) {
      if (t instanceof Exception e) {
        throw e;
      }
      throw new RuntimeException(t);
    }
    long t0 = System.nanoTime();
    engine.flush();
    flushNanos.addAndGet(System.nanoTime() - t0);
    flushes.incrementAndGet();
  }

  /** Moves every writer's latencies since the last call into {@code interval}. */
  void drainLatencies(Histogram interval, Histogram[] recycle) {
    interval.reset();
    for (int w = 0; w < writers.size(); w++) {
      recycle[w] = writers.get(w).recorder.getIntervalHistogram(recycle[w]);
      interval.add(recycle[w]);
    }
  }

  long slowPuts() {
    long s = 0;
    for (Writer w : writers) {
      s += w.slowPuts();
    }
    return s;
  }

  long writerStall(int field) {
    long s = 0;
    for (Writer w : writers) {
      s += w.stall(field);
    }
    return s;
  }
}
