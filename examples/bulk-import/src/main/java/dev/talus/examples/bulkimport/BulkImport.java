package dev.talus.examples.bulkimport;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The bulk-import harness: the bulk import Talus is built for (200 million rows of 48-byte keys and
 * 160-byte values, eight writer threads, a flush every 500 000 rows, soft back-pressure when L0
 * reaches 15 files) as a program, on Talus or on RocksJava with the same options.
 *
 * <pre>
 * ./gradlew :examples:bulk-import:run --args="--rows 2000000 --report build/report"
 * </pre>
 *
 * <p>While it runs it prints one progress line per second; at the end a summary (throughput, put
 * latency percentiles, puts over 50 ms, stalls, write amplification, bytes on disk), then reads
 * rows back with {@code --verify}. {@code --report DIR} writes {@code summary.json}, {@code
 * timeseries.csv} and {@code timeline.png}. Exit status: 0 on success, 1 when verification found
 * a missing or wrong row, 2 for bad flags, 3 when the engine failed.
 *
 * <p>Memory stays flat whatever {@code --rows}: keys and values are computed from the row index
 * ({@link Rows}), latencies go into fixed-size histograms, and the only growing state is one
 * sample per second.
 */
@Command(
    name = "bulk-import",
    mixinStandardHelpOptions = true,
    version = "bulk-import 0.1.0-SNAPSHOT",
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
        "A bulk import as a benchmark: many writer threads put deterministic rows, flush "
            + "every --flush-every rows and sleep when L0 has --l0-backpressure files; the same "
            + "options on Talus or on RocksJava (--engine)."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        "0:success",
        "1:--verify found missing or wrong rows",
        "2:bad flags, or --db holds data and --overwrite was not given",
        "3:the engine failed"
    })
public final class BulkImport implements Callable<Integer> {
  static final String DEFAULT_DB = "build/bulk-import-db";

  @Option(names = "--rows", converter = CountConverter.class, paramLabel = "N",
      description = "Rows to import (underscores and commas allowed). Default: ${DEFAULT-VALUE}.")
  long rows = 2_000_000;

  @Option(names = "--threads", paramLabel = "N",
      description = "Writer threads (also the verify threads). Default: ${DEFAULT-VALUE}.")
  int threads = 8;

  @Option(names = "--key-size", paramLabel = "BYTES",
      description = "Key size, at least 8. Default: ${DEFAULT-VALUE}.")
  int keySize = 48;

  @Option(names = "--value-size", paramLabel = "BYTES",
      description = "Value size, at least 8. Default: ${DEFAULT-VALUE}.")
  int valueSize = 160;

  @Option(names = "--flush-every", converter = CountConverter.class, paramLabel = "ROWS",
      description = "Flush (and wait) every this many rows, over all writers. "
          + "Default: ${DEFAULT-VALUE}.")
  long flushEvery = 500_000;

  @Option(names = "--l0-backpressure", paramLabel = "FILES",
      description = "After a flush, sleep when L0 has at least this many files. "
          + "Default: ${DEFAULT-VALUE}.")
  int l0Backpressure = 15;

  @Option(names = "--backpressure-sleep-ms", paramLabel = "MS",
      description = "How long every writer sleeps then. Default: ${DEFAULT-VALUE}.")
  long backpressureSleepMs = 50;

  @Option(names = "--rate-limit-mb", paramLabel = "MB",
      description = "Flush and compaction write limit in MiB/s (refill period 10 * 1024 * 1024 us,"
          + " fairness 10, writes only); 0 = no limiter. Default: ${DEFAULT-VALUE}.")
  long rateLimitMb = 150;

  @Option(names = "--wal-bytes-per-sync-mb", paramLabel = "MB",
      description = "WAL MiB between syncs (setWalBytesPerSync; 0 = off). Default: "
          + "${DEFAULT-VALUE}.")
  long walBytesPerSyncMb = 4;

