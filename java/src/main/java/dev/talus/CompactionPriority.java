package dev.talus;

/** Which file of a level compaction picks first, with RocksJava's byte values. */
public enum CompactionPriority {
  /** Largest file, compensated for deletions. */
  ByCompensatedSize((byte) 0x0),
  /** File whose newest data is oldest. */
  OldestLargestSeqFirst((byte) 0x1),
  /** File whose oldest data is oldest. */
  OldestSmallestSeqFirst((byte) 0x2),
  /** Smallest overlap with the next level relative to the file's size. RocksDB's default. */
  MinOverlappingRatio((byte) 0x3),
  /** Files in key order, round robin. */
  RoundRobin((byte) 0x4);

  private final byte value;

  CompactionPriority(byte value) {
    this.value = value;
  }

  /** @return RocksJava's byte value */
  public byte getValue() {
    return value;
  }

  /**
   * @param value a byte from {@link #getValue()}
   * @return the matching priority
   * @throws IllegalArgumentException for an unknown byte
   */
  public static CompactionPriority getCompactionPriority(byte value) {
    for (CompactionPriority p : values()) {
      if (p.value == value) {
        return p;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for CompactionPriority: " + value);
  }
}
