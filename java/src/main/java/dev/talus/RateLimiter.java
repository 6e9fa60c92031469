package dev.talus;

/**
 * Limits the IO rate of flushes and compactions (not the WAL), as RocksJava's {@code
 * RateLimiter}: a token bucket refilled every {@code refillPeriodMicros} with {@code
 * rateBytesPerSecond * refillPeriodMicros / 1 000 000} bytes. Unused tokens do not accumulate beyond one
 * period. Flush output is charged at high priority and compaction output at low priority; with
 * both waiting, low priority is served first at about one refill in {@code fairness}, so it is
 * never starved. While writes are stalled, flush output and (unless the stall is for too many
 * memtables, which only flushes release) compaction output are served first.
 *
 * <p>Unlike RocksDB, a refill period over 100 ms is refilled every 100 ms, each refill adding
 * 100 ms worth of tokens and the bucket holding at most one period's worth: the period still
 * bounds the burst and the rate the long run, but a write that finds the bucket empty waits for
 * its own bytes at the rate instead of for the rest of the period (with a period of {@code 10 *
 * 1024 * 1024} µs, up to 10.5 s while writers stand stopped behind the flush).
 *
 * <p>Pass it with {@code Options.setRateLimiter(RateLimiter)}. It may be shared by several
 * databases; each database holds its own reference, so closing this object while databases still
 * use the limiter is safe.
 *
 * <p>Both spellings of the mode work: {@code RateLimiterMode.WRITES_ONLY} (RocksJava's top-level
 * enum {@link dev.talus.RateLimiterMode}) and {@code RateLimiter.RateLimiterMode.kWritesOnly} (as
 * some importers write it; see {@link RateLimiter.RateLimiterMode}).
 */
public class RateLimiter extends SharedNativeHandle {
  /** Default refill period: 100 000 microseconds (100 ms). */
  public static final long DEFAULT_REFILL_PERIOD_MICROS = 100_000L;

  /** Default fairness: low priority is served first in about 1 refill of 10. */
  public static final int DEFAULT_FAIRNESS = 10;

  /** Default mode: {@link dev.talus.RateLimiterMode#WRITES_ONLY}. */
  public static final dev.talus.RateLimiterMode DEFAULT_MODE =
      dev.talus.RateLimiterMode.WRITES_ONLY;

  /** Default for auto-tuning: off. */
  public static final boolean DEFAULT_AUTOTUNE = false;

  /**
   * The constants of {@link dev.talus.RateLimiterMode} under the nested name {@code
   * RateLimiter.RateLimiterMode}, so that {@code RateLimiter.RateLimiterMode.kWritesOnly} (C++
   * style, as some importers write it) and {@code RateLimiter.RateLimiterMode.WRITES_ONLY}
   * both compile. Every field is the very same enum constant as the top-level one ({@code
   * RateLimiter.RateLimiterMode.kWritesOnly == RateLimiterMode.WRITES_ONLY}). This is a holder of
   * constants, not a type: declare variables as {@link dev.talus.RateLimiterMode}.
   */
  public static final class RateLimiterMode {
    /** {@link dev.talus.RateLimiterMode#READS_ONLY}. */
    public static final dev.talus.RateLimiterMode READS_ONLY = dev.talus.RateLimiterMode.READS_ONLY;

    /** {@link dev.talus.RateLimiterMode#WRITES_ONLY}. */
    public static final dev.talus.RateLimiterMode WRITES_ONLY =
        dev.talus.RateLimiterMode.WRITES_ONLY;

    /** {@link dev.talus.RateLimiterMode#ALL_IO}. */
    public static final dev.talus.RateLimiterMode ALL_IO = dev.talus.RateLimiterMode.ALL_IO;

    /** Alias of {@link #READS_ONLY} (C++ name). */
    public static final dev.talus.RateLimiterMode kReadsOnly = READS_ONLY;

    /** Alias of {@link #WRITES_ONLY} (C++ name). */
    public static final dev.talus.RateLimiterMode kWritesOnly = WRITES_ONLY;

    /** Alias of {@link #ALL_IO} (C++ name). */
    public static final dev.talus.RateLimiterMode kAllIo = ALL_IO;

    private RateLimiterMode() {}

    /**
     * Same as {@link dev.talus.RateLimiterMode#getRateLimiterMode(byte)}.
     *
     * @param value 0, 1 or 2
     * @return the mode with that value
     * @throws IllegalArgumentException for any other value
     */
    public static dev.talus.RateLimiterMode getRateLimiterMode(final byte value) {
      return dev.talus.RateLimiterMode.getRateLimiterMode(value);
    }
  }

