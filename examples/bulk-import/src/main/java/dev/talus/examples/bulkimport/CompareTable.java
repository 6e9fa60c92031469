package dev.talus.examples.bulkimport;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * Prints the side-by-side table of a compare run ({@code examples/bulk-import/compare}): reads
 * every {@code summary.json} under the given directories, takes per engine the median of each
 * figure over the rounds, and prints a Markdown table with the ratio Talus / RocksJava.
 *
 * <pre>
 * java -cp ... dev.talus.examples.bulkimport.CompareTable build/compare-20261130T0200
 * </pre>
 */
public final class CompareTable {
  private CompareTable() {}

  /** One row of the table: a figure, how to read it, and whether lower is better. */
  private record Metric(String name, ToDoubleFunction<Summary> value, String format,
      boolean lowerIsBetter) {}

  private static final List<Metric> METRICS = List.of(
      new Metric("rows/s", s -> s.rowsPerSecond, "%,.0f", false),
      new Metric("MiB/s (keys+values)", s -> s.mbPerSecond, "%.1f", false),
      new Metric("elapsed (s)", s -> s.elapsedSeconds, "%.1f", true),
      new Metric("put p50 (us)", s -> s.putP50Micros, "%.1f", true),
      new Metric("put p99 (us)", s -> s.putP99Micros, "%.1f", true),
      new Metric("put p999 (us)", s -> s.putP999Micros, "%.1f", true),
      new Metric("put max (ms)", s -> s.putMaxMicros / 1000, "%.1f", true),
      new Metric("puts over 50 ms", s -> s.putsOver50ms, "%.0f", true),
      new Metric("puts over 20 ms", s -> s.putsOver20ms, "%.0f", true),
      new Metric("puts over 10 ms", s -> s.putsOver10ms, "%.0f", true),
      new Metric("stall time (s, STALL_MICROS)", s -> s.stallMicros / 1e6, "%.2f", true),
      new Metric("write amp (rocksdb.stats Sum W-Amp)", s -> s.writeAmp, "%.1f", true),
      new Metric("write amp (tickers)", s -> s.writeAmpTickers, "%.2f", true),
      new Metric("WAL syncs (WAL_FILE_SYNC_MICROS count)", s -> s.walSyncCount, "%.0f", true),
      new Metric("WAL sync max (ms)", s -> s.walSyncMaxMicros / 1000, "%.1f", true),
      new Metric("flush wait (s)", s -> s.flushWaitSeconds, "%.1f", true),
      new Metric("writers' wait for a CPU (s, run queue)", s -> s.writersCpuWaitSeconds, "%.1f",
          true),
      new Metric("machine CPU steal (%)", s -> s.stealPercent, "%.1f", true),
      new Metric("process CPU (s per million rows)",
          s -> BulkImport.perMillion(s.processCpuSeconds, s.rows), "%.2f", true),
      new Metric("writers' CPU (s per million rows)",
          s -> BulkImport.perMillion(s.writersCpuSeconds, s.rows), "%.2f", true),
      new Metric("other CPU: flush, compaction, JVM (s per million rows)",
          s -> s.processCpuSeconds < 0 ? -1
              : BulkImport.perMillion(s.processCpuSeconds - s.writersCpuSeconds, s.rows),
          "%.2f", true),
      new Metric("back-pressure sleeps", s -> s.backpressureSleeps, "%.0f", true),
      new Metric("L0 files max", s -> s.l0FilesMax, "%.0f", true),
      new Metric("process RSS max (MiB)", s -> s.rssMaxBytes / (double) (1L << 20), "%.0f",
          true),
      new Metric("on disk (GiB)", s -> s.bytesOnDisk / (double) (1L << 30), "%.2f", true));

  /**
   * Prints the table for the runs under the given directories.
   *
   * @param args directories holding summary.json files (searched recursively)
   * @throws IOException if a summary cannot be read
   */
  public static void main(String[] args) throws IOException {
    List<Summary> all = new ArrayList<>();
    for (String a : args) {
      try (Stream<Path> s = Files.walk(Path.of(a))) {
        for (Path p : (Iterable<Path>) s.filter(f -> f.getFileName().toString()
            .equals("summary.json")).sorted()::iterator) {
          all.add(Summary.read(p));
        }
      }
    }
    if (print(System.out, all) != 0) {
      System.exit(1);
    }
  }

  static int print(PrintStream out, List<Summary> all) {
    List<Summary> talus = all.stream().filter(s -> "talus".equals(s.engine) && s.error == null)
        .toList();
    List<Summary> rocks = all.stream().filter(s -> "rocksdb".equals(s.engine) && s.error == null)
        .toList();
    all.stream().filter(s -> s.error != null)
        .forEach(s -> out.println("failed run (" + s.engine + "): " + s.error));
    if (talus.isEmpty() || rocks.isEmpty()) {
      out.println("compare: need at least one successful run of each engine (talus: "
          + talus.size() + ", rocksdb: " + rocks.size() + ")");
      return 1;
    }
    Summary t0 = talus.get(0);
    Summary r0 = rocks.get(0);
    out.printf(Locale.ROOT, "%s rows of %d+%d bytes, %d writers, %s keys, flush every %,d rows,"
            + " back-pressure %d ms at %d L0 files, rate limit %d MiB/s; median of %d run(s) per"
            + " engine%n%n", Fmt.count(t0.rows), t0.keySize, t0.valueSize, t0.threads,
        t0.keyOrder, t0.flushEvery, t0.backpressureSleepMs, t0.l0Backpressure, t0.rateLimitMb,
        Math.min(talus.size(), rocks.size()));
    out.printf("| | %s | %s | Talus / RocksJava |%n", t0.engineVersion, r0.engineVersion);
    out.println("|---|---:|---:|---:|");
    for (Metric m : METRICS) {
      double tv = median(talus, m.value);
      double rv = median(rocks, m.value);
      String ratio = rv == 0 || Double.isNaN(rv) || Double.isNaN(tv)
          ? (tv == rv ? "=" : "-")
          : String.format(Locale.ROOT, "%.2f", tv / rv);
      out.printf(Locale.ROOT, "| %s | %s | %s | %s |%n", m.name,
          String.format(Locale.ROOT, m.format, tv), String.format(Locale.ROOT, m.format, rv),
          ratio);
    }
    out.println();
    out.println("Stall time is the STALL_MICROS ticker on both engines. Talus writer threads, "
        + "summed (ThreadLocalInfo):");
    for (Summary s : talus) {
      out.printf(Locale.ROOT, "  %s: %d stalled puts, %.2f s, by cause %s%n", s.startedAt,
          s.writerStallCount, s.writerStallMicros / 1e6, s.writerStallMicrosByCause);
    }
    out.println("Write-stall conditions (rocksdb.cf-write-stall-stats):");
    for (Summary s : all) {
      out.printf(Locale.ROOT, "  %s %s: %s%n", s.engine, s.startedAt,
          s.stallConditionCounts.isEmpty() ? "none" : s.stallConditionCounts);
    }
    out.println("Verification:");
    for (Summary s : all) {
      out.printf(Locale.ROOT, "  %s %s: %s, %d rows read back, %d missing, %d wrong%n", s.engine,
          s.startedAt, s.verify, s.verifyChecked, s.verifyMissing, s.verifyWrong);
    }
    return 0;
  }

  static double median(List<Summary> runs, ToDoubleFunction<Summary> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
}
