package dev.talus.examples.bulkimport;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of one {@link ReadBench} run: written as {@code read-summary.json} with {@code
 * --report}, read back by {@link ReadCompareTable}. Latencies in microseconds, sizes in bytes,
 * times in seconds unless a field name says otherwise; -1 where a figure is unknown. A plain data
 * object for Gson.
 */
final class ReadSummary {
  /** File name under the report directory. */
  static final String FILE = "read-summary.json";

  /** "talus" or "rocksdb". */
  String engine;
  /** The column this run belongs to in a comparison (--label; default: the engine). */
  String label;
  /** Engine and version, e.g. "rocksdb 11.8.1 (RocksJava rocksdbjni)". */
  String engineVersion;
  /** The command line flags of the run. */
  String arguments;
  /** The engine options, one line (identical on both engines but for the engine-only ones). */
  String options;
  /** ISO-8601 start time. */
  String startedAt;
  /** Cores, memory and JVM of the machine. */
  Map<String, String> machine = new LinkedHashMap<>();

  /** "reads" or "service". */
  String workload;
  long rows;
  int keySize;
  int valueSize;
  long seed;
  String keyOrder;

  /** Whether this run loaded the rows (false: --reuse found them loaded). */
  boolean loaded;
  /** Seconds of the load (write batches, WAL off), its final flush excluded; -1 when reused. */
  double loadSeconds = -1;
  double loadRowsPerSecond = -1;
  /** Seconds of the flush, compactRange and the wait for background compactions. */
  double compactSeconds = -1;
  /** Table files per level after the compaction, L0 first. */
  List<Long> levelFiles = new ArrayList<>();
  /** Bytes of the database directory before the workloads. */
  long bytesOnDisk = -1;
  long verifyChecked;
  long verifyMissing;
  long verifyWrong;
  /**
   * Seconds of the file warm-up before the workloads (dropping the files from the page cache,
   * with --drop-cached-files, then reading them); -1 without.
   */
  double warmupFilesSeconds = -1;
  /** Bytes read by that warm-up. */
  long warmupFilesBytes;
  /**
   * Files of the database that could not be dropped from the OS page cache before that read
   * (--drop-cached-files): 0 when all were, -1 when dd did not start, -2 when not asked.
   */
  int warmupFilesDropFailures = -2;
  /** Seconds of the warm-up full scan (fills the block cache); -1 without. */
  double warmupScanSeconds = -1;

  /** Rows of each background import (--background-import; 0 = none). */
  long backgroundImportRows;
  /** The background import's engine. */
  String backgroundEngine;
  /** Background imports started and completed while the workloads ran. */
  int backgroundRunsStarted;
  int backgroundRunsCompleted;
  /** Background imports that failed (exited non-zero before being stopped). */
  int backgroundRunsFailed;

  /** One entry per read workload and thread count, in the order run. */
  List<ReadResult> reads = new ArrayList<>();
  /** The closed-loop rate of the service workload's request threads, operations per second. */
  double saturatedRate = -1;
  /** One entry per rate of the service workload, the saturation run first. */
  List<ServiceResult> service = new ArrayList<>();

  /** Block cache usage at the end (rocksdb.block-cache-usage). */
  long blockCacheUsageBytes = -1;
  /** Resident memory of the process at the end. */
  long rssBytes = -1;
  /** Set when the run failed. */
  String error;

  /** One read workload at one thread count. */
  static final class ReadResult {
    /** get-present, get-absent, multiget, get-direct, scan-forward, scan-reverse, scan-range. */
    String workload;
    int threads;
    /** Wall seconds of the timed part. */
    double seconds;
    /** Calls (gets, multiGetAsList calls, range scans) or completed full scans. */
    long ops;
    /** ops / seconds; for full scans, entries / rows / seconds (fractional scans count). */
    double opsPerSecond;
    /** Entries read: values returned by gets, iterator entries of scans. */
    long entries;
    double entriesPerSecond;
    /** Latency of one call, or of one complete full scan; microseconds. */
    double p50Micros = -1;
    double p99Micros = -1;
    double p999Micros = -1;
    double maxMicros = -1;
    double meanMicros = -1;
    /** Reads that returned a missing, unexpected or wrong value. */
    long wrong;
    /** Whether a background import ran during it. */
    boolean backgroundImport;
    MachineMeter.Figures machine;
  }

  /** The service workload at one arrival rate (or closed loop, for the saturated rate). */
  static final class ServiceResult {
    /** "saturated" (closed loop), "25%" (of the saturated rate) or "20000/s". */
    String rate;
    /** Arrivals per second scheduled; -1 for the closed loop. */
    double offeredRate;
    /** Requests completed per second over the scheduled time. */
    double achievedRate;
    /** Requests scheduled before the end and completed. */
    long served;
    /** Requests scheduled before the end and not started within the drain time. */
    long unserved;
    /** Times Talus's write admission engaged during it; -1: RocksJava, or without --statistics. */
    long gateEngagements = -1;
    /** Puts that slept at Talus's write admission gate; -1 as above. */
    long gateWaits = -1;
    long puts;
    long gets;
    /** Put latency from its scheduled arrival to its end, microseconds. */
    double putP50Micros = -1;
    double putP99Micros = -1;
    double putP999Micros = -1;
    double putMaxMicros = -1;
    /** Get latency from its scheduled arrival to its end (with --read-fraction). */
    double getP50Micros = -1;
    double getP99Micros = -1;
    double getP999Micros = -1;
    double getMaxMicros = -1;
    /** Put service time, from the call to its return (no queueing), microseconds. */
    double putServiceP50Micros = -1;
    double putServiceP99Micros = -1;
    /** How late requests started after their scheduled arrival (queueing and wake-up). */
    double lateP50Micros = -1;
    double lateP99Micros = -1;
    long wrong;
    boolean backgroundImport;
    MachineMeter.Figures machine;
  }

  private static final Gson GSON =
      new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create();

  void write(Path file) throws IOException {
    Files.writeString(file, GSON.toJson(this) + "\n", StandardCharsets.UTF_8);
  }

  static ReadSummary read(Path file) throws IOException {
    return GSON.fromJson(Files.readString(file, StandardCharsets.UTF_8), ReadSummary.class);
  }
}
