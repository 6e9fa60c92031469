package dev.talus.examples.bulkimport;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * Prints the tables of a read comparison ({@code examples/bulk-import/compare-reads}): reads
 * every {@code read-summary.json} under the given directories, groups the runs by label (one
 * column each: {@code talus}, {@code rocksdb}, or variants such as {@code talus-gate0}), takes
 * the median of each figure over a label's rounds, and prints Markdown tables with the ratio of
 * each Talus column to the RocksJava column.
 *
 * <pre>
 * java -cp ... dev.talus.examples.bulkimport.ReadCompareTable build/compare-reads-20261203T1000
 * </pre>
 */
public final class ReadCompareTable {
  private ReadCompareTable() {}

  /**
   * Prints the tables for the runs under the given directories.
   *
   * @param args directories holding read-summary.json files (searched recursively)
   * @throws IOException if a summary cannot be read
   */
  public static void main(String[] args) throws IOException {
    List<ReadSummary> all = new ArrayList<>();
    for (String a : args) {
      try (Stream<Path> s = Files.walk(Path.of(a))) {
        for (Path p : (Iterable<Path>) s.filter(f -> f.getFileName().toString()
            .equals(ReadSummary.FILE)).sorted()::iterator) {
          all.add(ReadSummary.read(p));
        }
      }
    }
    if (print(System.out, all) != 0) {
      System.exit(1);
    }
  }

  /** A figure of a result and how to show it. */
  private record Metric<R>(String name, ToDoubleFunction<R> value, String format) {}

  private static <R> Metric<R> m(String name, ToDoubleFunction<R> value, String format) {
    return new Metric<>(name, value, format);
  }

  private static double fig(MachineMeter.Figures f, ToDoubleFunction<MachineMeter.Figures> g) {
    return f == null ? -1 : g.applyAsDouble(f);
  }

  private static final List<Metric<ReadSummary.ReadResult>> READ_SPEED = List.of(
      m("ops/s (full scans: scans/s)", r -> r.opsPerSecond, "auto"),
      m("entries/s", r -> r.entriesPerSecond, "%,.0f"));

  private static final List<Metric<ReadSummary.ReadResult>> READ_LATENCY = List.of(
      m("p50 us", r -> r.p50Micros, "%.1f"),
      m("p99 us", r -> r.p99Micros, "%.1f"),
      m("p999 us", r -> r.p999Micros, "%.1f"));

  private static final List<Metric<ReadSummary.ReadResult>> READ_CPU = List.of(
      m("CPU us/op", r -> fig(r.machine, f -> f.cpuMicrosPerOp), "%.2f"),
      m("readers' CPU wait %", r -> fig(r.machine, f -> f.threadsCpuWaitPercent), "%.1f"),
      m("machine busy %", r -> fig(r.machine, f -> f.machineCpuBusyPercent), "%.0f"));

  private static final List<Metric<ReadSummary.ReadResult>> READ_MEMORY_IO = List.of(
      m("major faults", r -> fig(r.machine, f -> f.majorFaults), "%.0f"),
      m("disk read MiB", r -> fig(r.machine, f -> f.diskReadBytes < 0 ? -1
          : f.diskReadBytes / (double) (1 << 20)), "%.1f"),
      m("reclaim scans", r -> fig(r.machine, f -> f.reclaimScans), "%.0f"));

  private static final List<Metric<ReadSummary.ServiceResult>> SERVICE_PUTS = List.of(
      m("done/s", r -> r.achievedRate, "%,.0f"),
      m("put p50 us", r -> r.putP50Micros, "%.1f"),
      m("put p99 us", r -> r.putP99Micros, "%.1f"),
      m("put p999 us", r -> r.putP999Micros, "%.1f"),
      m("put max us", r -> r.putMaxMicros, "%.0f"));

  private static final List<Metric<ReadSummary.ServiceResult>> SERVICE_MORE = List.of(
      m("offered/s", r -> r.offeredRate, "%,.0f"),
      m("get p50 us", r -> r.getP50Micros, "%.1f"),
      m("get p99 us", r -> r.getP99Micros, "%.1f"),
      m("get p999 us", r -> r.getP999Micros, "%.1f"),
      m("put call p99 us", r -> r.putServiceP99Micros, "%.1f"),
      m("start late p99 us", r -> r.lateP99Micros, "%.1f"),
      m("unserved", r -> r.unserved, "%.0f"),
      m("gate engaged", r -> r.gateEngagements, "%.0f"),
      m("gate waits", r -> r.gateWaits, "%.0f"),
      m("CPU us/request", r -> fig(r.machine, f -> f.cpuMicrosPerOp), "%.2f"));