  /**
   * A limiter with the default refill period (100 ms), fairness (10), mode (writes only) and no
   * auto-tuning.
   *
   * @param rateBytesPerSecond bytes per second; must be positive
   * @throws IllegalArgumentException if {@code rateBytesPerSecond} is not positive
   */
  public RateLimiter(final long rateBytesPerSecond) {
    this(rateBytesPerSecond, DEFAULT_REFILL_PERIOD_MICROS);
  }

  /**
   * A limiter with the default fairness (10), mode (writes only) and no auto-tuning.
   *
   * @param rateBytesPerSecond bytes per second; must be positive
   * @param refillPeriodMicros microseconds between refills; must be positive (default 100 000)
   * @throws IllegalArgumentException if a parameter is out of range (the message names it)
   */
  public RateLimiter(final long rateBytesPerSecond, final long refillPeriodMicros) {
    this(rateBytesPerSecond, refillPeriodMicros, DEFAULT_FAIRNESS);
  }

  /**
   * A limiter writing only, without auto-tuning.
   *
   * @param rateBytesPerSecond bytes per second; must be positive
   * @param refillPeriodMicros microseconds between refills; must be positive (default 100 000)
   * @param fairness low priority is served first in about one refill of {@code fairness}; at
   *     least 1, values above 100 act as 100 (default 10)
   * @throws IllegalArgumentException if a parameter is out of range (the message names it)
   */
  public RateLimiter(
      final long rateBytesPerSecond, final long refillPeriodMicros, final int fairness) {
    this(rateBytesPerSecond, refillPeriodMicros, fairness, DEFAULT_MODE);
  }

  /**
   * A limiter without auto-tuning.
   *
   * @param rateBytesPerSecond bytes per second; must be positive
   * @param refillPeriodMicros microseconds between refills; must be positive (default 100 000)
   * @param fairness low priority is served first in about one refill of {@code fairness}; at
   *     least 1, values above 100 act as 100 (default 10)
   * @param rateLimiterMode which IO is charged (default writes only); not null
   * @throws IllegalArgumentException if a parameter is out of range (the message names it)
   * @throws NullPointerException if {@code rateLimiterMode} is null
   */
  public RateLimiter(
      final long rateBytesPerSecond,
      final long refillPeriodMicros,
      final int fairness,
      final dev.talus.RateLimiterMode rateLimiterMode) {
    this(rateBytesPerSecond, refillPeriodMicros, fairness, rateLimiterMode, DEFAULT_AUTOTUNE);
  }

  /**
   * A limiter whose single burst is one refill period's worth of bytes.
   *
   * @param rateBytesPerSecond bytes per second, or the maximum when {@code autoTune}; must be
   *     positive
   * @param refillPeriodMicros microseconds between refills; must be positive (default 100 000)
   * @param fairness low priority is served first in about one refill of {@code fairness}; at
   *     least 1, values above 100 act as 100 (default 10)
   * @param rateLimiterMode which IO is charged (default writes only); not null
   * @param autoTune tune the rate between {@code rateBytesPerSecond / 20} and {@code
   *     rateBytesPerSecond} by how often requests had to wait (starting at half; default false)
   * @throws IllegalArgumentException if a parameter is out of range (the message names it)
   * @throws NullPointerException if {@code rateLimiterMode} is null
   */
  public RateLimiter(
      final long rateBytesPerSecond,
      final long refillPeriodMicros,
      final int fairness,
      final dev.talus.RateLimiterMode rateLimiterMode,
      final boolean autoTune) {
    this(rateBytesPerSecond, refillPeriodMicros, fairness, rateLimiterMode, autoTune, 0L);
  }

  /**
   * A limiter with every parameter, including the single burst (RocksDB's {@code
   * single_burst_bytes}; a Talus addition).
   *
   * @param rateBytesPerSecond bytes per second, or the maximum when {@code autoTune}; must be
   *     positive
   * @param refillPeriodMicros microseconds between refills; must be positive (default 100 000)
   * @param fairness low priority is served first in about one refill of {@code fairness}; at
   *     least 1, values above 100 act as 100 (default 10)
   * @param rateLimiterMode which IO is charged (default writes only); not null
   * @param autoTune tune the rate between {@code rateBytesPerSecond / 20} and {@code
   *     rateBytesPerSecond} by how often requests had to wait (starting at half; default false)
   * @param singleBurstBytes largest piece one request is split into, in bytes; 0 (default) means
   *     one refill period's worth, following rate changes; must not be negative
   * @throws IllegalArgumentException if a parameter is out of range (the message names it)
   * @throws NullPointerException if {@code rateLimiterMode} is null
   */
  public RateLimiter(
      final long rateBytesPerSecond,
      final long refillPeriodMicros,
      final int fairness,
      final dev.talus.RateLimiterMode rateLimiterMode,
      final boolean autoTune,
      final long singleBurstBytes) {
    super(
        create(
            rateBytesPerSecond,
            refillPeriodMicros,
            fairness,
            rateLimiterMode,
            autoTune,
            singleBurstBytes));
  }

