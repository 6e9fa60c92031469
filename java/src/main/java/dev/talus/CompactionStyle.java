package dev.talus;

/**
 * Compaction style, with RocksJava's byte values. Talus implements {@link #LEVEL}, {@link
 * #UNIVERSAL} and {@link #FIFO}; setting {@link #NONE} throws {@link
 * UnsupportedOperationException}.
 */
public enum CompactionStyle {
  /** Leveled compaction (the default). */
  LEVEL((byte) 0x0),
  /** Universal compaction: sorted runs merged whole (see {@link CompactionOptionsUniversal}). */
  UNIVERSAL((byte) 0x1),
  /** FIFO compaction: every table in L0, the oldest dropped (see {@link CompactionOptionsFIFO}). */
  FIFO((byte) 0x2),
  /** No automatic compaction: not implemented (use {@code setDisableAutoCompactions}). */
  NONE((byte) 0x3);

  private final byte value;

  CompactionStyle(byte value) {
    this.value = value;
  }

  /** @return RocksJava's byte value */
  public byte getValue() {
    return value;
  }
}
