package dev.talus.examples.bulkimport;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How long the writer threads waited for a CPU, and how much CPU the hypervisor took: what
 * explains a put slower than anything the engine did (Linux only; elsewhere both read -1). And
 * the CPU time the import cost, which a CPU-starved machine changes far less than it changes
 * elapsed time.
 *
 * <p>Writers' CPU wait is the run-queue wait of every thread named {@code writer-N}, the second
 * field of {@code /proc/self/task/TID/schedstat} (nanoseconds runnable but not running, on a
 * preempted or just-woken thread). A put's latency includes any such wait that falls inside it.
 * Steal is the {@code steal} column of {@code /proc/stat}: time this virtual machine's CPUs were
 * runnable but not run by the host, as a percentage of all CPU time. Both are cumulative
 * counters; {@link Progress} samples them once a second.
 */
final class CpuWait {
  private static final Path TASKS = Path.of("/proc/self/task");
  private static final Path STAT = Path.of("/proc/stat");

  private CpuWait() {}

  /** Run-queue wait of the writer threads so far, nanoseconds (live threads only); -1 if unknown. */
  static long writersWaitNanos() {
    return waitNanos(Importer.WRITER_THREAD_PREFIX);
  }

  /**
   * Run-queue wait so far of the live threads whose name starts with {@code prefix},
   * nanoseconds; -1 if unknown.
   */
  static long waitNanos(String prefix) {
    long sum = 0;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        try {
          if (!Files.readString(task.resolve("comm")).startsWith(prefix)) {
            continue;
          }
          String[] f = Files.readString(task.resolve("schedstat")).trim().split(" ");
          sum += Long.parseLong(f[1]);
        } catch (IOException | RuntimeException e) {
          // the thread ended between the listing and the read
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return sum;
  }

  /** CPU time (user and system) of the calling thread so far, nanoseconds; 0 if unknown. */
  static long currentThreadCpuNanos() {
    ThreadMXBean t = ManagementFactory.getThreadMXBean();
    return t.isCurrentThreadCpuTimeSupported() ? Math.max(0, t.getCurrentThreadCpuTime()) : 0;
  }

  /**
   * CPU time (user and system) of the whole process so far, every thread's, ended ones included:
   * the writers, the engine's flush and compaction threads, the JVM's. Nanoseconds; -1 if unknown.
   */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** {steal, total} CPU ticks of the machine so far, or null if unknown. */
  static long[] cpuTicks() {
    try {
      for (String line : Files.readAllLines(STAT)) {
        if (line.startsWith("cpu ")) {
          String[] f = line.trim().split("\\s+");
          long total = 0;
          // user nice system idle iowait irq softirq steal (guest time is inside user)
          for (int i = 1; i <= 8 && i < f.length; i++) {
            total += Long.parseLong(f[i]);
          }
          return new long[] {f.length > 8 ? Long.parseLong(f[8]) : 0, total};
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return null;
  }

  /** Steal between two {@link #cpuTicks()} readings, percent of CPU time; -1 if unknown. */
  static double stealPercent(long[] from, long[] to) {
    if (from == null || to == null || to[1] <= from[1]) {
      return -1;
    }
    return 100.0 * (to[0] - from[0]) / (to[1] - from[1]);
  }
}
