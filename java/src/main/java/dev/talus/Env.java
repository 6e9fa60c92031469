package dev.talus;

/**
 * The environment of the background thread pools (RocksJava's {@code Env}), as far as Talus has
 * one: the process-wide {@link #getDefault() default environment}, used by every {@link TalusDB}.
 * Each database has its own flush ({@link Priority#HIGH}) and compaction ({@link Priority#LOW})
 * threads, sized by {@link Options#setMaxBackgroundJobs(int)}; what the environment holds is the
 * CPU priority those threads run at.
 *
 * <p>Only the methods below exist; RocksJava's thread-count and IO-priority methods are not part
 * of this class.
 */
public final class Env {
  private static final Env DEFAULT = new Env();

  private Env() {}

  /**
   * The process-wide environment (RocksJava's {@code Env.getDefault()}). It is never closed.
   *
   * @return the default environment
   */
  public static Env getDefault() {
    return DEFAULT;
  }

  /**
   * Lowers the CPU priority of {@code pool}'s threads, in every database of the process, open now
   * or later: on Linux each such thread sets its nice value to 19 before its next job (RocksDB's
   * {@code CpuPriority::kLow}). It cannot be raised again. Lowering {@link Priority#LOW} keeps
   * compactions from taking the CPU writer threads need when there are more of them than cores;
   * compactions then run mostly on idle CPU, and the L0 triggers and write stalls still bound
   * how far they fall behind. Lowering {@link Priority#BOTTOM} changes no thread (Talus has no
   * bottom pool). Outside Linux the call is accepted and threads keep their priority.
   *
   * @param pool {@link Priority#BOTTOM}, {@link Priority#LOW} or {@link Priority#HIGH}
   * @return this environment
   * @throws IllegalArgumentException if {@code pool} is {@link Priority#TOTAL}
   * @throws NullPointerException if {@code pool} is null
   */
  public Env lowerThreadPoolCPUPriority(Priority pool) {
    if (pool == null) {
      throw new NullPointerException("pool");
    }
    NativeLibrary.load();
    nativeLowerThreadPoolCPUPriority(pool.getValue());
    return this;
  }

  /**
   * Talus addition: whether {@link #lowerThreadPoolCPUPriority(Priority)} was called for {@code
   * pool}.
   *
   * @param pool {@link Priority#BOTTOM}, {@link Priority#LOW} or {@link Priority#HIGH}
   * @return true once the pool's CPU priority is lowered
   * @throws IllegalArgumentException if {@code pool} is {@link Priority#TOTAL}
   * @throws NullPointerException if {@code pool} is null
   */
  public boolean isThreadPoolCPUPriorityLowered(Priority pool) {
    if (pool == null) {
      throw new NullPointerException("pool");
    }
    NativeLibrary.load();
    return nativeIsThreadPoolCPUPriorityLowered(pool.getValue());
  }

  private static native void nativeLowerThreadPoolCPUPriority(byte pool);

  private static native boolean nativeIsThreadPoolCPUPriorityLowered(byte pool);
}