  /** The columns: Talus labels, then the RocksJava label; ratios of each Talus label to it. */
  private record Columns(List<String> talus, String baseline, Map<String, List<ReadSummary>> runs) {
    List<String> all() {
      List<String> l = new ArrayList<>(talus);
      l.add(baseline);
      return l;
    }
  }

  static int print(PrintStream out, List<ReadSummary> all) {
    all.stream().filter(s -> s.error != null)
        .forEach(s -> out.println("failed run (" + s.label + "): " + s.error));
    List<ReadSummary> ok = all.stream().filter(s -> s.error == null).toList();
    Map<String, List<ReadSummary>> byLabel = new LinkedHashMap<>();
    for (ReadSummary s : ok) {
      byLabel.computeIfAbsent(s.label == null ? s.engine : s.label, k -> new ArrayList<>())
          .add(s);
    }
    String baseline = byLabel.entrySet().stream()
        .filter(e -> "rocksdb".equals(e.getValue().get(0).engine)).map(Map.Entry::getKey)
        .findFirst().orElse(null);
    List<String> talus = byLabel.entrySet().stream()
        .filter(e -> "talus".equals(e.getValue().get(0).engine)).map(Map.Entry::getKey)
        .toList();
    if (baseline == null || talus.isEmpty()) {
      out.println("compare-reads: need at least one successful run of each engine (labels: "
          + byLabel.keySet() + ")");
      return 1;
    }
    Columns cols = new Columns(talus, baseline, byLabel);
    ReadSummary first = byLabel.get(talus.get(0)).get(0);
    int rounds = cols.all().stream().mapToInt(l -> byLabel.get(l).size()).min().orElse(0);
    out.printf(Locale.ROOT, "%s rows of %d+%d bytes, %s keys, workload %s%s; median of %d"
            + " run(s) per column%n", Fmt.count(first.rows), first.keySize, first.valueSize,
        first.keyOrder, first.workload, first.backgroundImportRows > 0
            ? ", beside a background import of " + Fmt.count(first.backgroundImportRows)
                + " rows (" + first.backgroundEngine + ", another JVM)"
            : "", rounds);
    out.println("Columns: " + String.join(", ", cols.all().stream()
        .map(l -> l + " = " + byLabel.get(l).get(0).engineVersion).toList())
        + ". Ratio: Talus / RocksJava (throughput: above 1 is Talus faster; latency and cost:"
        + " below 1 is Talus better).");
    out.println();

    Set<String> readKeys = new LinkedHashSet<>();
    for (ReadSummary s : ok) {
      for (ReadSummary.ReadResult r : s.reads) {
        readKeys.add(r.workload + "@" + r.threads);
      }
    }
    if (!readKeys.isEmpty()) {
      ResultOf<ReadSummary.ReadResult> of = (s, key) -> s.reads.stream()
          .filter(r -> key.equals(r.workload + "@" + r.threads)).findFirst().orElse(null);
      out.println("Read throughput");
      printWide(out, "| workload | threads |", readKeys, cols, READ_SPEED, of);
      out.println("Read latency (one call; full scans: one whole scan)");
      printWide(out, "| workload | threads |", readKeys, cols, READ_LATENCY, of);
      out.println("CPU during each read workload (CPU us/op: the process's CPU time per call,"
          + " per entry for full scans; CPU wait: share of a reader's time runnable but not"
          + " running)");
      printWide(out, "| workload | threads |", readKeys, cols, READ_CPU, of);
      out.println("Memory and IO during each read workload (this process's major faults and"
          + " bytes read from storage; the machine's page reclaim scans)");
      printWide(out, "| workload | threads |", readKeys, cols, READ_MEMORY_IO, of);
    }

    Set<String> rates = new LinkedHashSet<>();
    for (ReadSummary s : ok) {
      for (ReadSummary.ServiceResult r : s.service) {
        rates.add(r.rate + "@");
      }
    }
    if (!rates.isEmpty()) {
      ResultOf<ReadSummary.ServiceResult> of = (s, key) -> s.service.stream()
          .filter(r -> key.equals(r.rate + "@")).findFirst().orElse(null);
      out.printf(Locale.ROOT, "Service: %s, open loop, latency from the scheduled arrival;"
              + " percentages are of each column's own saturated rate (closed loop)%n",
          serviceShape(first));
      printWide(out, "| rate | |", rates, cols, SERVICE_PUTS, of);
      out.println("Service, more figures");
      printWide(out, "| rate | |", rates, cols, SERVICE_MORE, of);
    }

    out.println("Runs:");
    for (ReadSummary s : all) {
      out.printf(Locale.ROOT, "  %s %s: %s; %s; load %s, shape %s, verify %d missing %d wrong"
              + "%s%n", s.label, s.startedAt, s.engineVersion, s.arguments,
          s.loaded ? String.format(Locale.ROOT, "%.1f s", s.loadSeconds) : "reused",
          s.levelFiles, s.verifyMissing, s.verifyWrong, s.backgroundImportRows > 0
              ? String.format(Locale.ROOT, "; background imports %d started, %d completed,"
                  + " %d failed", s.backgroundRunsStarted, s.backgroundRunsCompleted,
                  s.backgroundRunsFailed)
              : "");
    }
    out.println("Options (all runs): " + first.options);
    return 0;
  }

