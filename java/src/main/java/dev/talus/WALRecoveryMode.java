package dev.talus;

/**
 * How recovery at open treats a damaged write-ahead log, as RocksDB's {@code WALRecoveryMode}.
 * The default is {@link #TolerateCorruptedTailRecords}.
 */
public enum WALRecoveryMode {
  /**
   * Drop (and log) an incomplete record at the end of a log; fail open with {@code Corruption} on
   * any checksum mismatch or malformed record. The default.
   */
  TolerateCorruptedTailRecords((byte) 0x00),
  /** Fail open on any damage, including an incomplete record at the tail. */
  AbsoluteConsistency((byte) 0x01),
  /** Stop replaying at the first damaged record: recover to a consistent point in time. */
  PointInTimeRecovery((byte) 0x02),
  /** Skip damaged records and keep replaying. */
  SkipAnyCorruptedRecords((byte) 0x03);

  private final byte value;

  WALRecoveryMode(byte value) {
    this.value = value;
  }

  /** @return the byte value RocksJava uses for this mode */
  public byte getValue() {
    return value;
  }

  /**
   * @param value a byte from {@link #getValue()}
   * @return the mode with that byte
   * @throws IllegalArgumentException for an unknown byte
   */
  public static WALRecoveryMode getWALRecoveryMode(byte value) {
    for (WALRecoveryMode m : values()) {
      if (m.value == value) {
        return m;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for WALRecoveryMode: " + value);
  }
}