  @Option(names = "--low-priority-compactions", negatable = true, fallbackValue = "true",
      description = "Run compaction threads at the lowest CPU priority in both engines"
          + " (Env.getDefault().lowerThreadPoolCPUPriority(Priority.LOW)): writers keep the CPU"
          + " when there are more of them than cores. Default: ${DEFAULT-VALUE}.")
  boolean lowPriorityCompactions = false;

  @Option(names = "--rocksdb-write-thread-adaptive-yield", negatable = true,
      fallbackValue = "true",
      description = "RocksJava only (setEnableWriteThreadAdaptiveYield): a writer waiting for its"
          + " write group spins and yields up to 100 us before it blocks. Talus has no such"
          + " setting (its writers spin 64 rounds, then park) and runs the same either way."
          + " Default: ${DEFAULT-VALUE}, RocksDB's default.")
  boolean rocksdbWriteThreadAdaptiveYield = true;

  @Option(names = "--talus-max-concurrent-writers", paramLabel = "N",
      description = "Talus only (Options.setMaxConcurrentWriters): at most N writer threads write"
          + " at once, the others sleep and take 1 ms turns; -1 = one per core, 0 = no limit"
          + " (RocksDB has no such setting and runs every writer at once). Default:"
          + " ${DEFAULT-VALUE}, Talus's default.")
  int talusMaxConcurrentWriters = -1;

  @Option(names = "--max-subcompactions", paramLabel = "N",
      description = "Options.setMaxSubcompactions(N) on both engines: an L0 or manual compaction"
          + " is split into at most N key ranges, each compacted by a thread of its own"
          + " (RocksDB's max_subcompactions). Default: ${DEFAULT-VALUE}, both engines' default.")
  int maxSubcompactions = 1;

  @Option(names = "--db", paramLabel = "DIR",
      description = "Database directory. Default: " + DEFAULT_DB + " (recreated on each run;"
          + " another directory that holds files needs --overwrite).")
  Path db;

  @Option(names = "--wal-dir", paramLabel = "DIR",
      description = "WAL directory (e.g. on another disk). Default: the database dir.")
  Path walDir;

  @Option(names = "--key-order", paramLabel = "ORDER",
      description = "random or sequential. Default: ${DEFAULT-VALUE}.")
  KeyOrder keyOrder = KeyOrder.random;

  @Option(names = "--seed", paramLabel = "N",
      description = "Seed of keys and values: the same seed gives the same rows, so any run can"
          + " be verified later. Default: ${DEFAULT-VALUE}.")
  long seed = 3;

  @Option(names = "--compression", paramLabel = "CODEC",
      description = "Block codec of every level, the same on both engines: lz4, snappy, zstd"
          + " or none. Default: ${DEFAULT-VALUE}.")
  EngineSettings.Compression compression = EngineSettings.Compression.lz4;

  @Option(names = "--compaction-style", paramLabel = "STYLE",
      description = "Compaction style, the same on both engines: level, universal (RocksDB's"
          + " default universal options) or fifo (no size limit or TTL, so every row stays to be"
          + " verified: nothing is ever compacted). Default: ${DEFAULT-VALUE}.")
  EngineSettings.Style compactionStyle = EngineSettings.Style.level;

  /** How the rows get in. */
  @Option(names = "--mode", paramLabel = "MODE", converter = ModeConverter.class,
      description = "put (writers put rows), ingest (each writer sorts its chunks of "
          + Importer.INGEST_CHUNK + " rows, writes them with SstFileWriter and ingests the file,"
          + " moveFiles), or bulk-load (puts with Options.prepareForBulkLoad()). Every mode ends"
          + " with one compactRange, inside the import time. The same on both"
          + " engines. Default: ${DEFAULT-VALUE}.")
  String mode = "put";

  /** Accepts put, ingest, bulk-load. */
  static final class ModeConverter implements picocli.CommandLine.ITypeConverter<String> {
    @Override
    public String convert(String v) {
      if (!v.equals("put") && !v.equals("ingest") && !v.equals("bulk-load")) {
        throw new picocli.CommandLine.TypeConversionException(
            "--mode must be put, ingest or bulk-load, not " + v);
      }
      return v;
    }
  }

