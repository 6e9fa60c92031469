package dev.talus.examples.bulkimport;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The read workloads of {@link ReadBench}: reader threads call one read of the engine's Java API
 * back to back for a fixed time, each timing every call into its own histogram.
 *
 * <p>Keys are those of {@link Rows}: a present key is the key of a random row index below the
 * row count; an absent key is the key of a random index under another seed (a different
 * bijection: it collides with a present key with probability about rows² / 2⁶⁴). Every value
 * read is checked cheaply (its length, and its first 8 bytes against the checksum of its key),
 * and every 64th one byte for byte; a full scan must see exactly the row count. Any mismatch is
 * counted as wrong, and fails the run.
 *
 * <p>The random sequence of each thread depends only on the seed, the workload and the thread's
 * number, so both engines read the same keys in the same order.
 */
final class ReadWorkloads {
  /** Reader threads are named this and their number ({@link CpuWait} finds them by it). */
  static final String THREAD_PREFIX = "reader-";
  /** Keys per multiGetAsList call. */
  static final int MULTIGET_KEYS = 64;
  /** Entries a short range scan reads: the one its seek lands on, and 50 nexts. */
  static final int RANGE_ENTRIES = 51;
  private static final long ABSENT_SALT = 0x5DEECE66DL;
  /**
   * Every value read is checked by its length and its first 8 bytes (its key's checksum); one value
   * in this many, counted per value read, is also regenerated and compared byte for byte. Counted
   * per value, not per operation: a full scan is one operation, so a count of operations would
   * compare every value of a reader's first scan (at 20M rows, its whole timed run).
   */
  private static final int FULL_CHECK_EVERY = 64;

  /** One read workload. */
  enum Workload {
    /** {@code get(byte[])} of a present key. */
    GET_PRESENT("get-present"),
    /** {@code get(byte[])} of an absent key (the Bloom filter's case). */
    GET_ABSENT("get-absent"),
    /** {@code multiGetAsList} of 64 present keys. */
    MULTIGET("multiget"),
    /** {@code get(ReadOptions, ByteBuffer, ByteBuffer)} of a present key, direct buffers. */
    GET_DIRECT("get-direct"),
    /** A new iterator, {@code seekToFirst}, then {@code next} to the end; key() and value(). */
    SCAN_FORWARD("scan-forward"),
    /** A new iterator, {@code seekToLast}, then {@code prev} to the start. */
    SCAN_REVERSE("scan-reverse"),
    /** A new iterator, {@code seek} to a present key, then 50 {@code next}s. */
    SCAN_RANGE("scan-range");

    final String label;

    Workload(String label) {
      this.label = label;
    }

    boolean fullScan() {
      return this == SCAN_FORWARD || this == SCAN_REVERSE;
    }

    static Workload parse(String s) {
      for (Workload w : values()) {
        if (w.label.equalsIgnoreCase(s) || w.name().equalsIgnoreCase(s)) {
          return w;
        }
      }
      throw new IllegalArgumentException("unknown read workload '" + s + "' (one of "
          + Arrays.stream(values()).map(w -> w.label).toList() + ")");
    }
  }

  private final Engine engine;
  private final Rows rows;
  private final Rows absent;
  private final long rowCount;
  private final long seed;
  private final boolean statistics;

  ReadWorkloads(Engine engine, Rows rows, long rowCount, long seed, boolean statistics) {
    this.engine = engine;
    this.rows = rows;
    this.absent = rows.withSeed(seed ^ ABSENT_SALT);
    this.rowCount = rowCount;
    this.seed = seed;
    this.statistics = statistics;
  }

  /** What one reader thread counted. */
  private static final class Counts {
    final Histogram latency = new Histogram(1, Importer.HIGHEST_NANOS, 3);
    long ops;
    long entries;
    long wrong;
  }

