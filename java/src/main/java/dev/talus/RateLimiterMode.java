package dev.talus;

/**
 * Which IO a {@link RateLimiter} charges, with RocksJava's byte values. Writes are the table
 * files flushes and compactions write; reads are the table blocks compactions read (their input),
 * as in RocksDB. Reads for {@code get}, {@code multiGetAsList}, iterators and {@code
 * verifyChecksum} are never charged, nor are blocks found in the block cache (RocksDB charges user
 * reads only when their read options name a rate-limiter priority, which Talus's {@link
 * ReadOptions} do not offer).
 *
 * <p>The same constants are reachable as {@code RateLimiter.RateLimiterMode.WRITES_ONLY}, and the
 * C++-style names {@link #kReadsOnly}, {@link #kWritesOnly} and {@link #kAllIo} are aliases of
 * the constants below (the same objects, so {@code kWritesOnly == WRITES_ONLY}).
 */
public enum RateLimiterMode {
  /** Only compaction reads are limited; flush and compaction writes pass freely. */
  READS_ONLY((byte) 0x00),

  /** Only writes are limited (RocksJava's and Talus's default). */
  WRITES_ONLY((byte) 0x01),

  /** Compaction reads and flush and compaction writes are limited. */
  ALL_IO((byte) 0x02);

  /** Alias of {@link #READS_ONLY}, RocksDB's C++ name {@code kReadsOnly}. */
  public static final RateLimiterMode kReadsOnly = READS_ONLY;

  /** Alias of {@link #WRITES_ONLY}, RocksDB's C++ name {@code kWritesOnly}. */
  public static final RateLimiterMode kWritesOnly = WRITES_ONLY;

  /** Alias of {@link #ALL_IO}, RocksDB's C++ name {@code kAllIo}. */
  public static final RateLimiterMode kAllIo = ALL_IO;

  private final byte value;

  RateLimiterMode(final byte value) {
    this.value = value;
  }

  /**
   * Returns RocksJava's byte value of this mode.
   *
   * @return 0 for {@link #READS_ONLY}, 1 for {@link #WRITES_ONLY}, 2 for {@link #ALL_IO}
   */
  public byte getValue() {
    return value;
  }

  /**
   * Returns the mode with byte value {@code value}.
   *
   * @param value 0, 1 or 2
   * @return the mode with that value
   * @throws IllegalArgumentException for any other value
   */
  public static RateLimiterMode getRateLimiterMode(final byte value) {
    for (final RateLimiterMode m : RateLimiterMode.values()) {
      if (m.value == value) {
        return m;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for RateLimiterMode: " + value);
  }
}