  @Option(names = "--engine", paramLabel = "ENGINE",
      description = "talus or rocksdb (RocksJava). Default: ${DEFAULT-VALUE}.")
  Engine.Kind engine = Engine.Kind.talus;

  @Option(names = "--report", paramLabel = "DIR",
      description = "Write summary.json, timeseries.csv and timeline.png into DIR.")
  Path report;

  @Option(names = "--column-families", paramLabel = "N",
      description = "Spread the rows over N column families (default, cf1 .. cf<N-1>, each with"
          + " the same options) by a hash of the key, the same on both engines; flushes and"
          + " compactRange() cover every family, and --verify reads each row from its family."
          + " Default: ${DEFAULT-VALUE}.")
  int columnFamilies = 1;

  @Option(names = "--verify", paramLabel = "MODE",
      description = "Read back none, a sample (about 100,000 rows) or all rows. "
          + "Default: ${DEFAULT-VALUE}.")
  Verifier.Mode verify = Verifier.Mode.sample;

  @Option(names = "--overwrite",
      description = "Delete --db and --wal-dir first if they hold files.")
  boolean overwrite;

  @Option(names = "--verify-only",
      description = "Import nothing: open the existing database and verify its rows (same"
          + " --rows, --seed, sizes and --key-order as the import).")
  boolean verifyOnly;

  /** Key order of the import. */
  enum KeyOrder {
    /** Keys in random order (a bijective mix of the row index and the seed). */
    random,
    /** Keys in ascending order. */
    sequential
  }

  private PrintStream out = System.out;
  private String arguments = "";
  Summary summary;

  /**
   * Runs the harness and exits with its status.
   *
   * @param args the flags (see {@code --help})
   */
  public static void main(String[] args) {
    System.exit(run(System.out, args));
  }

  /**
   * Runs the harness in this JVM (tests call this).
   *
   * @param out where progress and summary go
   * @param args the flags
   * @return the exit status
   */
  public static int run(PrintStream out, String... args) {
    return run(out, new BulkImport(), args);
  }

  static int run(PrintStream out, BulkImport app, String... args) {
    app.out = out;
    app.arguments = String.join(" ", args);
    CommandLine cl = new CommandLine(app).setCaseInsensitiveEnumValuesAllowed(true);
    cl.setOut(new java.io.PrintWriter(out, true));
    return cl.execute(args);
  }

