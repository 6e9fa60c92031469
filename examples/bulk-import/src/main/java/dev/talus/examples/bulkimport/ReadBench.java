package dev.talus.examples.bulkimport;

import com.google.gson.Gson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The read benchmark: what a service does after its bulk import, through the Java API of Talus
 * or of RocksJava with the same options. It loads rows ({@link Rows}, the import's generator, so
 * every value read is checked), compacts them fully, then runs each workload for a fixed time at
 * each thread count and prints a table of throughput and latency percentiles.
 *
 * <pre>
 * ./gradlew :examples:bulk-import:run -Dexample.mainClass=dev.talus.examples.bulkimport.ReadBench \
 *     --args="--rows 2000000 --threads 1,8 --seconds 10 --report build/reads"
 * </pre>
 *
 * <p>Two workload sets: {@code --workload reads} (the default: {@code get} of present and of
 * absent keys, {@code multiGetAsList} of 64 keys, {@code get} into a direct {@code ByteBuffer},
 * full forward and reverse scans, short range scans) and {@code --workload service} (many request
 * threads writing now and then at a fixed arrival rate, open loop; see {@link ServiceWorkload}).
 * {@code --background-import ROWS} runs the bulk import in a second JVM meanwhile ({@link
 * BackgroundImport}), and every workload records what the machine did ({@link MachineMeter}).
 *
 * <p>{@code --db DIR --reuse} keeps the loaded database between runs: a later run with the same
 * rows, seed, sizes and engine opens it instead of loading again. Exit status: 0 on success, 1
 * when a read returned a missing or wrong value, 2 for bad flags, 3 when the engine failed.
 */
@Command(
    name = "read-bench",
    mixinStandardHelpOptions = true,
    version = "read-bench 0.1.0-SNAPSHOT",
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
        "Reads after a bulk import, and a service's write load, through the Java API of Talus "
            + "or of RocksJava with the same options (--engine)."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
        "0:success",
        "1:a read returned a missing or wrong value",
        "2:bad flags, or --db holds other data and --overwrite was not given",
        "3:the engine failed"
    })
public final class ReadBench implements Callable<Integer> {
  static final String DEFAULT_DB = "build/read-bench-db";
  /** Written into the database directory once its load and compaction are complete. */
  static final String LOADED_MARKER = "READ-BENCH-LOADED.json";

  /** Which workload set. */
  enum WorkloadSet {
    /** The read workloads ({@link ReadWorkloads}). */
    reads,
    /** The service-shaped write load ({@link ServiceWorkload}). */
    service
  }

  @Option(names = "--engine", paramLabel = "ENGINE",
      description = "talus or rocksdb (RocksJava). Default: ${DEFAULT-VALUE}.")
  Engine.Kind engine = Engine.Kind.talus;

  @Option(names = "--workload", paramLabel = "SET",
      description = "reads or service. Default: ${DEFAULT-VALUE}.")
  WorkloadSet workload = WorkloadSet.reads;

  @Option(names = "--rows", converter = BulkImport.CountConverter.class, paramLabel = "N",
      description = "Rows to load (underscores and commas allowed). Default: ${DEFAULT-VALUE}.")
  long rows = 2_000_000;

  @Option(names = "--key-size", paramLabel = "BYTES",
      description = "Key size, at least 8. Default: ${DEFAULT-VALUE}.")
  int keySize = 48;

  @Option(names = "--value-size", paramLabel = "BYTES",
      description = "Value size, at least 8. Default: ${DEFAULT-VALUE}.")
  int valueSize = 160;

  @Option(names = "--seed", paramLabel = "N",
      description = "Seed of keys, values and the readers' random keys. Default: ${DEFAULT-VALUE}.")
  long seed = 3;

  @Option(names = "--key-order", paramLabel = "ORDER",
      description = "Order of the load: random or sequential. Default: ${DEFAULT-VALUE}.")
  BulkImport.KeyOrder keyOrder = BulkImport.KeyOrder.random;