  private static long create(
      final long rate,
      final long refill,
      final int fairness,
      final dev.talus.RateLimiterMode mode,
      final boolean autoTune,
      final long burst) {
    if (rate <= 0) {
      throw new IllegalArgumentException("rateBytesPerSecond must be positive, got " + rate);
    }
    if (refill <= 0) {
      throw new IllegalArgumentException("refillPeriodMicros must be positive, got " + refill);
    }
    if (fairness < 1) {
      throw new IllegalArgumentException("fairness must be at least 1, got " + fairness);
    }
    if (mode == null) {
      throw new NullPointerException("rateLimiterMode must not be null");
    }
    if (burst < 0) {
      throw new IllegalArgumentException("singleBurstBytes must not be negative, got " + burst);
    }
    NativeLibrary.load();
    return nativeNew(rate, refill, fairness, mode.getValue(), autoTune, burst);
  }

  /**
   * Changes the rate; it applies from the next refill. On an auto-tuned limiter this sets the
   * maximum, and the current rate is clamped into {@code [bytesPerSecond / 20, bytesPerSecond]}.
   *
   * @param bytesPerSecond the new rate in bytes per second; must be positive
   * @throws IllegalArgumentException if {@code bytesPerSecond} is not positive
   * @throws IllegalStateException if this limiter is closed
   */
  public void setBytesPerSecond(final long bytesPerSecond) {
    if (bytesPerSecond <= 0) {
      throw new IllegalArgumentException("bytesPerSecond must be positive, got " + bytesPerSecond);
    }
    final long h = acquire();
    try {
      nativeSetBytesPerSecond(h, bytesPerSecond);
    } finally {
      release();
    }
  }

  /**
   * Returns the current rate (the tuned rate when auto-tuning).
   *
   * @return bytes per second
   * @throws IllegalStateException if this limiter is closed
   */
  public long getBytesPerSecond() {
    return get(0);
  }

  /**
   * Returns the largest piece a request is split into: the configured single burst, or one refill
   * period's worth of bytes at the current rate when that was 0.
   *
   * @return bytes
   * @throws IllegalStateException if this limiter is closed
   */
  public long getSingleBurstBytes() {
    return get(1);
  }

  /**
   * Returns the bytes granted so far, at every priority and by every database using this limiter.
   *
   * @return bytes
   * @throws IllegalStateException if this limiter is closed
   */
  public long getTotalBytesThrough() {
    return get(2);
  }

  /**
   * Returns the requests made so far, at every priority; a request split into single-burst pieces
   * counts once per piece.
   *
   * @return number of requests
   * @throws IllegalStateException if this limiter is closed
   */
  public long getTotalRequests() {
    return get(3);
  }

  /**
   * Charges {@code bytes} at high priority, whatever the mode, blocking until they are granted.
   * As in RocksDB, one request may not exceed {@link #getSingleBurstBytes()}: split larger amounts
   * into several calls. While a call blocks, {@link #close()} waits for it.
   *
   * @param bytes bytes to charge, from 0 (returns at once) to {@link #getSingleBurstBytes()}
   * @throws IllegalArgumentException if {@code bytes} is negative or above the single burst at the
   *     time of the call (the message gives the limit)
   * @throws IllegalStateException if this limiter is closed
   */
  public void request(final long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must not be negative, got " + bytes);
    }
    final long h = acquire();
    try {
      nativeRequest(h, bytes);
    } finally {
      release();
    }
  }

  private long get(final int what) {
    final long h = acquire();
    try {
      return nativeGet(h, what);
    } finally {
      release();
    }
  }

  @Override
  protected void disposeInternal(final long handle) {
    nativeDispose(handle);
  }

  private static native long nativeNew(
      long rateBytesPerSecond,
      long refillPeriodMicros,
      int fairness,
      byte mode,
      boolean autoTune,
      long singleBurstBytes);

  private static native long nativeGet(long handle, int what);

  private static native void nativeSetBytesPerSecond(long handle, long bytesPerSecond);

  private static native void nativeRequest(long handle, long bytes);

  private static native void nativeDispose(long handle);
}
