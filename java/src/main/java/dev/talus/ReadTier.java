package dev.talus;

/**
 * Which data a read may reach, as RocksJava's {@code ReadTier}. Set with {@link
 * ReadOptions#setReadTier(ReadTier)}; the default is {@link #READ_ALL_TIER}.
 */
public enum ReadTier {
  /** Memtables, block cache and table files: every read. The default. */
  READ_ALL_TIER((byte) 0),
  /**
   * Only what needs no read from disk: memtables, the block cache and table files already open. A
   * {@code get} that would need a disk read throws {@link TalusException} with status {@code
   * Incomplete}; an iterator that would need one becomes invalid with that status.
   */
  BLOCK_CACHE_TIER((byte) 1),
  /**
   * RocksDB: only persisted data. Not implemented by Talus: {@link
   * ReadOptions#setReadTier(ReadTier)} throws {@link UnsupportedOperationException}.
   */
  PERSISTED_TIER((byte) 2),
  /**
   * RocksDB: only memtables, for iterators. Not implemented by Talus: {@link
   * ReadOptions#setReadTier(ReadTier)} throws {@link UnsupportedOperationException}.
   */
  MEMTABLE_TIER((byte) 3);

  private final byte value;

  ReadTier(final byte value) {
    this.value = value;
  }

  /** @return the byte value RocksJava uses for this tier */
  public byte getValue() {
    return value;
  }

  /**
   * @param value a byte from {@link #getValue()}
   * @return the tier with that byte
   * @throws IllegalArgumentException for an unknown byte
   */
  public static ReadTier getReadTier(final byte value) {
    for (final ReadTier t : values()) {
      if (t.value == value) {
        return t;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for ReadTier: " + value);
  }
}
