package dev.talus.examples.bulkimport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A service's write load: many request threads (a server's pool), each writing now and then,
 * requests arriving at a fixed rate whatever the engine's speed (open loop).
 *
 * <p>Arrival {@code k} is scheduled at {@code start + k / rate}. A free request thread takes the
 * next arrival (a shared counter), waits for its time if it is early, and serves it: a {@code
 * put} of a random existing row with its own value (default write options: WAL on, no sync), or,
 * with probability {@code readFraction}, a {@code get} of a random existing row. Its latency is
 * measured from the <em>scheduled</em> arrival, not from when a thread got to it: when every
 * thread is busy, arrivals wait, and that wait is part of their latency, as it is for the
 * clients of a real service (no coordinated omission). The service time (the call alone) and
 * the start lateness (queueing plus the thread's wake-up) are recorded apart.
 *
 * <p>Writes keep the rows verifiable: a row is rewritten with the value it already has. Whether a
 * request reads or writes and which row it touches depend only on its arrival number and the
 * seed, so both engines serve the same sequence.
 *
 * <p>The saturated rate is measured closed loop: every request thread serves requests back to
 * back, and the rate they reach is the most this pool gets from the engine.
 */
final class ServiceWorkload {
  /** Request threads are named this and their number. */
  static final String THREAD_PREFIX = "request-";
  private static final long KIND_SALT = 0x243F6A8885A308D3L;
  private static final long ROW_SALT = 0x13198A2E03707344L;

  private final Engine engine;
  private final Rows rows;
  private final long rowCount;
  private final long seed;
  private final int threads;
  private final double readFraction;
  private final boolean statistics;

  ServiceWorkload(Engine engine, Rows rows, long rowCount, long seed, int threads,
      double readFraction, boolean statistics) {
    this.engine = engine;
    this.rows = rows;
    this.rowCount = rowCount;
    this.seed = seed;
    this.threads = threads;
    this.readFraction = readFraction;
    this.statistics = statistics;
  }

  /** Whether arrival {@code k} is a read. */
  boolean isRead(long k) {
    return readFraction > 0 && (Rows.mix(k ^ Rows.mix(seed ^ KIND_SALT)) >>> 11) * 0x1.0p-53
        < readFraction;
  }

  /** The row arrival {@code k} touches. */
  long row(long k) {
    return Long.remainderUnsigned(Rows.mix(k ^ Rows.mix(seed ^ ROW_SALT)), rowCount);
  }

  /** Shared state of one run. */
  private final class Run {
    final Recorder putLatency = new Recorder(1, Importer.HIGHEST_NANOS, 3);
    final Recorder getLatency = new Recorder(1, Importer.HIGHEST_NANOS, 3);
    final Recorder putService = new Recorder(1, Importer.HIGHEST_NANOS, 3);
    final Recorder late = new Recorder(1, Importer.HIGHEST_NANOS, 3);
    final AtomicLong next = new AtomicLong();
    final AtomicLong served = new AtomicLong();
    final AtomicLong puts = new AtomicLong();
    final AtomicLong gets = new AtomicLong();
    final AtomicLong wrong = new AtomicLong();
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicReference<Throwable> error = new AtomicReference<>();
    /** Set before the threads start; read after the start latch. */
    long start;
    long deadline;
    long hardStop;
    /** Nanoseconds between arrivals; 0 for the closed loop. */
    double interval;
  }

  /**
   * Serves requests closed loop for {@code seconds}: the saturated rate.
   *
   * @return the result, its rate label "saturated"
   */
  ReadSummary.ServiceResult saturate(double seconds) throws Exception {
    return run("saturated", 0, seconds);
  }

  /**
   * Serves arrivals at {@code rate} per second for {@code seconds}, then the arrivals still
   * waiting for at most {@code seconds} more (those left are counted unserved).
   *
   * @param label how the rate was asked for, e.g. "50%"
   */
  ReadSummary.ServiceResult openLoop(String label, double rate, double seconds)
      throws Exception {
    if (!(rate > 0)) {
      throw new IllegalArgumentException("rate must be positive, got " + rate);
    }
    return run(label, rate, seconds);
  }

  private ReadSummary.ServiceResult run(String label, double rate, double seconds)
      throws Exception {
    Run run = new Run();
    run.interval = rate > 0 ? 1e9 / rate : 0;
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(threads);
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> {
        try {
          byte[] key = new byte[rows.keySize()];
          byte[] value = new byte[rows.valueSize()];
          byte[] scratch = new byte[rows.valueSize()];
          ready.countDown();
          go.await();
          serve(run, key, value, scratch);
        } catch (Throwable e) {
          run.error.compareAndSet(null, e);
          run.stop.set(true);
        } finally {
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
    long engagedBefore = gateTicker(Engine.Ticker.WRITE_ADMISSION_ENGAGEMENTS);
    long waitsBefore = gateTicker(Engine.Ticker.WRITE_ADMISSION_WAITS);
    run.start = System.nanoTime();
    run.deadline = run.start + (long) (seconds * 1e9);
    run.hardStop = run.deadline + (long) (seconds * 1e9);
    go.countDown();
    finished.await();
    long end = System.nanoTime();
    MachineMeter.Snapshot after = MachineMeter.snapshot(engine, statistics, THREAD_PREFIX);
    long engagedAfter = gateTicker(Engine.Ticker.WRITE_ADMISSION_ENGAGEMENTS);
    long waitsAfter = gateTicker(Engine.Ticker.WRITE_ADMISSION_WAITS);
    release.countDown();
    for (Thread th : ts) {
      th.join();
    }
    Throwable e = run.error.get();
    if (e != null) {
      if (e instanceof Exception ex) {
        throw ex;
      }
      throw new RuntimeException(e);
    }

    ReadSummary.ServiceResult r = new ReadSummary.ServiceResult();
    r.rate = label;
    r.offeredRate = rate > 0 ? rate : -1;
    r.served = run.served.get();
    r.puts = run.puts.get();
    r.gets = run.gets.get();
    r.wrong = run.wrong.get();
    if (rate > 0) {
      long scheduled = (long) Math.ceil(seconds * rate);
      r.unserved = Math.max(0, scheduled - r.served);
      // Completed over the time they were scheduled in, and the drain if it took longer.
      r.achievedRate = r.served / Math.max(seconds, (end - run.start) / 1e9);
    } else {
      r.achievedRate = r.served / ((end - run.start) / 1e9);
    }
    Histogram h = run.putLatency.getIntervalHistogram();
    if (h.getTotalCount() > 0) {
      r.putP50Micros = h.getValueAtPercentile(50) / 1000.0;
      r.putP99Micros = h.getValueAtPercentile(99) / 1000.0;
      r.putP999Micros = h.getValueAtPercentile(99.9) / 1000.0;
      r.putMaxMicros = h.getMaxValue() / 1000.0;
    }
    h = run.getLatency.getIntervalHistogram();
    if (h.getTotalCount() > 0) {
      r.getP50Micros = h.getValueAtPercentile(50) / 1000.0;
      r.getP99Micros = h.getValueAtPercentile(99) / 1000.0;
      r.getP999Micros = h.getValueAtPercentile(99.9) / 1000.0;
      r.getMaxMicros = h.getMaxValue() / 1000.0;
    }
    h = run.putService.getIntervalHistogram();
    if (h.getTotalCount() > 0) {
      r.putServiceP50Micros = h.getValueAtPercentile(50) / 1000.0;
      r.putServiceP99Micros = h.getValueAtPercentile(99) / 1000.0;
    }
    h = run.late.getIntervalHistogram();
    if (h.getTotalCount() > 0) {
      r.lateP50Micros = h.getValueAtPercentile(50) / 1000.0;
      r.lateP99Micros = h.getValueAtPercentile(99) / 1000.0;
    }
    r.machine = MachineMeter.between(before, after, r.served, threads);
    if (engagedBefore >= 0) {
      r.gateEngagements = engagedAfter - engagedBefore;
      r.gateWaits = waitsAfter - waitsBefore;
    }
    return r;
  }

  /** A write admission ticker; -1 without statistics or on RocksJava. */
  private long gateTicker(Engine.Ticker t) {
    return statistics ? engine.ticker(t) : -1;
  }

  private void serve(Run run, byte[] key, byte[] value, byte[] scratch) throws Exception {
    boolean open = run.interval > 0;
    while (!run.stop.get()) {
      long k = run.next.getAndIncrement();
      long scheduled;
      if (open) {
        scheduled = run.start + (long) (k * run.interval);
        if (scheduled >= run.deadline) {
          return;
        }
        long wait;
        while ((wait = scheduled - System.nanoTime()) > 0) {
          LockSupport.parkNanos(wait);
        }
      } else {
        scheduled = System.nanoTime();
        if (scheduled >= run.deadline) {
          return;
        }
      }
      long begin = System.nanoTime();
      if (open && begin >= run.hardStop) {
        // The drain took as long as the run: the rest is counted unserved.
        run.stop.set(true);
        return;
      }
      boolean read = isRead(k);
      rows.key(row(k), key);
      if (read) {
        byte[] v = engine.get(key);
        long done = System.nanoTime();
        run.getLatency.recordValue(clamp(done - scheduled));
        if (v == null || !rows.matches(key, v, scratch)) {
          run.wrong.incrementAndGet();
        }
        run.gets.incrementAndGet();
      } else {
        rows.value(key, value);
        long t0 = System.nanoTime();
        engine.put(key, value);
        long done = System.nanoTime();
        run.putLatency.recordValue(clamp(done - scheduled));
        run.putService.recordValue(clamp(done - t0));
        run.puts.incrementAndGet();
      }
      run.late.recordValue(clamp(begin - scheduled));
      run.served.incrementAndGet();
    }
  }

  private static long clamp(long nanos) {
    return Math.min(Math.max(nanos, 1), Importer.HIGHEST_NANOS);
  }
}