  @Option(names = "--db", paramLabel = "DIR",
      description = "Database directory. Default: " + DEFAULT_DB + " (recreated on each run"
          + " unless --reuse; another directory that holds files needs --overwrite or --reuse).")
  Path db;

  @Option(names = "--reuse",
      description = "Open the database in --db if an earlier run loaded it with the same engine,"
          + " rows, seed, sizes and key order; load it otherwise (an empty or missing --db).")
  boolean reuse;

  @Option(names = "--overwrite",
      description = "Delete --db first if it holds files (with --reuse: only files that are not"
          + " a matching loaded database).")
  boolean overwrite;

  @Option(names = "--load-threads", paramLabel = "N",
      description = "Threads writing the load's batches. Default: ${DEFAULT-VALUE}.")
  int loadThreads = 4;

  @Option(names = "--batch-size", paramLabel = "ROWS",
      description = "Rows per write batch of the load (WAL disabled, one flush at the end)."
          + " Default: ${DEFAULT-VALUE}.")
  int batchSize = 1000;

  @Option(names = "--rate-limit-mb", paramLabel = "MB",
      description = "Flush and compaction write limit in MiB/s; 0 = none. Default:"
          + " ${DEFAULT-VALUE}.")
  long rateLimitMb = 0;

  @Option(names = "--statistics", negatable = true, fallbackValue = "true",
      description = "Open both engines with a Statistics object (adds block cache hit ratios to"
          + " the figures, and each engine's per-read ticker cost). Default: ${DEFAULT-VALUE},"
          + " as a new user's database.")
  boolean statistics = false;

  @Option(names = "--talus-max-concurrent-writers", paramLabel = "N",
      description = "Talus only (Options.setMaxConcurrentWriters): -1 = one writer thread per"
          + " core at once, 0 = no limit (as RocksDB). Default: ${DEFAULT-VALUE}, Talus's"
          + " default.")
  int talusMaxConcurrentWriters = -1;

  @Option(names = "--workloads", split = ",", paramLabel = "LIST",
      description = "Read workloads to run, in order: get-present, get-absent, multiget,"
          + " get-direct, scan-forward, scan-reverse, scan-range. Default: all.")
  List<String> workloads = new ArrayList<>(List.of("get-present", "get-absent", "multiget",
      "get-direct", "scan-forward", "scan-reverse", "scan-range"));

  @Option(names = "--threads", split = ",", paramLabel = "LIST",
      description = "Reader thread counts; each read workload runs at each. Default: 1,8.")
  List<Integer> threads = new ArrayList<>(List.of(1, 8));

  @Option(names = "--seconds", paramLabel = "S",
      description = "Timed seconds of each workload at each thread count (and of each service"
          + " rate). Default: ${DEFAULT-VALUE}.")
  double seconds = 10;

  @Option(names = "--warmup-seconds", paramLabel = "S",
      description = "Untimed seconds before each timed one (same workload and threads)."
          + " Default: ${DEFAULT-VALUE}.")
  double warmupSeconds = 1;

  @Option(names = "--warmup-files", negatable = true, fallbackValue = "true",
      description = "Read every file under the database directory once, with plain file reads,"
          + " before the workloads (fills the OS page cache without an engine call)."
          + " Default: ${DEFAULT-VALUE}.")
  boolean warmupFiles = true;

  // The kernel caches a file in folios whose size depends on how the file was written or first
  // read: large after 1 MiB writes or a sequential read (readahead), 4 KiB after random reads.
  // A block read from small folios costs more kernel CPU (the page-cache lookup): over a
  // database larger than the block cache, about a tenth of a get (docs/results/reads.md,
  // "Page-cache folios"). A reused database is in whatever state its last reader left it;
  // dropping it before the warm-up read gives both engines' files the same folios.
  @Option(names = "--drop-cached-files", negatable = true, fallbackValue = "true",
      description = "With --warmup-files: drop each file's pages from the OS page cache first"
          + " (dd iflag=nocache count=0), so that the warm-up read caches every file alike."
          + " Default: ${DEFAULT-VALUE}.")
  boolean dropCachedFiles = true;