  /** Finds the result of one row key ("workload@threads", "rate@") in a run, or null. */
  private interface ResultOf<R> {
    R find(ReadSummary run, String key);
  }

  /**
   * One Markdown table: a row per key, for each metric a column per label and one ratio column
   * per Talus label.
   */
  private static <R> void printWide(PrintStream out, String keyHead, Set<String> keys,
      Columns cols, List<Metric<R>> metrics, ResultOf<R> of) {
    StringBuilder head = new StringBuilder(keyHead);
    StringBuilder rule = new StringBuilder("|---|---:|");
    for (Metric<R> m : metrics) {
      for (String l : cols.all()) {
        head.append(' ').append(m.name).append(' ').append(l).append(" |");
        rule.append("---:|");
      }
      for (String l : cols.talus) {
        head.append(' ').append(cols.talus.size() == 1 ? "ratio" : "ratio " + l).append(" |");
        rule.append("---:|");
      }
    }
    out.println();
    out.println(head);
    out.println(rule);
    for (String key : keys) {
      int at = key.indexOf('@');
      StringBuilder row = new StringBuilder("| " + key.substring(0, at) + " | "
          + key.substring(at + 1) + " |");
      for (Metric<R> m : metrics) {
        Map<String, Double> medians = new LinkedHashMap<>();
        for (String l : cols.all()) {
          double v = median(cols.runs.get(l).stream().map(s -> of.find(s, key))
              .filter(r -> r != null).mapToDouble(m.value).toArray());
          medians.put(l, v);
          row.append(' ').append(fmt(m.format, v)).append(" |");
        }
        for (String l : cols.talus) {
          row.append(' ').append(ratio(medians.get(l), medians.get(cols.baseline))).append(" |");
        }
      }
      out.println(row);
    }
    out.println();
  }

  private static String serviceShape(ReadSummary s) {
    String a = " " + s.arguments + " ";
    String threads = flagValue(a, "--request-threads", "256");
    String reads = flagValue(a, "--read-fraction", "0");
    return threads + " request threads, read fraction " + reads;
  }

  private static String flagValue(String args, String flag, String dflt) {
    int i = args.indexOf(" " + flag);
    if (i < 0) {
      return dflt;
    }
    String rest = args.substring(i + flag.length() + 1).trim();
    if (rest.startsWith("=")) {
      rest = rest.substring(1);
    }
    int end = rest.indexOf(' ');
    return end < 0 ? rest : rest.substring(0, end);
  }

  private static String fmt(String format, double v) {
    if (Double.isNaN(v) || v < 0) {
      return "-";
    }
    if (format.equals("auto")) {
      return String.format(Locale.ROOT, v < 100 ? "%.2f" : "%,.0f", v);
    }
    return String.format(Locale.ROOT, format, v);
  }

  private static String ratio(double t, double r) {
    if (Double.isNaN(t) || Double.isNaN(r) || t < 0 || r <= 0) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.2f", t / r);
  }

  static double median(double[] values) {
    double[] v = java.util.Arrays.stream(values).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
}
