package dev.talus;

/**
 * How much the perf context of a thread records (RocksJava's {@code PerfLevel}). Levels are
 * cumulative; set one with {@link TalusDB#setPerfLevel(PerfLevel)}, which acts on the calling
 * thread only.
 *
 * <p>The byte values are RocksJava's, which differ from RocksDB's C++ numbering. Talus adds
 * {@link #ENABLE_WAIT} (C++ {@code kEnableWait}, which RocksJava lacks) as byte 7, a value
 * RocksJava does not use.
 *
 * <p>A thread that never set a level is at {@link #DISABLE} and records nothing. This deviates
 * from RocksDB, whose threads start at {@link #ENABLE_COUNT}: with Talus, only threads that ask
 * pay for counting.
 */
public enum PerfLevel {
  /** Not a level: {@code setPerfLevel} rejects it. */
  UNINITIALIZED((byte) 0),
  /** Record nothing (the default of every thread). */
  DISABLE((byte) 1),
  /** Counters (counts and byte counts) and write-stall counts and micros. */
  ENABLE_COUNT((byte) 2),
  /** Counters and every timer except the DB mutex and condition-variable timers. */
  ENABLE_TIME_EXCEPT_FOR_MUTEX((byte) 3),
  /** As {@link #ENABLE_TIME_EXCEPT_FOR_MUTEX}: Talus has no CPU-time timers. */
  ENABLE_TIME_AND_CPU_TIME_EXCEPT_FOR_MUTEX((byte) 4),
  /** Everything, DB mutex lock and condition-variable wait times included. */
  ENABLE_TIME((byte) 5),
  /**
   * Not a level: {@code setPerfLevel} rejects it.
   *
   * @deprecated as in RocksJava: a sentinel, never a thread's level
   */
  @Deprecated
  OUT_OF_BOUNDS((byte) 6),
  /**
   * Talus addition (C++ {@code kEnableWait}, between {@link #ENABLE_COUNT} and {@link
   * #ENABLE_TIME_EXCEPT_FOR_MUTEX}): counters and the time user threads wait on the engine
   * ({@code writeThreadWaitNanos}, {@code writeDelayTime}, {@code writeMemtableTime}).
   */
  ENABLE_WAIT((byte) 7);

  private final byte value;

  PerfLevel(byte value) {
    this.value = value;
  }

  /** @return the byte value that crosses to the native library */
  public byte getValue() {
    return value;
  }

  /**
   * The level with byte value {@code value}.
   *
   * @param value a byte value of this enum
   * @return the level
   * @throws IllegalArgumentException for an unknown value
   */
  public static PerfLevel getPerfLevel(byte value) {
    for (PerfLevel l : values()) {
      if (l.value == value) {
        return l;
      }
    }
    throw new IllegalArgumentException("unknown PerfLevel value " + value);
  }
}
