package dev.talus;

/**
 * How much a {@link Statistics} records, with RocksJava's byte values (which differ from the C++
 * level numbers). Every level records all tickers and all histograms except those it names:
 *
 * <table>
 *   <caption>What each level records</caption>
 *   <tr><th>level</th><th>tickers and other histograms</th>
 *       <th>{@link HistogramType#COMPRESSION_TIMES_NANOS}, {@link
 *       HistogramType#DECOMPRESSION_TIMES_NANOS}</th><th>DB mutex wait time</th></tr>
 *   <tr><td>{@link #EXCEPT_DETAILED_TIMERS}</td><td>yes</td><td>no</td><td>no</td></tr>
 *   <tr><td>{@link #EXCEPT_TIME_FOR_MUTEX}</td><td>yes</td><td>yes</td><td>no</td></tr>
 *   <tr><td>{@link #ALL}</td><td>yes</td><td>yes</td><td>yes (Talus records none yet)</td></tr>
 * </table>
 */
public enum StatsLevel {
  /** Everything except the detailed (block compression/decompression) timers. The default. */
  EXCEPT_DETAILED_TIMERS((byte) 0x00),

  /** Everything except the time spent waiting for the DB mutex. */
  EXCEPT_TIME_FOR_MUTEX((byte) 0x01),

  /** Everything. */
  ALL((byte) 0x02);

  private final byte value;

  StatsLevel(final byte value) {
    this.value = value;
  }

  /**
   * Returns RocksJava's byte value of this level.
   *
   * @return 0, 1 or 2
   */
  public byte getValue() {
    return value;
  }

  /**
   * Returns the level with byte value {@code value}.
   *
   * @param value 0, 1 or 2
   * @return the level with that value
   * @throws IllegalArgumentException for any other value
   */
  public static StatsLevel getStatsLevel(final byte value) {
    for (final StatsLevel l : StatsLevel.values()) {
      if (l.value == value) {
        return l;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for StatsLevel: " + value);
  }
}