  /**
   * Runs {@code workload} on {@code threads} reader threads for {@code seconds}.
   *
   * @return the result; its machine figures cover the timed part only
   * @throws Exception the first error of any reader
   */
  ReadSummary.ReadResult run(Workload workload, int threads, double seconds) throws Exception {
    Counts[] counts = new Counts[threads];
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(threads);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> error = new AtomicReference<>();
    long[] deadline = new long[1];
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Counts c = new Counts();
      counts[t] = c;
      int number = t;
      Thread th = new Thread(() -> {
        try {
          Reader r = new Reader(workload, number, c);
          ready.countDown();
          go.await();
          r.loop(deadline[0]);
        } catch (Throwable e) {
          error.compareAndSet(null, e);
        } finally {
          // Alive until the main thread has read the run-queue wait of every reader.
          finished.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }, THREAD_PREFIX + t);
      th.setDaemon(true);
      ts.add(th);
      th.start();
    }
    ready.await();
    MachineMeter.Snapshot before = MachineMeter.snapshot(engine, statistics, THREAD_PREFIX);
    long t0 = System.nanoTime();
    deadline[0] = t0 + (long) (seconds * 1e9);
    go.countDown(); // publishes deadline[0] to the readers (happens-before through the latch)
    finished.await();
    long t1 = System.nanoTime();
    MachineMeter.Snapshot after = MachineMeter.snapshot(engine, statistics, THREAD_PREFIX);
    release.countDown();
    for (Thread th : ts) {
      th.join();
    }
    Throwable e = error.get();
    if (e != null) {
      if (e instanceof Exception ex) {
        throw ex;
      }
      throw new RuntimeException(e);
    }

    Histogram all = new Histogram(1, Importer.HIGHEST_NANOS, 3);
    ReadSummary.ReadResult r = new ReadSummary.ReadResult();
    r.workload = workload.label;
    r.threads = threads;
    r.seconds = (t1 - t0) / 1e9;
    for (Counts c : counts) {
      all.add(c.latency);
      r.ops += c.ops;
      r.entries += c.entries;
      r.wrong += c.wrong;
    }
    r.entriesPerSecond = r.entries / r.seconds;
    r.opsPerSecond = workload.fullScan() ? r.entries / (double) rowCount / r.seconds
        : r.ops / r.seconds;
    if (all.getTotalCount() > 0) {
      r.p50Micros = all.getValueAtPercentile(50) / 1000.0;
      r.p99Micros = all.getValueAtPercentile(99) / 1000.0;
      r.p999Micros = all.getValueAtPercentile(99.9) / 1000.0;
      r.maxMicros = all.getMaxValue() / 1000.0;
      r.meanMicros = all.getMean() / 1000.0;
    }
    // CPU per operation: per entry for full scans (a partial scan is work too).
    r.machine = MachineMeter.between(before, after, workload.fullScan() ? r.entries : r.ops,
        threads);
    return r;
  }

  /** One reader thread's buffers and loop. */
  private final class Reader {
    private final Workload workload;
    private final Counts c;
    private final SplittableRandom random;
    private final byte[] key = new byte[rows.keySize()];
    private final byte[] scratch = new byte[rows.valueSize()];
    /** Values this reader has checked ({@link #fullCheckDue()}). */
    private long valuesRead;
    private final List<byte[]> keys;
    private final ByteBuffer keyBuffer;
    private final ByteBuffer valueBuffer;

    Reader(Workload workload, int number, Counts c) {
      this.workload = workload;
      this.c = c;
      this.random = new SplittableRandom(Rows.mix(seed ^ Rows.mix(workload.ordinal() + 1L))
          + number);
      if (workload == Workload.MULTIGET) {
        byte[][] k = new byte[MULTIGET_KEYS][rows.keySize()];
        keys = Arrays.asList(k);
      } else {
        keys = null;
      }
      if (workload == Workload.GET_DIRECT) {
        keyBuffer = ByteBuffer.allocateDirect(rows.keySize());
        valueBuffer = ByteBuffer.allocateDirect(rows.valueSize() * 2);
      } else {
        keyBuffer = null;
        valueBuffer = null;
      }
    }

    void loop(long deadline) throws Exception {
      long now = System.nanoTime();
      while (now < deadline) {
        long t0 = now;
        long entries = switch (workload) {
          case GET_PRESENT -> getPresent();
          case GET_ABSENT -> getAbsent();
          case MULTIGET -> multiGet();
          case GET_DIRECT -> getDirect();
          case SCAN_FORWARD -> fullScan(true, deadline);
          case SCAN_REVERSE -> fullScan(false, deadline);
          case SCAN_RANGE -> rangeScan();
        };
        now = System.nanoTime();
        if (entries >= 0) {
          c.latency.recordValue(Math.min(Math.max(now - t0, 1), Importer.HIGHEST_NANOS));
          c.ops++;
        }
      }
    }

