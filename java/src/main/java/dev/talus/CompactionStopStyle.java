package dev.talus;

/**
 * When a universal compaction stops gathering sorted runs of similar size, as RocksJava's {@code
 * CompactionStopStyle}, with its byte values. See {@link
 * CompactionOptionsUniversal#setStopStyle(CompactionStopStyle)}.
 */
public enum CompactionStopStyle {
  /**
   * Stop when the next run is more than {@code sizeRatio} percent larger than the last run
   * gathered, or much smaller than it.
   */
  CompactionStopStyleSimilarSize((byte) 0x0),
  /**
   * Stop when the next run is more than {@code sizeRatio} percent larger than all runs gathered so
   * far (the default).
   */
  CompactionStopStyleTotalSize((byte) 0x1);

  private final byte value;

  CompactionStopStyle(byte value) {
    this.value = value;
  }

  /** @return RocksJava's byte value */
  public byte getValue() {
    return value;
  }

  /**
   * The style of a byte value.
   *
   * @param value {@link #getValue()} of a style
   * @return the style
   * @throws IllegalArgumentException for any other byte
   */
  public static CompactionStopStyle getCompactionStopStyle(byte value) {
    for (CompactionStopStyle s : values()) {
      if (s.value == value) {
        return s;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for CompactionStopStyle.");
  }
}
