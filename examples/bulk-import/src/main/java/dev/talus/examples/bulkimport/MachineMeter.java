package dev.talus.examples.bulkimport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the machine did while a workload ran: the figures that tell a read made slow by the
 * engine from one made slow by a shared machine. {@link ReadBench} takes a {@link Snapshot}
 * before and after each timed workload and keeps the {@link Figures} between them.
 *
 * <p>The causes it separates, and where each is read (Linux; elsewhere the figure is -1):
 *
 * <ul>
 *   <li>CPU: the machine's busy and steal share ({@code /proc/stat}) and how long the benchmark's
 *       own threads were runnable but waiting for a CPU ({@link CpuWait#waitNanos}); CPU time the
 *       process spent per operation ({@link CpuWait#processCpuNanos}), which contention changes
 *       far less than it changes latency.
 *   <li>Memory and page cache: major page faults of this process ({@code /proc/self/stat}), pages
 *       the kernel scanned to reclaim memory ({@code pgscan_*} of {@code /proc/vmstat}), the page
 *       cache size and available memory at the end ({@code /proc/meminfo}).
 *   <li>IO: bytes this process read from the storage layer ({@code read_bytes} of {@code
 *       /proc/self/io}: page cache misses), and with statistics on, block cache misses.
 * </ul>
 */
final class MachineMeter {
  private static final Path PROC_STAT = Path.of("/proc/stat");
  private static final Path SELF_STAT = Path.of("/proc/self/stat");
  private static final Path SELF_IO = Path.of("/proc/self/io");
  private static final Path VMSTAT = Path.of("/proc/vmstat");
  private static final Path MEMINFO = Path.of("/proc/meminfo");
  private static final Path SELF_STATUS = Path.of("/proc/self/status");
  private static final Path CPUINFO = Path.of("/proc/cpuinfo");

  private MachineMeter() {}

  /** Cumulative counters at one instant; -1 where unknown. */
  record Snapshot(long nanos, long processCpuNanos, long threadsWaitNanos, long cpuTotal,
      long cpuIdle, long cpuSteal, long majorFaults, long readBytes, long reclaimScans,
      long cacheHits, long cacheMisses) {}

  /**
   * The figures of one timed interval, as stored in the summary. -1 where unknown.
   */
  static final class Figures {
    /** CPU time of the whole process per operation, microseconds (engine and benchmark). */
    double cpuMicrosPerOp = -1;
    /**
     * Share of its time a benchmark thread spent runnable but waiting for a CPU, percent, the
     * mean over the threads: 0 when each had a CPU whenever it could run; with 8 busy threads
     * on 2 idle cores, about 75.
     */
    double threadsCpuWaitPercent = -1;
    /** Share of the machine's CPU time that was busy (not idle, not IO wait), percent. */
    double machineCpuBusyPercent = -1;
    /** CPU steal by the host, percent of the machine's CPU time. */
    double stealPercent = -1;
    /** Major page faults of this process (pages read from disk on access). */
    long majorFaults = -1;
    /** Bytes this process caused to be read from storage (page cache misses). */
    long diskReadBytes = -1;
    /** Pages the kernel scanned to reclaim memory, machine-wide (pgscan_kswapd + direct). */
    long reclaimScans = -1;
    /** Page cache size at the end, bytes (Cached of /proc/meminfo). */
    long pageCacheBytes = -1;
    /** Memory available at the end, bytes (MemAvailable of /proc/meminfo). */
    long memAvailableBytes = -1;
    /** Block cache hits / (hits + misses) with statistics on; -1 without. */
    double blockCacheHitRatio = -1;
    /** Block cache misses with statistics on; -1 without. */
    long blockCacheMisses = -1;
  }

  /**
   * Reads the counters now.
   *
   * @param engine for the block cache tickers, or null
   * @param statistics whether the engine collects statistics
   * @param threadPrefix the name prefix of the benchmark's threads
   */
  static Snapshot snapshot(Engine engine, boolean statistics, String threadPrefix) {
    long[] cpu = cpuTicks();
    return new Snapshot(System.nanoTime(), CpuWait.processCpuNanos(),
        CpuWait.waitNanos(threadPrefix), cpu == null ? -1 : cpu[0], cpu == null ? -1 : cpu[1],
        cpu == null ? -1 : cpu[2], majorFaults(), readBytes(), reclaimScans(),
        statistics && engine != null ? engine.ticker(Engine.Ticker.BLOCK_CACHE_HIT) : -1,
        statistics && engine != null ? engine.ticker(Engine.Ticker.BLOCK_CACHE_MISS) : -1);
  }

  /**
   * The figures between two snapshots.
   *
   * @param ops operations done between them (for CPU per operation)
   * @param threads the benchmark's threads running between them
   */
  static Figures between(Snapshot a, Snapshot b, long ops, int threads) {
    Figures f = new Figures();
    double wall = (b.nanos - a.nanos) / 1e9;
    if (a.processCpuNanos >= 0 && b.processCpuNanos >= 0 && ops > 0) {
      f.cpuMicrosPerOp = (b.processCpuNanos - a.processCpuNanos) / 1e3 / ops;
    }
    if (a.threadsWaitNanos >= 0 && b.threadsWaitNanos >= 0 && wall > 0 && threads > 0) {
      // Threads started after the first snapshot count from zero: their whole wait is in b.
      f.threadsCpuWaitPercent = 100.0 * Math.max(0, b.threadsWaitNanos - a.threadsWaitNanos)
          / 1e9 / (wall * threads);
    }
    long total = b.cpuTotal - a.cpuTotal;
    if (a.cpuTotal >= 0 && total > 0) {
      f.machineCpuBusyPercent = 100.0 * (total - (b.cpuIdle - a.cpuIdle)) / total;
      f.stealPercent = 100.0 * (b.cpuSteal - a.cpuSteal) / total;
    }
    f.majorFaults = diff(a.majorFaults, b.majorFaults);
    f.diskReadBytes = diff(a.readBytes, b.readBytes);
    f.reclaimScans = diff(a.reclaimScans, b.reclaimScans);
    f.pageCacheBytes = meminfo("Cached:");
    f.memAvailableBytes = meminfo("MemAvailable:");
    if (a.cacheHits >= 0 && b.cacheHits >= 0) {
      long hits = b.cacheHits - a.cacheHits;
      long misses = b.cacheMisses - a.cacheMisses;
      f.blockCacheMisses = misses;
      f.blockCacheHitRatio = hits + misses == 0 ? -1 : hits / (double) (hits + misses);
    }
    return f;
  }

  private static long diff(long a, long b) {
    return a < 0 || b < 0 ? -1 : b - a;
  }

  /** {total, idle (idle + iowait), steal} ticks of the machine, or null. */
  private static long[] cpuTicks() {
    try {
      for (String line : Files.readAllLines(PROC_STAT)) {
        if (line.startsWith("cpu ")) {
          String[] f = line.trim().split("\\s+");
          long total = 0;
          // user nice system idle iowait irq softirq steal (guest time is inside user)
          for (int i = 1; i <= 8 && i < f.length; i++) {
            total += Long.parseLong(f[i]);
          }
          long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
          return new long[] {total, idle, f.length > 8 ? Long.parseLong(f[8]) : 0};
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return null;
  }

  private static long majorFaults() {
    try {
      String s = Files.readString(SELF_STAT);
      // Fields after the command name, which is in parentheses and may hold spaces: the
      // major fault count is field 12 of the line, the 10th after ")".
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[9]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static long readBytes() {
    return keyedValue(SELF_IO, "read_bytes:", 1);
  }

  private static long reclaimScans() {
    try {
      long sum = 0;
      boolean found = false;
      for (String line : Files.readAllLines(VMSTAT)) {
        if (line.startsWith("pgscan_kswapd ") || line.startsWith("pgscan_direct ")) {
          sum += Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
          found = true;
        }
      }
      return found ? sum : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** A field of /proc/meminfo in bytes, or -1. */
  static long meminfo(String key) {
    return keyedValue(MEMINFO, key, 1024);
  }

  /** Resident memory of this process, bytes, or -1. */
  static long rssBytes() {
    return keyedValue(SELF_STATUS, "VmRSS:", 1024);
  }

  /** The CPU's model name, or null. */
  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(CPUINFO)) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return null;
  }

  private static long keyedValue(Path file, String key, long unit) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(key)) {
          String v = line.substring(key.length()).trim().split("\\s+")[0];
          return Long.parseLong(v) * unit;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or not readable
    }
    return -1;
  }
}