    private boolean valueOk(byte[] k, byte[] v) {
      if (v == null || v.length != rows.valueSize()
          || Rows.getLong(v, 0) != rows.checksum(k)) {
        return false;
      }
      return !fullCheckDue() || rows.matches(k, v, scratch);
    }

    /** Whether this value read is the one in {@link #FULL_CHECK_EVERY} compared byte for byte. */
    private boolean fullCheckDue() {
      return valuesRead++ % FULL_CHECK_EVERY == 0;
    }

    private long getPresent() throws Exception {
      rows.key(random.nextLong(rowCount), key);
      if (!valueOk(key, engine.get(key))) {
        c.wrong++;
      }
      c.entries++;
      return 1;
    }

    private long getAbsent() throws Exception {
      absent.key(random.nextLong(rowCount), key);
      if (engine.get(key) != null) {
        c.wrong++;
      }
      return 1;
    }

    private long multiGet() throws Exception {
      for (byte[] k : keys) {
        rows.key(random.nextLong(rowCount), k);
      }
      List<byte[]> values = engine.multiGetAsList(keys);
      if (values.size() != MULTIGET_KEYS) {
        c.wrong += MULTIGET_KEYS;
        return 1;
      }
      for (int i = 0; i < MULTIGET_KEYS; i++) {
        if (!valueOk(keys.get(i), values.get(i))) {
          c.wrong++;
        }
      }
      c.entries += MULTIGET_KEYS;
      return 1;
    }

    private long getDirect() throws Exception {
      rows.key(random.nextLong(rowCount), key);
      keyBuffer.clear();
      keyBuffer.put(key).flip();
      valueBuffer.clear();
      int n = engine.getDirect(keyBuffer, valueBuffer);
      if (n != rows.valueSize() || valueBuffer.remaining() != n
          || valueBuffer.getLong(valueBuffer.position()) != rows.checksum(key)) {
        c.wrong++;
      } else if (fullCheckDue()) {
        valueBuffer.get(valueBuffer.position(), scratch, 0, n);
        byte[] v = Arrays.copyOf(scratch, n);
        if (!rows.matches(key, v, scratch)) {
          c.wrong++;
        }
      }
      c.entries++;
      return 1;
    }

    /** @return entries read when the scan completed, or -1 when the deadline cut it short */
    private long fullScan(boolean forward, long deadline) throws Exception {
      long n = 0;
      try (Engine.Cursor it = engine.newCursor()) {
        if (forward) {
          it.seekToFirst();
        } else {
          it.seekToLast();
        }
        byte[] previous = null;
        while (it.isValid()) {
          byte[] k = it.key();
          if (!valueOk(k, it.value())
              || previous != null && Arrays.compareUnsigned(previous, k) * (forward ? 1 : -1) >= 0) {
            c.wrong++;
          }
          previous = k;
          n++;
          c.entries++;
          if (forward) {
            it.next();
          } else {
            it.prev();
          }
          if ((n & 1023) == 0 && System.nanoTime() >= deadline) {
            it.status();
            return -1;
          }
        }
        it.status();
      }
      if (n != rowCount) {
        c.wrong++;
      }
      return n;
    }

    private long rangeScan() throws Exception {
      rows.key(random.nextLong(rowCount), key);
      try (Engine.Cursor it = engine.newCursor()) {
        it.seek(key);
        if (!it.isValid() || !Arrays.equals(it.key(), key)) {
          c.wrong++;
          it.status();
          return 1;
        }
        for (int i = 0; i < RANGE_ENTRIES && it.isValid(); i++) {
          byte[] k = i == 0 ? key : it.key();
          if (!valueOk(k, it.value())) {
            c.wrong++;
          }
          c.entries++;
          if (i + 1 < RANGE_ENTRIES) {
            it.next();
          }
        }
        it.status();
      }
      return 1;
    }
  }

  /**
   * One forward scan on the calling thread, to fill the block cache (and the page cache) before
   * the timed workloads, as a service's first minutes would.
   *
   * @return entries seen (the row count, on a complete database)
   */
  long warmupScan() throws Exception {
    long n = 0;
    try (Engine.Cursor it = engine.newCursor()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        it.value();
        n++;
      }
      it.status();
    }
    return n;
  }
}
