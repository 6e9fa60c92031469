package dev.talus.examples.bulkimport;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The figures of one run: printed at the end, written as {@code summary.json} with {@code
 * --report}, and read back by {@link CompareTable}. Latencies in microseconds, sizes in bytes,
 * times in seconds unless a field name says otherwise. A plain data object for Gson.
 */
final class Summary {
  /** "talus" or "rocksdb". */
  String engine;
  /** Engine and version, e.g. "rocksdb 11.8.1 (RocksJava rocksdbjni)". */
  String engineVersion;
  /** The command line flags of the run, as given to the harness. */
  String arguments;
  /** The engine options, one line. */
  String options;
  /** ISO-8601 start time. */
  String startedAt;
  /** Cores, memory and JVM of the machine. */
  Map<String, String> machine = new LinkedHashMap<>();

  long rows;
  int threads;
  int keySize;
  int valueSize;
  long flushEvery;
  int l0Backpressure;
  long backpressureSleepMs;
  long rateLimitMb;
  long walBytesPerSyncMb;
  String keyOrder;
  long seed;

  /** Seconds from the first put to the end of the final flush. */
  double elapsedSeconds;
  /** --mode: put, ingest or bulk-load. */
  String mode;
  /** Seconds of the final compactRange (every mode; inside elapsedSeconds). */
  double finalCompactSeconds;
  /** --mode ingest: bytes of the table files ingested. */
  long ingestedBytes;
  /**
   * Bytes written to table files (flushes, compactions, and with --mode ingest the ingested
   * files) per byte of keys and values imported.
   */
  double writeAmpTableBytes;
  double rowsPerSecond;
  /** Key and value bytes per second, MiB. */
  double mbPerSecond;

  double putP50Micros;
  double putP99Micros;
  double putP999Micros;
  double putMaxMicros;
  double putMeanMicros;
  /** Puts that took longer than 50 ms (counted exactly, not from the histogram). */
  long putsOver50ms;
  /**
   * Puts that took longer than 10 ms and than 20 ms, from the run's latency histogram (3
   * significant digits: exact to 0.1% of the value). The tail below the 50 ms of the goal, with
   * enough puts in it to compare runs whose count over 50 ms is a handful.
   */
  long putsOver10ms;
  long putsOver20ms;

  /**
   * Seconds the writer threads were runnable but waiting for a CPU, summed over the writers
   * ({@link CpuWait}); -1 where the OS does not tell. Part of any put latency it falls in.
   */
  double writersCpuWaitSeconds = -1;
  /** The machine's CPU steal over the run, percent of CPU time ({@link CpuWait}); -1 if unknown. */
  double stealPercent = -1;
  /**
   * CPU seconds (user and system) the process used from the first put to the end of the final
   * flush: writers, the engine's background threads, the JVM; -1 if unknown. Both engines run in
   * the harness's process, so the figure covers all the work of either.
   */
  double processCpuSeconds = -1;
  /** CPU seconds of the writer threads (their puts, key generation and flush calls). */
  double writersCpuSeconds = -1;

  /** Flushes made by the import's rhythm (every flushEvery rows), plus the final one. */
  long flushes;
  /** Seconds writers spent in those flushes (waiting for them). */
  double flushWaitSeconds;
  /** Back-pressure sleeps (L0 files at or above l0Backpressure after a flush). */
  long backpressureSleeps;

  /** Where the stall figures come from. */
  String stallSource;
  /** Statistics STALL_MICROS: microseconds write groups were delayed or stopped (both engines). */
  long stallMicros;
  /** Write-stall condition counts by cause, from rocksdb.cf-write-stall-stats (both engines). */
  Map<String, Long> stallConditionCounts = new LinkedHashMap<>();
  /** Talus only: stalled writes summed over the writer threads (ThreadLocalInfo); -1 otherwise. */
  long writerStallCount = -1;
  /** Talus only: stall microseconds summed over the writer threads; -1 otherwise. */
  long writerStallMicros = -1;
  /** Talus only: writer stall microseconds by cause. */
  Map<String, Long> writerStallMicrosByCause = new LinkedHashMap<>();

  /** Write amplification: the Sum row's W-Amp of rocksdb.stats (flush + compaction / flush). */
  double writeAmp;
  /** (FLUSH_WRITE_BYTES + COMPACT_WRITE_BYTES) / BYTES_WRITTEN, from the statistics tickers. */
  double writeAmpTickers;
  long flushWriteBytes;
  long compactWriteBytes;
  long bytesWritten;
  /** WAL syncs made by the engine (Statistics WAL_FILE_SYNC_MICROS count). */
  long walSyncCount;
  /** p99 of a WAL sync, microseconds. */
  double walSyncP99Micros;
  /** Longest WAL sync, microseconds. */
  double walSyncMaxMicros;
  /** Bytes of the database and WAL directories after the final flush. */
  long bytesOnDisk;
  long l0FilesAtEnd;
  long pendingCompactionBytesAtEnd;
  /** Peak L0 files seen in the per-second samples. */
  long l0FilesMax;

  /** Largest Java heap use seen in the per-second samples (includes uncollected garbage). */
  long heapUsedMaxBytes;
  /** Largest resident memory of the process seen in the samples (heap and native memory). */
  long rssMaxBytes;

  /** none, sample or all. */
  String verify;
  long verifyChecked;
  long verifyMissing;
  long verifyWrong;
  double verifySeconds;
  /** Set when the run failed. */
  String error;

  private static final Gson GSON =
      new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create();

  void write(Path file) throws IOException {
    Files.writeString(file, GSON.toJson(this) + "\n", StandardCharsets.UTF_8);
  }

  static Summary read(Path file) throws IOException {
    return GSON.fromJson(Files.readString(file, StandardCharsets.UTF_8), Summary.class);
  }
}
