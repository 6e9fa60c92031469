package dev.talus;

import java.util.EnumSet;
import java.util.Objects;

/**
 * Counters ({@link TickerType}) and histograms ({@link HistogramType}) of one or more databases,
 * as RocksJava's {@code Statistics}. Pass it with {@code Options.setStatistics(Statistics)}; it
 * may be shared by several databases, each of which holds its own reference, so closing this
 * object while databases still record into it is safe.
 *
 * <p>Recording costs no contended atomics: each thread adds to its own cache-line-aligned shard,
 * and reads sum the shards. A read is exact when no thread is recording; while threads record,
 * each shard is read at a slightly different moment. Every read is one JNI call.
 *
 * <p>Besides RocksJava's methods, {@link #toPrometheus(String)} renders everything in the
 * Prometheus text format.
 */
public class Statistics extends SharedNativeHandle {
  /** Statistics recording every histogram, at {@link StatsLevel#EXCEPT_DETAILED_TIMERS}. */
  public Statistics() {
    this(EnumSet.noneOf(HistogramType.class), null);
  }

  /**
   * Statistics that also forward every recording to {@code otherStatistics} (which applies its
   * own level and ignored histograms). The other statistics stay alive as long as this object's
   * native part does, even if {@code otherStatistics} is closed first.
   *
   * @param otherStatistics the statistics to forward to; not null, not closed
   * @throws NullPointerException if {@code otherStatistics} is null
   * @throws IllegalStateException if {@code otherStatistics} is closed
   */
  public Statistics(final Statistics otherStatistics) {
    this(EnumSet.noneOf(HistogramType.class), requireOther(otherStatistics));
  }

  /**
   * Statistics that never record the histograms in {@code ignoreHistograms}.
   *
   * @param ignoreHistograms histograms not to record; not null (may be empty)
   * @throws NullPointerException if {@code ignoreHistograms} is null
   */
  public Statistics(final EnumSet<HistogramType> ignoreHistograms) {
    this(ignoreHistograms, null);
  }

  /**
   * Statistics that never record the histograms in {@code ignoreHistograms} and forward every
   * recording to {@code otherStatistics} when it is not null.
   *
   * @param ignoreHistograms histograms not to record; not null (may be empty)
   * @param otherStatistics the statistics to forward to, or null; not closed
   * @throws NullPointerException if {@code ignoreHistograms} is null
   * @throws IllegalStateException if {@code otherStatistics} is closed
   */
  public Statistics(
      final EnumSet<HistogramType> ignoreHistograms, final Statistics otherStatistics) {
    super(create(ignoreHistograms, otherStatistics));
  }

  private static Statistics requireOther(final Statistics other) {
    return Objects.requireNonNull(other, "otherStatistics must not be null");
  }

  private static long create(final EnumSet<HistogramType> ignore, final Statistics other) {
    Objects.requireNonNull(ignore, "ignoreHistograms must not be null");
    long mask = 0;
    for (final HistogramType h : ignore) {
      mask |= 1L << h.getValue();
    }
    NativeLibrary.load();
    if (other == null) {
      return nativeNew(mask, 0);
    }
    final long otherHandle = acquire(other);
    try {
      return nativeNew(mask, otherHandle);
    } finally {
      release(other);
    }
  }

  /**
   * Returns the current value of a counter.
   *
   * @param tickerType the counter; not null
   * @return its value (a {@code uint64} read as a signed {@code long}, as in RocksJava)
   * @throws NullPointerException if {@code tickerType} is null
   * @throws IllegalStateException if this object is closed
   */
  public long getTickerCount(final TickerType tickerType) {
    return tickerCount(tickerType, false);
  }

  /**
   * Returns the current value of a counter and sets it to 0. No concurrent addition is lost: each
   * lands either in the returned value or in the restarted counter.
   *
   * @param tickerType the counter; not null
   * @return its value before the reset
   * @throws NullPointerException if {@code tickerType} is null
   * @throws IllegalStateException if this object is closed
   */
  public long getAndResetTickerCount(final TickerType tickerType) {
    return tickerCount(tickerType, true);
  }

  private long tickerCount(final TickerType tickerType, final boolean reset) {
    Objects.requireNonNull(tickerType, "tickerType must not be null");
    final long h = acquire();
    try {
      return nativeGetTickerCount(h, tickerType.getValue(), reset);
    } finally {
      release();
    }
  }

  /**
   * Returns a summary of a histogram (one JNI call).
   *
   * @param histogramType the histogram; not null
   * @return its percentiles, mean, standard deviation, min, max, count and sum; all 0 when empty
   * @throws NullPointerException if {@code histogramType} is null
   * @throws IllegalStateException if this object is closed
   */
  public HistogramData getHistogramData(final HistogramType histogramType) {
    Objects.requireNonNull(histogramType, "histogramType must not be null");
    final long[] v;
    final long h = acquire();
    try {
      v = nativeGetHistogramData(h, histogramType.getValue());
    } finally {
      release();
    }
    return new HistogramData(
        Double.longBitsToDouble(v[0]), // median
        Double.longBitsToDouble(v[1]), // p95
        Double.longBitsToDouble(v[2]), // p99
        Double.longBitsToDouble(v[3]), // p99.9
        Double.longBitsToDouble(v[6]), // average
        Double.longBitsToDouble(v[7]), // standard deviation
        Double.longBitsToDouble(v[4]), // max
        v[8], // count
        v[9], // sum
        Double.longBitsToDouble(v[5])); // min
  }

