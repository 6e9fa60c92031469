package dev.talus;

/** Severity of an info log line, with RocksJava's byte values. The default threshold is INFO. */
public enum InfoLogLevel {
  /** Debugging detail. */
  DEBUG_LEVEL((byte) 0),
  /** Normal operation: flushes, compactions, options at open. The default. */
  INFO_LEVEL((byte) 1),
  /** Something unexpected but handled: write stalls, sanitized options. */
  WARN_LEVEL((byte) 2),
  /** An operation failed (e.g. a background error). */
  ERROR_LEVEL((byte) 3),
  /** The database cannot continue. */
  FATAL_LEVEL((byte) 4),
  /** Header lines. */
  HEADER_LEVEL((byte) 5),
  /** Sentinel: the number of levels. */
  NUM_INFO_LOG_LEVELS((byte) 6);

  private final byte value;

  InfoLogLevel(byte value) {
    this.value = value;
  }

  /** @return RocksJava's byte value */
  public byte getValue() {
    return value;
  }

  /**
   * @param value a byte from {@link #getValue()}
   * @return the matching level
   * @throws IllegalArgumentException for an unknown byte
   */
  public static InfoLogLevel getInfoLogLevel(byte value) {
    for (InfoLogLevel l : values()) {
      if (l.value == value) {
        return l;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for InfoLogLevel: " + value);
  }
}
