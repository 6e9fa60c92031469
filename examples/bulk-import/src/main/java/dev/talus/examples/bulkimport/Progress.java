package dev.talus.examples.bulkimport;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Samples the import once a second: prints the progress line (refreshed in place on a terminal,
 * one line per second otherwise), appends a row to {@code timeseries.csv}, and keeps the samples
 * for the chart (one small record per second, never per row). It also accumulates the latencies
 * of the whole run into {@link #total()}.
 */
final class Progress {
  /** One second of the run; latencies in microseconds, stall figures cumulative. */
  record Sample(double seconds, long rows, double rate, double avgRate, double p50, double p99,
      double p999, double max, long l0Files, long pendingBytes, long stallCount,
      long stallMicros, long intervalStallMicros, long backpressureSleeps, long flushes,
      long heapUsed, long rss, double writersCpuWaitMs, double stealPercent) {}

  static final String CSV_HEADER = "seconds,rows,rows_per_s,avg_rows_per_s,p50_us,p99_us,"
      + "p999_us,max_us,l0_files,pending_compaction_bytes,stall_count,stall_micros,"
      + "interval_stall_micros,backpressure_sleeps,flushes,heap_used_bytes,rss_bytes,"
      + "writers_cpu_wait_ms,steal_percent";

  private final Engine engine;
  private final Importer importer;
  private final long total;
  private final PrintStream out;
  private final boolean tty;
  private final BufferedWriter csv;
  private final List<Sample> samples = new ArrayList<>();
  private final Histogram interval = new Histogram(1, Importer.HIGHEST_NANOS, 3);
  private final Histogram total_ = new Histogram(1, Importer.HIGHEST_NANOS, 3);
  private final Histogram[] recycle;
  private final long startNanos;
  private long lastNanos;
  private long lastRows;
  private long lastStallMicros;
  private long l0Max;
  private long heapMax;
  private long rssMax;
  private long lastWriterWait;
  private long writersWaitTotal;
  private long[] firstTicks;
  private long[] lastTicks;
  private volatile boolean stop;
  private Thread thread;

  Progress(Engine engine, Importer importer, long total, PrintStream out, boolean tty,
      Path csvFile) throws IOException {
    this.engine = engine;
    this.importer = importer;
    this.total = total;
    this.out = out;
    this.tty = tty;
    this.recycle = new Histogram[importer.writers.size()];
    if (csvFile != null) {
      csv = Files.newBufferedWriter(csvFile, StandardCharsets.UTF_8);
      csv.write(CSV_HEADER);
      csv.newLine();
    } else {
      csv = null;
    }
    startNanos = System.nanoTime();
    lastNanos = startNanos;
    // The steal baseline is the start, not the first sample: a run shorter than a second has
    // only the final sample, and steal over it must still be defined (regression: the
    // end-to-end test's 200,000-row run took under a second and reported steal -1).
    firstTicks = CpuWait.cpuTicks();
    lastTicks = firstTicks;
  }

  void start() {
    thread = new Thread(() -> {
      long nextAt = startNanos + 1_000_000_000L;
      while (!stop) {
        long wait = nextAt - System.nanoTime();
        if (wait > 0) {
          try {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          } catch (InterruptedException e) {
            return;
          }
          continue;
        }
        nextAt += 1_000_000_000L;
        sampleQuietly();
      }
    }, "progress");
    thread.setDaemon(true);
    thread.start();
  }

  /** Stops the sampler and takes the last sample. */
  void finish() throws InterruptedException, IOException {
    stop = true;
    thread.interrupt();
    thread.join();
    sampleQuietly();
    if (tty) {
      out.println();
    }
    if (csv != null) {
      csv.close();
    }
  }

  private void sampleQuietly() {
    try {
      sample();
    } catch (Exception e) {
      out.println("progress: " + e);
    }
  }

  private synchronized void sample() throws Exception {
    long now = System.nanoTime();
    long rows = importer.done.get();
    importer.drainLatencies(interval, recycle);
    total_.add(interval);
    double secs = (now - startNanos) / 1e9;
    double dt = Math.max(1e-9, (now - lastNanos) / 1e9);
    double rate = (rows - lastRows) / dt;
    double avg = rows / Math.max(1e-9, secs);
    long l0 = parseLong(engine.property("rocksdb.num-files-at-level0"));
    long pending = engine.longProperty("rocksdb.estimate-pending-compaction-bytes");
    long stallCount;
    long stallMicros;
    if (engine.hasThreadStalls()) {
      stallCount = importer.writerStall(Engine.STALL_COUNT);
      stallMicros = importer.writerStall(Engine.STALL_MICROS);
    } else {
      Map<String, Long> c = StatsText.stallCounts(stallStats(engine));
      stallCount = StatsText.totalStallConditions(c);
      stallMicros = engine.ticker(Engine.Ticker.STALL_MICROS);
    }
    long intervalStall = stallMicros - lastStallMicros;
    // Writer threads that ended take their wait with them: count only growth.
    long writerWait = CpuWait.writersWaitNanos();
    long intervalWait = Math.max(0, writerWait - lastWriterWait);
    writersWaitTotal += intervalWait;
    lastWriterWait = writerWait;
    long[] ticks = CpuWait.cpuTicks();
    double steal = CpuWait.stealPercent(lastTicks, ticks);
    lastTicks = ticks;
    l0Max = Math.max(l0Max, l0);
    Sample s = new Sample(secs, rows, rate, avg, us(interval.getValueAtPercentile(50)),
        us(interval.getValueAtPercentile(99)), us(interval.getValueAtPercentile(99.9)),
        us(interval.getMaxValue()), l0, pending, stallCount, stallMicros, intervalStall,
        importer.backpressureSleeps.get(), importer.flushes.get(), heapUsed(), rss(),
        writerWait < 0 ? -1 : intervalWait / 1e6, steal);
    heapMax = Math.max(heapMax, s.heapUsed);
    rssMax = Math.max(rssMax, s.rss);
    samples.add(s);
    lastNanos = now;
    lastRows = rows;
    lastStallMicros = stallMicros;
    print(s);
    if (csv != null) {
      csv.write(String.format(java.util.Locale.ROOT,
          "%.3f,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f",
          s.seconds, s.rows, s.rate, s.avgRate, s.p50, s.p99, s.p999, s.max, s.l0Files,
          s.pendingBytes, s.stallCount, s.stallMicros, s.intervalStallMicros,
          s.backpressureSleeps, s.flushes, s.heapUsed, s.rss, s.writersCpuWaitMs,
          s.stealPercent));
      csv.newLine();
      csv.flush();
    }
  }

  static String stallStats(Engine engine) {
    try {
      return engine.property("rocksdb.cf-write-stall-stats");
    } catch (Exception e) {
      return "";
    }
  }

  private void print(Sample s) {
    double remaining = s.avgRate > 0 ? (total - s.rows) / s.avgRate : Double.NaN;
    String line = String.format(java.util.Locale.ROOT,
        "[%5.0fs] %s/%s %5.1f%% | %s rows/s (avg %s) | put p50 %s p99 %s p999 %s max %s"
            + " | L0 %d | pending %s | stalls %d, %s | bp sleeps %d | RSS %s | ETA %s",
        s.seconds, Fmt.count(s.rows), Fmt.count(total), 100.0 * s.rows / Math.max(1, total),
        Fmt.count((long) s.rate), Fmt.count((long) s.avgRate), Fmt.micros(s.p50),
        Fmt.micros(s.p99), Fmt.micros(s.p999), Fmt.micros(s.max), s.l0Files,
        Fmt.bytes(s.pendingBytes), s.stallCount, Fmt.micros(s.stallMicros),
        s.backpressureSleeps, Fmt.bytes(s.rss), Fmt.duration(remaining));
    if (tty) {
      out.print("\r" + line + "\u001b[K");
      out.flush();
    } else {
      out.println(line);
    }
  }

  /** Java heap in use now (live objects and garbage not yet collected). */
  private static long heapUsed() {
    return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage()
        .getUsed();
  }

  /** Resident memory of the whole process (Java heap and the engine's native memory). */
  static long rss() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (l.startsWith("VmRSS:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return -1;
  }

  private static long parseLong(String s) {
    return s == null ? -1 : Long.parseLong(s.trim());
  }

  private static double us(long nanos) {
    return nanos / 1000.0;
  }

  List<Sample> samples() {
    return samples;
  }

  Histogram total() {
    return total_;
  }

  long l0Max() {
    return l0Max;
  }

  long heapMax() {
    return heapMax;
  }

  long rssMax() {
    return rssMax;
  }

  /** Run-queue wait of the writer threads over the run, seconds; -1 if unknown. */
  double writersCpuWaitSeconds() {
    return lastWriterWait < 0 ? -1 : writersWaitTotal / 1e9;
  }

  /** The machine's CPU steal over the run, percent; -1 if unknown. */
  double stealPercent() {
    return CpuWait.stealPercent(firstTicks, lastTicks);
  }
}