  /**
   * Returns a human-readable dump of a histogram: count, average and standard deviation; min,
   * median and max; P50, P75, P99, P99.9 and P99.99; then one line per non-empty bucket with its
   * range, count, percentage and cumulative percentage.
   *
   * @param histogramType the histogram; not null
   * @return the multi-line text
   * @throws NullPointerException if {@code histogramType} is null
   * @throws IllegalStateException if this object is closed
   */
  public String getHistogramString(final HistogramType histogramType) {
    Objects.requireNonNull(histogramType, "histogramType must not be null");
    final long h = acquire();
    try {
      return nativeGetHistogramString(h, histogramType.getValue());
    } finally {
      release();
    }
  }

  /**
   * Sets every counter and histogram to 0. Recordings racing with the reset may partly survive
   * it.
   *
   * @throws TalusException never in Talus; declared for RocksJava compatibility
   * @throws IllegalStateException if this object is closed
   */
  public void reset() throws TalusException {
    final long h = acquire();
    try {
      nativeReset(h);
    } finally {
      release();
    }
  }

  /**
   * Returns the level that decides what is recorded.
   *
   * @return the current level (default {@link StatsLevel#EXCEPT_DETAILED_TIMERS})
   * @throws IllegalStateException if this object is closed
   */
  public StatsLevel statsLevel() {
    final long h = acquire();
    try {
      return StatsLevel.getStatsLevel(nativeGetStatsLevel(h));
    } finally {
      release();
    }
  }

  /**
   * Changes what is recorded from now on (see {@link StatsLevel} for what each level records).
   *
   * @param statsLevel the new level; not null
   * @throws NullPointerException if {@code statsLevel} is null
   * @throws IllegalStateException if this object is closed
   */
  public void setStatsLevel(final StatsLevel statsLevel) {
    Objects.requireNonNull(statsLevel, "statsLevel must not be null");
    final long h = acquire();
    try {
      nativeSetStatsLevel(h, statsLevel.getValue());
    } finally {
      release();
    }
  }

  /**
   * Renders every counter and histogram in the Prometheus text exposition format (0.0.4), one
   * sample per line. Metric names are {@code <prefix>_<name>}, where {@code <name>} is the native
   * name with dots replaced by underscores ({@code rocksdb.block.cache.miss} becomes {@code
   * rocksdb_block_cache_miss}); with an empty prefix just {@code <name>}. Characters of the prefix
   * outside {@code [a-zA-Z0-9_:]} become {@code _}. Counters are {@code counter}s; each histogram
   * is a {@code summary} with {@code quantile} 0.5, 0.95, 0.99 and 0.999 samples ({@code NaN}
   * while empty) plus {@code _sum} and {@code _count}, e.g. {@code
   * rocksdb_db_get_micros{quantile="0.99"} 123}. Every family has {@code # HELP} and {@code #
   * TYPE} lines.
   *
   * @param prefix the metric name prefix, e.g. {@code "myapp"}; not null, may be empty
   * @return the exposition text, ending with a newline
   * @throws NullPointerException if {@code prefix} is null
   * @throws IllegalStateException if this object is closed
   */
  public String toPrometheus(final String prefix) {
    Objects.requireNonNull(prefix, "prefix must not be null");
    final long h = acquire();
    try {
      return nativeToPrometheus(h, prefix);
    } finally {
      release();
    }
  }

  /**
   * Dumps everything in RocksDB's {@code Statistics::ToString} shape: one line per counter,
   * {@code <name> COUNT : <n>}, then one per histogram, {@code <name> P50 : <f> P95 : <f> P99 :
   * <f> P100 : <f> COUNT : <n> SUM : <n>}. Safe after {@link #close()}, as every {@code
   * toString} (loggers and debuggers call it on anything).
   *
   * @return the dump, or {@code "Statistics{closed}"} once closed
   */
  @Override
  public String toString() {
    final long h;
    try {
      h = acquire();
    } catch (IllegalStateException closed) {
      return "Statistics{closed}";
    }
    try {
      return nativeToString(h);
    } finally {
      release();
    }
  }

  @Override
  protected void disposeInternal(final long handle) {
    nativeDispose(handle);
  }

  private static native long nativeNew(long ignoredHistograms, long otherHandle);

  private static native long nativeGetTickerCount(long handle, byte tickerType, boolean reset);

  private static native long[] nativeGetHistogramData(long handle, byte histogramType);

  private static native String nativeGetHistogramString(long handle, byte histogramType);

  private static native void nativeReset(long handle);

  private static native String nativeToString(long handle);

  private static native String nativeToPrometheus(long handle, String prefix);

  private static native byte nativeGetStatsLevel(long handle);

  private static native void nativeSetStatsLevel(long handle, byte level);

  private static native void nativeDispose(long handle);
}