  // Off by default: over a database larger than the block cache, a full scan through RocksJava
  // on one thread left its gets on other threads far slower for seconds afterwards, with no
  // disk reads and not with MALLOC_ARENA_MAX=1 (glibc's per-thread arenas), so the workload
  // after the scan measured that transient, not the engine (docs/results/reads.md). The page
  // cache is warmed by --warmup-files instead, the block cache by each workload's warm-up.
  @Option(names = "--warmup-scan", negatable = true, fallbackValue = "true",
      description = "One full forward scan through the engine before the workloads (fills the"
          + " block cache). Default: ${DEFAULT-VALUE}.")
  boolean warmupScan = false;

  @Option(names = "--request-threads", paramLabel = "N",
      description = "Service: request threads. Default: ${DEFAULT-VALUE}.")
  int requestThreads = 256;

  @Option(names = "--rate", split = ",", paramLabel = "LIST",
      description = "Service: arrival rates, each requests/s (e.g. 20000) or a percentage of"
          + " the saturated rate measured first (e.g. 50%%). Default: 25%%,50%%,90%%.")
  List<String> rates = new ArrayList<>(List.of("25%", "50%", "90%"));

  @Option(names = "--read-fraction", paramLabel = "F",
      description = "Service: share of requests that are gets of present keys instead of puts,"
          + " 0 to 1. Default: ${DEFAULT-VALUE}.")
  double readFraction = 0;

  @Option(names = "--background-import", converter = BulkImport.CountConverter.class,
      paramLabel = "ROWS",
      description = "Run the bulk import of ROWS rows in another JVM, again and again, while the"
          + " workloads run (a shared machine); 0 = none. Default: ${DEFAULT-VALUE}.")
  long backgroundImportRows = 0;

  @Option(names = "--background-engine", paramLabel = "ENGINE",
      description = "The background import's engine. Default: ${DEFAULT-VALUE} (the same for"
          + " both engines' runs, so that both share the machine with the same load).")
  Engine.Kind backgroundEngine = Engine.Kind.talus;

  @Option(names = "--background-dir", paramLabel = "DIR",
      description = "The background import's database (deleted at the end). Default: --db"
          + " with -background appended.")
  Path backgroundDir;

  @Option(names = "--background-args", paramLabel = "FLAGS",
      description = "More flags of the background import, one string. Default: none (the"
          + " import's defaults: 8 writers).")
  String backgroundArgs = "";

  @Option(names = "--background-jvm-args", paramLabel = "FLAGS",
      description = "The background JVM's flags. Default: ${DEFAULT-VALUE}.")
  String backgroundJvmArgs = "-Xms256m -Xmx1g -Djava.awt.headless=true";

  @Option(names = "--background-delay-seconds", paramLabel = "S",
      description = "Seconds between starting the background import and the first workload"
          + " (its JVM start and first flushes). Default: ${DEFAULT-VALUE}.")
  double backgroundDelaySeconds = 5;

  @Option(names = "--report", paramLabel = "DIR",
      description = "Write " + ReadSummary.FILE + " (and background-import.txt) into DIR.")
  Path report;

  @Option(names = "--label", paramLabel = "NAME",
      description = "This run's column in a comparison. Default: the engine.")
  String label;

  private PrintStream out = System.out;
  private String arguments = "";
  ReadSummary summary;

  /**
   * Runs the benchmark and exits with its status.
   *
   * @param args the flags (see {@code --help})
   */
  public static void main(String[] args) {
    System.exit(run(System.out, args));
  }

  /**
   * Runs the benchmark in this JVM (tests call this).
   *
   * @param out where progress and tables go
   * @param args the flags
   * @return the exit status
   */
  public static int run(PrintStream out, String... args) {
    ReadBench app = new ReadBench();
    app.out = out;
    app.arguments = String.join(" ", args);
    CommandLine cl = new CommandLine(app).setCaseInsensitiveEnumValuesAllowed(true);
    cl.setOut(new java.io.PrintWriter(out, true));
    cl.setErr(new java.io.PrintWriter(out, true));
    return cl.execute(args);
  }