  /** Parses row counts: digits with optional {@code _} or {@code ,} separators. */
  static final class CountConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      long v = Long.parseLong(value.replace("_", "").replace(",", ""));
      if (v < 0) {
        throw new CommandLine.TypeConversionException("must not be negative: " + value);
      }
      return v;
    }
  }

  @Override
  public Integer call() throws Exception {
    if (columnFamilies < 1) {
      out.println("bulk-import: need --column-families >= 1");
      return 2;
    }
    if (mode.equals("ingest") && columnFamilies > 1) {
      out.println("bulk-import: --mode ingest writes the default column family only;"
          + " use --column-families 1");
      return 2;
    }
    if (threads < 1 || keySize < 8 || valueSize < 8 || flushEvery < 1 || rateLimitMb < 0
        || backpressureSleepMs < 0 || walBytesPerSyncMb < 0) {
      out.println("bulk-import: need --threads >= 1, --key-size and --value-size >= 8, "
          + "--flush-every >= 1, --rate-limit-mb and --backpressure-sleep-ms >= 0");
      return 2;
    }
    if (maxSubcompactions < 1) {
      out.println("bulk-import: need --max-subcompactions >= 1");
      return 2;
    }
    boolean defaultDb = db == null;
    Path dbDir = defaultDb ? Path.of(DEFAULT_DB) : db;
    if (!verifyOnly) {
      for (Path dir : new Path[] {dbDir, walDir}) {
        if (dir != null && holdsFiles(dir)) {
          if (defaultDb && dir == dbDir || overwrite) {
            deleteTree(dir);
          } else {
            out.println("bulk-import: " + dir + " holds files; delete it or pass --overwrite");
            return 2;
          }
        }
      }
    }
    Files.createDirectories(dbDir);
    if (walDir != null) {
      Files.createDirectories(walDir);
    }
    if (report != null) {
      Files.createDirectories(report);
    }

    EngineSettings settings = EngineSettings.bulkImportPreset(dbDir.toString(),
        walDir == null ? null : walDir.toString(), rateLimitMb, walBytesPerSyncMb,
        lowPriorityCompactions, rocksdbWriteThreadAdaptiveYield, talusMaxConcurrentWriters)
        .withCompression(compression)
        .withCompactionStyle(compactionStyle);
    Rows rowGen = new Rows(seed, keySize, valueSize, keyOrder == KeyOrder.sequential);
    EngineSettings.prepareForBulkLoad = mode.equals("bulk-load");
    EngineSettings.maxSubcompactions = maxSubcompactions;
    Summary s = new Summary();
    summary = s;
    fillHeader(s, settings);
    int status = 0;
    try (Engine e = Engine.open(engine, settings, columnFamilies)) {
      s.engineVersion = e.describe();
      s.stallSource = e.stallSource();
      out.println("bulk-import: " + s.engineVersion + ", " + Fmt.count(rows) + " rows of "
          + keySize + "+" + valueSize + " bytes (" + Fmt.bytes(rows * (keySize + valueSize))
          + "), " + threads + " writers, " + keyOrder + " keys, seed " + seed
          + (columnFamilies == 1 ? "" : ", " + columnFamilies + " column families"));
      out.println("  db " + dbDir.toAbsolutePath()
          + (walDir == null ? "" : ", wal " + walDir.toAbsolutePath()));
      out.println("  flush every " + Fmt.count(flushEvery) + " rows (wait); back-pressure: "
          + backpressureSleepMs + " ms sleep at " + l0Backpressure + " L0 files");
      out.println("  options: " + settings.describe());
      out.println("  stalls: " + s.stallSource);
      if (!verifyOnly) {
        importRows(e, rowGen, s, dbDir);
      }
      Verifier v = new Verifier();
      v.run(e, rowGen, rows, verify, threads, out);
      s.verifyChecked = v.checked;
      s.verifyMissing = v.missing;
      s.verifyWrong = v.wrong;
      s.verifySeconds = v.seconds;
      printSummary(s, v);
      if (v.missing + v.wrong > 0) {
        status = 1;
      }
    } catch (Exception ex) {
      s.error = String.valueOf(ex);
      out.println("bulk-import: failed: " + ex);
      ex.printStackTrace(out);
      status = 3;
    }
    if (report != null) {
      s.write(report.resolve("summary.json"));
      out.println("report: " + report.toAbsolutePath() + " (summary.json, timeseries.csv, "
          + "timeline.png)");
    }
    return status;
  }

  private void importRows(Engine e, Rows rowGen, Summary s, Path dbDir) throws Exception {
    Importer imp = new Importer(e, rowGen, rows, threads, flushEvery, l0Backpressure,
        backpressureSleepMs);
    boolean tty = System.console() != null && out == System.out;
    Progress progress = new Progress(e, imp, rows, out, tty,
        report == null ? null : report.resolve("timeseries.csv"));
    long cpu0 = CpuWait.processCpuNanos();
    Path sstDir = null;
    if (mode.equals("ingest")) {
      sstDir = dbDir.resolveSibling(dbDir.getFileName() + "-sst");
      if (holdsFiles(sstDir)) {
        deleteTree(sstDir);
      }
      Files.createDirectories(sstDir);
      imp.ingestVia(sstDir);
    }
    long t0 = System.nanoTime();
    progress.start();
    try {
      imp.run();
      {
        // A fully compacted database in every mode: what put leaves pending, bulk-load leaves
        // in L0 and ingest leaves overlapping goes down in one manual compaction.
        long c0 = System.nanoTime();
        e.compactRange();
        s.finalCompactSeconds = (System.nanoTime() - c0) / 1e9;
      }
    } finally {
      progress.finish();
    }
    if (sstDir != null) {
      deleteTree(sstDir);
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    long cpu1 = CpuWait.processCpuNanos();
    s.processCpuSeconds = cpu0 < 0 || cpu1 < 0 ? -1 : (cpu1 - cpu0) / 1e9;
    s.writersCpuSeconds = imp.writersCpuNanos.get() / 1e9;

    Histogram h = progress.total();
    s.elapsedSeconds = secs;
    s.rowsPerSecond = rows / secs;
    s.mbPerSecond = rows * (double) (keySize + valueSize) / secs / (1 << 20);
    s.putP50Micros = h.getValueAtPercentile(50) / 1000.0;
    s.putP99Micros = h.getValueAtPercentile(99) / 1000.0;
    s.putP999Micros = h.getValueAtPercentile(99.9) / 1000.0;
    s.putMaxMicros = h.getMaxValue() / 1000.0;
    s.putMeanMicros = h.getMean() / 1000.0;
    s.putsOver50ms = imp.slowPuts();
    s.putsOver10ms = countAbove(h, 10_000_000L);
    s.putsOver20ms = countAbove(h, 20_000_000L);
    s.flushes = imp.flushes.get();
    s.ingestedBytes = imp.ingestedBytes.get();
    s.flushWaitSeconds = imp.flushNanos.get() / 1e9;
    s.backpressureSleeps = imp.backpressureSleeps.get();
    s.l0FilesMax = progress.l0Max();
    s.heapUsedMaxBytes = progress.heapMax();
    s.rssMaxBytes = progress.rssMax();
    s.writersCpuWaitSeconds = progress.writersCpuWaitSeconds();
    s.stealPercent = progress.stealPercent();

    s.stallMicros = e.ticker(Engine.Ticker.STALL_MICROS);
    s.stallConditionCounts = StatsText.stallCounts(Progress.stallStats(e));
    if (e.hasThreadStalls()) {
      s.writerStallCount = imp.writerStall(Engine.STALL_COUNT);
      s.writerStallMicros = imp.writerStall(Engine.STALL_MICROS);
      s.writerStallMicrosByCause.put("memtable-limit", imp.writerStall(Engine.STALL_MEMTABLE_MICROS));
      s.writerStallMicrosByCause.put("l0-slowdown", imp.writerStall(Engine.STALL_L0_SLOWDOWN_MICROS));
      s.writerStallMicrosByCause.put("l0-stop", imp.writerStall(Engine.STALL_L0_STOP_MICROS));
      s.writerStallMicrosByCause.put("pending-compaction-bytes",
          imp.writerStall(Engine.STALL_PENDING_MICROS));
    }
    String stats = e.property("rocksdb.stats");
    s.writeAmp = StatsText.sumColumn(stats, "W-Amp");
    s.flushWriteBytes = e.ticker(Engine.Ticker.FLUSH_WRITE_BYTES);
    s.compactWriteBytes = e.ticker(Engine.Ticker.COMPACT_WRITE_BYTES);
    s.bytesWritten = e.ticker(Engine.Ticker.BYTES_WRITTEN);
    s.writeAmpTickers = s.bytesWritten == 0 ? Double.NaN
        : (s.flushWriteBytes + s.compactWriteBytes) / (double) s.bytesWritten;
    s.writeAmpTableBytes = (s.flushWriteBytes + s.compactWriteBytes + s.ingestedBytes)
        / (rows * (double) (keySize + valueSize));
    s.l0FilesAtEnd = Long.parseLong(e.property("rocksdb.num-files-at-level0").trim());
    s.pendingCompactionBytesAtEnd = e.longProperty("rocksdb.estimate-pending-compaction-bytes");
    double[] syncs = e.walSyncs();
    s.walSyncCount = (long) syncs[0];
    s.walSyncP99Micros = syncs[1];
    s.walSyncMaxMicros = syncs[2];
    s.bytesOnDisk = treeSize(dbDir) + (walDir == null ? 0 : treeSize(walDir));
    if (report != null) {
      Files.writeString(report.resolve("rocksdb.stats.txt"), stats == null ? "" : stats);
      try {
        TimelineChart.write(report.resolve("timeline.png"),
            s.engineVersion + ": " + Fmt.count(rows) + " rows, " + threads + " writers",
            progress.samples());
      } catch (Exception | Error chartError) {
        out.println("bulk-import: could not draw timeline.png: " + chartError);
      }
    }
  }

  private void fillHeader(Summary s, EngineSettings settings) {
    s.engine = engine.name();
    s.mode = mode;
    s.arguments = arguments;
    s.options = settings.describe();
    s.startedAt = Instant.now().toString();
    s.rows = rows;
    s.threads = threads;
    s.keySize = keySize;
    s.valueSize = valueSize;
    s.flushEvery = flushEvery;
    s.l0Backpressure = l0Backpressure;
    s.backpressureSleepMs = backpressureSleepMs;
    s.rateLimitMb = rateLimitMb;
    s.walBytesPerSyncMb = walBytesPerSyncMb;
    s.keyOrder = keyOrder.name();
    s.seed = seed;
    s.verify = verify.name();
    s.machine.putAll(machine());
  }

  static Map<String, String> machine() {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
    try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
      lines.filter(l -> l.startsWith("MemTotal:")).findFirst()
          .ifPresent(l -> m.put("memory", l.replace("MemTotal:", "").trim()));
    } catch (IOException | UncheckedIOException e) {
      // not Linux: leave it out
    }
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch"));
    m.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
        + ", max heap " + Fmt.bytes(Runtime.getRuntime().maxMemory()));
    return m;
  }

  /** Values recorded in {@code h} above {@code nanos}. */
  static long countAbove(Histogram h, long nanos) {
    if (h.getMaxValue() <= nanos) {
      return 0;
    }
    return h.getCountBetweenValues(h.nextNonEquivalentValue(nanos), h.getMaxValue());
  }

  /** {@code seconds} per million of {@code rows}; -1 when either is unknown. */
  static double perMillion(double seconds, long rows) {
    return seconds < 0 || rows <= 0 ? -1 : seconds * 1e6 / rows;
  }

  private void printSummary(Summary s, Verifier v) {
    PrintStream o = out;
    o.println();
    o.println("== summary: " + s.engineVersion + " ==");
    if (!verifyOnly) {
      o.printf(Locale.ROOT, "rows        %s in %.1f s: %s rows/s, %.1f MiB/s of keys and values%n",
          Fmt.count(s.rows), s.elapsedSeconds, Fmt.count((long) s.rowsPerSecond), s.mbPerSecond);
      o.printf(Locale.ROOT, "put latency p50 %s  p99 %s  p999 %s  max %s  (mean %s); puts over"
              + " 50 ms: %d%n", Fmt.micros(s.putP50Micros), Fmt.micros(s.putP99Micros),
          Fmt.micros(s.putP999Micros), Fmt.micros(s.putMaxMicros), Fmt.micros(s.putMeanMicros),
          s.putsOver50ms);
      o.printf(Locale.ROOT, "put tail    puts over 10 ms: %d, over 20 ms: %d (histogram)%n",
          s.putsOver10ms, s.putsOver20ms);
      o.printf(Locale.ROOT, "cpu         %.1f s of CPU (%.1f s per million rows), %.1f s of it in the"
              + " writers; the writers waited %.1f s for a CPU (run queue, summed over %d"
              + " writers); machine CPU steal %.1f%%%n", s.processCpuSeconds,
          perMillion(s.processCpuSeconds, s.rows), s.writersCpuSeconds, s.writersCpuWaitSeconds,
          s.threads, s.stealPercent);
      o.printf(Locale.ROOT, "flushes     %d (writers waited %.1f s); back-pressure sleeps %d;"
              + " L0 files max %d, at end %d; pending compaction at end %s%n", s.flushes,
          s.flushWaitSeconds, s.backpressureSleeps, s.l0FilesMax, s.l0FilesAtEnd,
          Fmt.bytes(s.pendingCompactionBytesAtEnd));
      o.printf(Locale.ROOT, "stalls      %s total (Statistics STALL_MICROS); conditions %s%n",
          Fmt.micros(s.stallMicros), s.stallConditionCounts.isEmpty() ? "none"
              : s.stallConditionCounts);
      if (s.writerStallCount >= 0) {
        o.printf(Locale.ROOT, "            writers (ThreadLocalInfo, summed): %d stalled puts, %s;"
                + " by cause %s%n", s.writerStallCount, Fmt.micros(s.writerStallMicros),
            s.writerStallMicrosByCause);
      } else {
        o.println("            (RocksJava has no ThreadLocalInfo: no per-writer stall counts)");
      }
      o.printf(Locale.ROOT, "mode        %s (final compactRange %.1f s, inside the import time)%n",
          s.mode, s.finalCompactSeconds);
      o.printf(Locale.ROOT, "table amp   %.2f (flush + compaction + ingested table bytes / bytes of"
          + " keys and values; ingested %s)%n", s.writeAmpTableBytes, Fmt.bytes(s.ingestedBytes));
      o.printf(Locale.ROOT, "write amp   %.1f (rocksdb.stats Sum W-Amp: flush+compaction bytes /"
              + " flushed and ingested bytes); %.2f from tickers ((FLUSH+COMPACT_WRITE_BYTES) /"
              + " BYTES_WRITTEN)%n", s.writeAmp, s.writeAmpTickers);
      o.printf(Locale.ROOT, "wal syncs   %d (Statistics WAL_FILE_SYNC_MICROS: p99 %s, max %s)%n",
          s.walSyncCount, Fmt.micros(s.walSyncP99Micros), Fmt.micros(s.walSyncMaxMicros));
      o.printf(Locale.ROOT, "memory      Java heap used at most %s (-Xmx %s); process RSS at most"
              + " %s%n", Fmt.bytes(s.heapUsedMaxBytes), Fmt.bytes(Runtime.getRuntime().maxMemory()),
          Fmt.bytes(s.rssMaxBytes));
      o.printf(Locale.ROOT, "on disk     %s (database%s after the final flush)%n",
          Fmt.bytes(s.bytesOnDisk), walDir == null ? " with its WAL" : " and WAL dirs");
    }
    if (verify == Verifier.Mode.none) {
      o.println("verify      none");
    } else {
      o.printf(Locale.ROOT, "verify      %s: %s rows read back in %.1f s, %d missing, %d wrong%n",
          verify, Fmt.count(v.checked), v.seconds, v.missing, v.wrong);
      for (String p : v.problems) {
        o.println("            " + p);
      }
    }
  }

  private static boolean holdsFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return Files.exists(dir);
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isPresent();
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  static long treeSize(Path dir) throws IOException {
    long total = 0;
    for (Path p : regularFiles(dir)) {
      try {
        total += Files.size(p);
      } catch (IOException e) {
        // deleted by a compaction meanwhile
      }
    }
    return total;
  }

  /**
   * The regular files under {@code dir} (none when it does not exist), in path order. A walk
   * that meets an entry deleted under it (a compaction's obsolete file) is retried, up to three
   * times; a file listed may still be gone by the time the caller opens it.
   */
  static List<Path> regularFiles(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return List.of();
    }
    for (int attempt = 0; ; attempt++) {
      try (Stream<Path> s = Files.walk(dir)) {
        return s.filter(Files::isRegularFile).sorted().toList();
      } catch (UncheckedIOException e) {
        if (attempt >= 3) {
          throw e.getCause();
        }
      }
    }
  }
}
