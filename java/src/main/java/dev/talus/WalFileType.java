package dev.talus;

/** Where a write-ahead log file is, as RocksJava's {@code WalFileType}. */
public enum WalFileType {
  /** In the archive directory (Talus keeps no archive: never returned). */
  kArchivedLogFile((byte) 0x0),
  /** In the WAL directory, live. */
  kAliveLogFile((byte) 0x1);

  private final byte value;

  WalFileType(byte value) {
    this.value = value;
  }

  /** @return the byte value, as RocksJava's */
  public byte getValue() {
    return value;
  }

  /**
   * The type of a byte value.
   *
   * @param value the value
   * @return the type
   * @throws IllegalArgumentException for an unknown value
   */
  public static WalFileType fromValue(byte value) {
    for (WalFileType t : values()) {
      if (t.value == value) {
        return t;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for WalFileType: " + value);
  }
}