  /** What --reuse compares: the rows a loaded database holds. */
  record LoadedMarker(String engine, long rows, long seed, int keySize, int valueSize,
      String keyOrder) {}

  private String checkFlags(List<ReadWorkloads.Workload> parsed) {
    if (rows < 1 || keySize < 8 || valueSize < 8) {
      return "need --rows >= 1, --key-size and --value-size >= 8";
    }
    if (loadThreads < 1 || batchSize < 1 || rateLimitMb < 0) {
      return "need --load-threads and --batch-size >= 1, --rate-limit-mb >= 0";
    }
    if (!(seconds > 0) || warmupSeconds < 0 || backgroundDelaySeconds < 0) {
      return "need --seconds > 0, --warmup-seconds and --background-delay-seconds >= 0";
    }
    if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1)) {
      return "need --threads of at least 1";
    }
    if (requestThreads < 1 || !(readFraction >= 0 && readFraction <= 1)) {
      return "need --request-threads >= 1 and --read-fraction in [0, 1]";
    }
    for (String r : rates) {
      try {
        if (!(rateValue(r, 1) > 0)) {
          return "--rate values must be positive: " + r;
        }
      } catch (NumberFormatException e) {
        return "--rate values are requests/s or a percentage (50%): " + r;
      }
    }
    try {
      for (String w : workloads) {
        parsed.add(ReadWorkloads.Workload.parse(w.trim()));
      }
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    return null;
  }

  /** A --rate value: requests/s, or a percentage of {@code saturated}. */
  static double rateValue(String r, double saturated) {
    String s = r.trim();
    if (s.endsWith("%")) {
      return Double.parseDouble(s.substring(0, s.length() - 1)) / 100.0 * saturated;
    }
    return Double.parseDouble(s.replace("_", ""));
  }

  @Override
  public Integer call() throws Exception {
    List<ReadWorkloads.Workload> parsed = new ArrayList<>();
    String bad = checkFlags(parsed);
    if (bad != null) {
      out.println("read-bench: " + bad);
      return 2;
    }
    boolean defaultDb = db == null;
    Path dbDir = defaultDb ? Path.of(DEFAULT_DB) : db;
    LoadedMarker wanted = new LoadedMarker(engine.name(), rows, seed, keySize, valueSize,
        keyOrder.name());
    boolean load = true;
    if (reuse && isLoaded(dbDir, wanted)) {
      load = false;
    } else if (holdsFiles(dbDir)) {
      if (defaultDb && !reuse || overwrite) {
        BulkImport.deleteTree(dbDir);
      } else {
        out.println("read-bench: " + dbDir + " holds files" + (reuse
            ? " but no database loaded with these flags (" + LOADED_MARKER + " differs or is"
                + " missing); pass --overwrite to load it again"
            : "; delete it, or pass --reuse or --overwrite"));
        return 2;
      }
    }
    Files.createDirectories(dbDir);
    if (report != null) {
      Files.createDirectories(report);
    }

    EngineSettings settings = EngineSettings.bulkImportPreset(dbDir.toString(), null, rateLimitMb, 4,
        false, true, talusMaxConcurrentWriters).withStatistics(statistics);
    Rows rowGen = new Rows(seed, keySize, valueSize, keyOrder == BulkImport.KeyOrder.sequential);
    ReadSummary s = new ReadSummary();
    summary = s;
    fillHeader(s, settings);
    int status = 0;
    BackgroundImport background = null;
    try (Engine e = Engine.open(engine, settings)) {
      s.engineVersion = e.describe();
      out.println("read-bench: " + s.engineVersion + ", " + workload + ", " + Fmt.count(rows)
          + " rows of " + keySize + "+" + valueSize + " bytes (" + Fmt.bytes(rows * (keySize
          + valueSize)) + "), " + keyOrder + " keys, seed " + seed);
      out.println("  db " + dbDir.toAbsolutePath());
      out.println("  options: " + settings.describe());
      prepare(e, rowGen, dbDir, load, wanted, s);

      if (backgroundImportRows > 0) {
        Path bgDir = backgroundDir != null ? backgroundDir
            : Path.of(dbDir.toString() + "-background");
        Path log = (report != null ? report : dbDir.toAbsolutePath().getParent())
            .resolve("background-import.txt");
        background = new BackgroundImport(backgroundImportRows, backgroundEngine, bgDir,
            backgroundJvmArgs, backgroundArgs, log);
        s.backgroundImportRows = backgroundImportRows;
        s.backgroundEngine = backgroundEngine.name();
        out.println("background: " + background.command());
        out.println("  output in " + log.toAbsolutePath());
        Thread.sleep((long) (backgroundDelaySeconds * 1000));
      }

      ReadWorkloads reads = new ReadWorkloads(e, rowGen, rows, seed, statistics);
      if (warmupFiles) {
        long t0 = System.nanoTime();
        String dropped = "";
        if (dropCachedFiles) {
          int failed = dropFromPageCache(dbDir);
          s.warmupFilesDropFailures = failed;
          dropped = failed == 0 ? "dropped from the page cache, then "
              : failed < 0 ? "not dropped from the page cache (dd did not start), "
              : "dropped from the page cache (" + failed + " files could not be), then ";
        }
        long bytes = readFiles(dbDir);
        s.warmupFilesSeconds = (System.nanoTime() - t0) / 1e9;
        s.warmupFilesBytes = bytes;
        out.printf(Locale.ROOT, "warm-up: the database's files %sread, %s in %.1f s%n",
            dropped, Fmt.bytes(bytes), s.warmupFilesSeconds);
      }
      if (warmupScan) {
        long t0 = System.nanoTime();
        long n = reads.warmupScan();
        s.warmupScanSeconds = (System.nanoTime() - t0) / 1e9;
        out.printf(Locale.ROOT, "warm-up: one full scan, %s entries in %.1f s%n", Fmt.count(n),
            s.warmupScanSeconds);
        if (n != rows) {
          throw new IllegalStateException("the warm-up scan saw " + n + " entries, not " + rows);
        }
      }
      if (workload == WorkloadSet.reads) {
        runReads(reads, parsed, s, background);
      } else {
        runService(e, rowGen, s, background);
      }
      if (background != null) {
        background.close();
        s.backgroundRunsStarted = background.started();
        s.backgroundRunsCompleted = background.completed();
        s.backgroundRunsFailed = background.failed();
        out.printf(Locale.ROOT, "background: %d import(s) started, %d completed, %d failed%s%n",
            s.backgroundRunsStarted, s.backgroundRunsCompleted, s.backgroundRunsFailed,
            background.lastFailure() == null ? "" : " (last: " + background.lastFailure() + ")");
        background = null;
      }
      s.blockCacheUsageBytes = e.longProperty("rocksdb.block-cache-usage");
      s.rssBytes = MachineMeter.rssBytes();
      long wrong = s.reads.stream().mapToLong(r -> r.wrong).sum()
          + s.service.stream().mapToLong(r -> r.wrong).sum() + s.verifyMissing + s.verifyWrong;
      if (wrong > 0) {
        out.println("read-bench: " + wrong + " reads returned a missing or wrong value");
        status = 1;
      }
    } catch (Exception ex) {
      s.error = String.valueOf(ex);
      out.println("read-bench: failed: " + ex);
      ex.printStackTrace(out);
      status = 3;
    } finally {
      if (background != null) {
        background.close();
      }
    }
    if (report != null) {
      s.write(report.resolve(ReadSummary.FILE));
      out.println("report: " + report.resolve(ReadSummary.FILE).toAbsolutePath());
    }
    return status;
  }

  private void fillHeader(ReadSummary s, EngineSettings settings) {
    s.engine = engine.name();
    s.label = label != null ? label : engine.name();
    s.arguments = arguments;
    s.options = settings.describe();
    s.startedAt = Instant.now().toString();
    s.workload = workload.name();
    s.rows = rows;
    s.keySize = keySize;
    s.valueSize = valueSize;
    s.seed = seed;
    s.keyOrder = keyOrder.name();
    s.machine.putAll(BulkImport.machine());
    String cpu = MachineMeter.cpuModel();
    if (cpu != null) {
      s.machine.put("cpu", cpu);
    }
  }

  /** Loads (or finds loaded), compacts if needed, prints the shape, verifies a sample. */
  private void prepare(Engine e, Rows rowGen, Path dbDir, boolean load, LoadedMarker wanted,
      ReadSummary s) throws Exception {
    s.loaded = load;
    if (load) {
      out.printf("load: %s rows in write batches of %d, WAL disabled, %d threads%n",
          Fmt.count(rows), batchSize, loadThreads);
      s.loadSeconds = BatchLoader.load(e, rowGen, rows, loadThreads, batchSize, out);
      s.loadRowsPerSecond = rows / s.loadSeconds;
      out.printf(Locale.ROOT, "load: %.1f s, %s rows/s; flush, compactRange() ...%n",
          s.loadSeconds, Fmt.count((long) s.loadRowsPerSecond));
      s.compactSeconds = BatchLoader.flushAndCompact(e);
      // The marker is written only now: a run killed during the load leaves none, and the next
      // --reuse refuses the half-loaded directory.
      Files.writeString(dbDir.resolve(LOADED_MARKER), new Gson().toJson(wanted) + "\n",
          StandardCharsets.UTF_8);
    } else {
      List<Long> files = BatchLoader.levelFiles(e);
      long nonEmptyLevels = files.stream().filter(f -> f > 0).count();
      long memtable = e.longProperty("rocksdb.num-entries-active-mem-table")
          + e.longProperty("rocksdb.num-entries-imm-mem-tables");
      if (memtable > 0 || files.get(0) > 0 || nonEmptyLevels > 1) {
        // A service run wrote into it (rows rewritten with their own values): compact again so
        // that every run reads the same shape.
        out.println("reuse: the database holds writes since its compaction (memtable entries "
            + memtable + ", files per level " + files + "); flush, compactRange() ...");
        s.compactSeconds = BatchLoader.flushAndCompact(e);
      } else {
        out.println("reuse: " + dbDir + " holds the " + Fmt.count(rows) + " rows, compacted");
      }
    }
    s.levelFiles = BatchLoader.levelFiles(e);
    s.bytesOnDisk = BulkImport.treeSize(dbDir);
    out.printf(Locale.ROOT, "shape: table files per level %s, %s on disk%s%n", s.levelFiles,
        Fmt.bytes(s.bytesOnDisk), s.compactSeconds >= 0
            ? String.format(Locale.ROOT, " (flush and compaction %.1f s)", s.compactSeconds) : "");
    Verifier v = new Verifier();
    v.run(e, rowGen, rows, Verifier.Mode.sample, Math.max(1, threads.stream()
        .mapToInt(Integer::intValue).max().orElse(1)), out);
    s.verifyChecked = v.checked;
    s.verifyMissing = v.missing;
    s.verifyWrong = v.wrong;
    out.printf(Locale.ROOT, "verify: sample of %s rows, %d missing, %d wrong%n",
        Fmt.count(v.checked), v.missing, v.wrong);
    for (String p : v.problems) {
      out.println("  " + p);
    }
  }

  private void runReads(ReadWorkloads reads, List<ReadWorkloads.Workload> parsed, ReadSummary s,
      BackgroundImport background) throws Exception {
    out.println();
    out.printf("%-13s %7s %13s %14s %9s %9s %9s %9s %9s %7s %7s%n", "workload", "threads",
        "ops/s", "entries/s", "p50", "p99", "p999", "max", "cpu/op", "cpuwait", "wrong");
    for (ReadWorkloads.Workload w : parsed) {
      for (int t : threads) {
        if (warmupSeconds > 0) {
          reads.run(w, t, warmupSeconds);
        }
        ReadSummary.ReadResult r = reads.run(w, t, seconds);
        r.backgroundImport = background != null && background.running();
        s.reads.add(r);
        out.printf(Locale.ROOT, "%-13s %7d %13s %14s %9s %9s %9s %9s %9s %6s%% %7d%n",
            r.workload, r.threads, w.fullScan()
                ? String.format(Locale.ROOT, "%.3f scans", r.opsPerSecond)
                : Fmt.count((long) r.opsPerSecond),
            Fmt.count((long) r.entriesPerSecond), us(r.p50Micros),
            us(r.p99Micros), us(r.p999Micros), us(r.maxMicros),
            us(r.machine.cpuMicrosPerOp), percent(r.machine.threadsCpuWaitPercent),
            r.wrong);
      }
    }
    out.println();
    out.println("latency of one call (full scans: of one whole scan); cpu/op: process CPU per"
        + " call (full scans: per entry); cpuwait: share of a reader's time runnable but"
        + " waiting for a CPU");
    printMachine(s.reads.stream().map(r -> new String[] {r.workload, Integer.toString(r.threads)})
        .toList(), s.reads.stream().map(r -> r.machine).toList());
  }

  private void runService(Engine e, Rows rowGen, ReadSummary s, BackgroundImport background)
      throws Exception {
    ServiceWorkload w = new ServiceWorkload(e, rowGen, rows, seed, requestThreads, readFraction,
        statistics);
    out.println();
    out.printf(Locale.ROOT, "service: %d request threads, %.0f%% gets, %s; talus max concurrent"
            + " writers %s%n", requestThreads, readFraction * 100,
        "latency from the scheduled arrival", engine == Engine.Kind.talus
            ? Integer.toString(talusMaxConcurrentWriters) : "(not Talus)");
    boolean needSaturation = rates.stream().anyMatch(r -> r.trim().endsWith("%"));
    List<ReadSummary.ServiceResult> results = new ArrayList<>();
    if (needSaturation) {
      if (warmupSeconds > 0) {
        w.saturate(warmupSeconds);
      }
      ReadSummary.ServiceResult sat = w.saturate(seconds);
      s.saturatedRate = sat.achievedRate;
      results.add(sat);
    }
    for (String r : rates) {
      double rate = rateValue(r, s.saturatedRate);
      String lbl = r.trim().endsWith("%") ? r.trim() : Fmt.count((long) rate) + "/s";
      results.add(w.openLoop(lbl, rate, seconds));
    }
    for (ReadSummary.ServiceResult r : results) {
      r.backgroundImport = background != null && background.running();
      s.service.add(r);
    }
    out.printf("%-10s %10s %10s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s%n", "rate",
        "offered/s", "done/s", "put p50", "put p99", "put p999", "put max", "get p50",
        "get p99", "get p999", "svc p99", "late p99", "unserved");
    for (ReadSummary.ServiceResult r : results) {
      out.printf(Locale.ROOT, "%-10s %10s %10s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9d%n",
          r.rate, r.offeredRate < 0 ? "-" : Fmt.count((long) r.offeredRate),
          Fmt.count((long) r.achievedRate), us(r.putP50Micros),
          us(r.putP99Micros), us(r.putP999Micros), us(r.putMaxMicros),
          us(r.getP50Micros), us(r.getP99Micros), us(r.getP999Micros),
          us(r.putServiceP99Micros), us(r.lateP99Micros), r.unserved);
    }
    for (ReadSummary.ServiceResult r : results) {
      if (r.gateEngagements >= 0) {
        out.printf(Locale.ROOT, "write admission at %s: engaged %d time(s), %d put(s) waited for a"
            + " turn%n", r.rate, r.gateEngagements, r.gateWaits);
      }
    }
    out.println();
    out.println("latency from the scheduled arrival to the end of the call; svc: the put call"
        + " alone; late: arrival to the start of the call (all request threads busy, or waking"
        + " up); saturated: closed loop, every thread back to back");
    printMachine(results.stream().map(r -> new String[] {r.rate, ""}).toList(),
        results.stream().map(r -> r.machine).toList());
  }

  private void printMachine(List<String[]> names, List<MachineMeter.Figures> figures) {
    out.println();
    out.printf("%-13s %7s %8s %8s %10s %11s %13s %10s %10s %9s%n", "machine", "threads",
        "cpu busy", "steal", "maj faults", "disk read", "reclaim scans", "page cache",
        "mem avail", "cache hit");
    for (int i = 0; i < names.size(); i++) {
      MachineMeter.Figures f = figures.get(i);
      out.printf(Locale.ROOT, "%-13s %7s %7s%% %7s%% %10d %11s %13d %10s %10s %9s%n",
          names.get(i)[0], names.get(i)[1], percent(f.machineCpuBusyPercent),
          percent(f.stealPercent), f.majorFaults, Fmt.bytes(f.diskReadBytes), f.reclaimScans,
          Fmt.bytes(f.pageCacheBytes), Fmt.bytes(f.memAvailableBytes),
          f.blockCacheHitRatio < 0 ? "n/a"
              : String.format(Locale.ROOT, "%.4f", f.blockCacheHitRatio));
    }
  }

  /** Microseconds scaled, or "-" for a figure not measured (-1). */
  private static String us(double micros) {
    return micros < 0 ? "-" : Fmt.micros(micros);
  }

  private static String percent(double p) {
    return p < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", p);
  }

  private static boolean isLoaded(Path dbDir, LoadedMarker wanted) {
    Path marker = dbDir.resolve(LOADED_MARKER);
    if (!Files.isRegularFile(marker)) {
      return false;
    }
    try {
      LoadedMarker m = new Gson().fromJson(Files.readString(marker, StandardCharsets.UTF_8),
          LoadedMarker.class);
      return Objects.equals(m, wanted);
    } catch (IOException | RuntimeException e) {
      return false;
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

  /** For tests: the figures by workload label and thread count. */
  Map<String, ReadSummary.ReadResult> resultsByName() {
    Map<String, ReadSummary.ReadResult> m = new LinkedHashMap<>();
    for (ReadSummary.ReadResult r : summary.reads) {
      m.put(r.workload + "@" + r.threads, r);
    }
    return m;
  }

  /**
   * Asks the kernel to drop the cached pages of every regular file under {@code dir}, with
   * GNU dd's {@code iflag=nocache count=0} (posix_fadvise DONTNEED on the whole file): clean
   * pages go, dirty ones stay. Nothing is read or written.
   *
   * @return the number of files dd failed on, or -1 when dd could not be started
   */
  static int dropFromPageCache(Path dir) throws IOException, InterruptedException {
    int failed = 0;
    for (Path f : BulkImport.regularFiles(dir)) {
      Process p;
      try {
        p = new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0", "status=none")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
      } catch (IOException noDd) {
        return -1;
      }
      if (p.waitFor() != 0) {
        failed++;
      }
    }
    return failed;
  }

  /**
   * Reads every regular file under {@code dir} once and discards the bytes: the OS page cache
   * then holds the database whatever ran on the machine before, for both engines alike.
   *
   * @return bytes read
   */
  static long readFiles(Path dir) throws IOException {
    long total = 0;
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    for (Path f : BulkImport.regularFiles(dir)) {
      try (FileChannel ch = FileChannel.open(f)) {
        int n;
        while ((n = ch.read(buf.clear())) >= 0) {
          total += n;
        }
      } catch (NoSuchFileException gone) {
        // Deleted since the listing (an obsolete file the engine removed): nothing to warm.
      }
    }
    return total;
  }
}
