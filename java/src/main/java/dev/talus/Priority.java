package dev.talus;

/**
 * A background thread pool (RocksJava's {@code Priority}), named by what runs in it. The byte
 * values are RocksJava's.
 *
 * <p>Talus runs flushes (and the purge of obsolete files) in the {@link #HIGH} pool and
 * compactions in the {@link #LOW} pool. It has no {@link #BOTTOM} pool: bottommost compactions run
 * in the low pool, as in RocksDB while its bottom pool has no threads (its default).
 */
public enum Priority {
  /** Bottommost compactions; no threads of their own in Talus (see above). */
  BOTTOM((byte) 0),
  /** Compactions. */
  LOW((byte) 1),
  /** Flushes. */
  HIGH((byte) 2),
  /** Not a pool: the number of pools. Methods taking a pool reject it. */
  TOTAL((byte) 3);

  private final byte value;

  Priority(byte value) {
    this.value = value;
  }

  /** @return the byte value that crosses to the native library */
  public byte getValue() {
    return value;
  }
}
