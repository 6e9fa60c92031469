package dev.talus;

import java.util.Objects;

/**
 * Options of a manual compaction, as RocksJava's {@code CompactRangeOptions}, with its names and
 * defaults; passed to {@link TalusDB#compactRange(ColumnFamilyHandle, byte[], byte[],
 * CompactRangeOptions)} and {@link TalusDB#compactRange(byte[], byte[], CompactRangeOptions)}.
 *
 * <p>What each does in Talus:
 *
 * <ul>
 *   <li>{@link #setExclusiveManualCompaction(boolean)} (default true): the compaction first waits
 *       for running automatic compactions, and none starts until it ends.
 *   <li>{@link #setBottommostLevelCompaction(BottommostLevelCompaction)} (default {@link
 *       BottommostLevelCompaction#kIfHaveCompactionFilter}): leveled compaction only. Talus has no
 *       compaction filter, so the default leaves the last level as it is, as {@link
 *       BottommostLevelCompaction#kSkip}; {@link BottommostLevelCompaction#kForce} also rewrites
 *       the range's files in the last non-empty level, and {@link
 *       BottommostLevelCompaction#kForceOptimized} the ones this compaction did not write itself.
 *       Universal compaction merges every file into one run and FIFO compaction runs one FIFO
 *       pick, whatever the value (as RocksDB).
 *   <li>{@link #setChangeLevel(boolean)} and {@link #setTargetLevel(int)}: afterwards the files
 *       of the last non-empty level move to the target level (-1, the default: the highest level
 *       above it that is empty and large enough), across empty levels only; otherwise the call
 *       fails with {@code NotSupported} (as RocksDB's).
 *   <li>{@link #setMaxSubcompactions(int)}: when above 0, replaces the database's {@link
 *       Options#setMaxSubcompactions(int)} for this call's compactions (as RocksDB).
 *   <li>{@link #setAllowWriteStall(boolean)} (default false): the flush that starts the
 *       compaction goes ahead even if its new L0 table stalls writes; by default it waits until
 *       it would not.
 * </ul>
 *
 * <p>A plain Java object: {@link #close()} marks it closed; later use throws {@link
 * IllegalStateException}. Not thread-safe: configure it on one thread.
 */
public class CompactRangeOptions extends PlainCloseable {

  /** When the bottommost level is rewritten in place, with RocksJava's byte values. */
  public enum BottommostLevelCompaction {
    /** Never. */
    kSkip((byte) 0x0),
    /** Only with a compaction filter: never in Talus, which has none (the default). */
    kIfHaveCompactionFilter((byte) 0x1),
    /** Always. */
    kForce((byte) 0x2),
    /** Always, except the files this compaction wrote there itself. */
    kForceOptimized((byte) 0x3);

    private final byte value;

    BottommostLevelCompaction(byte value) {
      this.value = value;
    }

    /** @return RocksJava's byte value */
    public byte getValue() {
      return value;
    }

    /**
     * The value of a RocksDB id.
     *
     * @param num {@link #getValue()} of a value
     * @return the value, or null for an unknown id (as RocksJava)
     */
    public static BottommostLevelCompaction fromRocksId(int num) {
      for (BottommostLevelCompaction b : values()) {
        if (b.value == num) {
          return b;
        }
      }
      return null;
    }
  }

  private boolean exclusiveManualCompaction = true;
  private boolean changeLevel;
  private int targetLevel = -1;
  private BottommostLevelCompaction bottommostLevelCompaction =
      BottommostLevelCompaction.kIfHaveCompactionFilter;
  private int maxSubcompactions;
  private boolean allowWriteStall;

  /** Options with RocksDB's defaults. */
  public CompactRangeOptions() {}

  /**
   * Run alone: wait for running automatic compactions, start none until done. Default true.
   *
   * @param exclusive true to run alone
   * @return this
   */
  public CompactRangeOptions setExclusiveManualCompaction(boolean exclusive) {
    checkOpen();
    this.exclusiveManualCompaction = exclusive;
    return this;
  }

  /** @return whether the compaction runs alone (default true) */
  public boolean exclusiveManualCompaction() {
    checkOpen();
    return exclusiveManualCompaction;
  }

  /**
   * Move the compacted data to {@link #targetLevel()} afterwards. Default false.
   *
   * @param changeLevel true to move
   * @return this
   */
  public CompactRangeOptions setChangeLevel(boolean changeLevel) {
    checkOpen();
    this.changeLevel = changeLevel;
    return this;
  }

  /** @return whether the data moves afterwards (default false) */
  public boolean changeLevel() {
    checkOpen();
    return changeLevel;
  }

  /**
   * The level the data moves to with {@link #setChangeLevel(boolean)}; -1 (the default): the
   * highest empty level that holds it. A level at or beyond {@code numLevels} fails the call with
   * {@code InvalidArgument}.
   *
   * @param targetLevel the level, or -1
   * @return this
   * @throws IllegalArgumentException below -1
   */
  public CompactRangeOptions setTargetLevel(int targetLevel) {
    checkOpen();
    if (targetLevel < -1) {
      throw new IllegalArgumentException("targetLevel must be -1 or a level, got " + targetLevel);
    }
    this.targetLevel = targetLevel;
    return this;
  }

  /** @return the target level (default -1) */
  public int targetLevel() {
    checkOpen();
    return targetLevel;
  }

  /**
   * Whether the last level is rewritten in place (see the class comment). Default {@link
   * BottommostLevelCompaction#kIfHaveCompactionFilter}.
   *
   * @param b the value
   * @return this
   */
  public CompactRangeOptions setBottommostLevelCompaction(BottommostLevelCompaction b) {
    checkOpen();
    this.bottommostLevelCompaction = Objects.requireNonNull(b, "bottommostLevelCompaction");
    return this;
  }

  /** @return the bottommost level compaction */
  public BottommostLevelCompaction bottommostLevelCompaction() {
    checkOpen();
    return bottommostLevelCompaction;
  }

  /**
   * The most subcompactions each of this call's compactions is split into; 0 (the default)
   * follows the database's {@link Options#maxSubcompactions()}, any other value replaces it for
   * this call. Unsigned in RocksDB: a negative value is taken as unsigned, as there.
   *
   * @param maxSubcompactions the bound
   * @return this
   */
  public CompactRangeOptions setMaxSubcompactions(int maxSubcompactions) {
    checkOpen();
    this.maxSubcompactions = maxSubcompactions;
    return this;
  }

  /** @return the bound on subcompactions (default 0) */
  public int maxSubcompactions() {
    checkOpen();
    return maxSubcompactions;
  }

  /**
   * Let the flush that starts the compaction stall writes rather than wait. Default false.
   *
   * @param allow true to allow a stall
   * @return this
   */
  public CompactRangeOptions setAllowWriteStall(boolean allow) {
    checkOpen();
    this.allowWriteStall = allow;
    return this;
  }

  /** @return whether the flush may stall writes (default false) */
  public boolean allowWriteStall() {
    checkOpen();
    return allowWriteStall;
  }

  /**
   * RocksDB's output path id (its {@code db_paths}). Talus has one data directory: 0 (the
   * default) is accepted, any other id throws.
   *
   * @param targetPathId 0
   * @return this
   * @throws UnsupportedOperationException for any other id
   */
  public CompactRangeOptions setTargetPathId(int targetPathId) {
    checkOpen();
    if (targetPathId != 0) {
      throw new UnsupportedOperationException(
          "setTargetPathId(" + targetPathId + "): Talus has one data path (db_paths is not"
              + " implemented)");
    }
    return this;
  }

  /** @return 0, the one data path */
  public int targetPathId() {
    checkOpen();
    return 0;
  }

  /**
   * RocksDB's cancellation flag of a running manual compaction. Not implemented: false (the
   * default) is accepted, true throws.
   *
   * @param canceled false
   * @return this
   * @throws UnsupportedOperationException for true
   */
  public CompactRangeOptions setCanceled(boolean canceled) {
    checkOpen();
    if (canceled) {
      throw new UnsupportedOperationException(
          "setCanceled(true): Talus cannot cancel a manual compaction");
    }
    return this;
  }

  /** @return false */
  public boolean canceled() {
    checkOpen();
    return false;
  }

  /** The flags as they cross to the engine: bit 0 exclusive, 1 change level, 2 allow stall. */
  int flags() {
    checkOpen();
    return (exclusiveManualCompaction ? 1 : 0)
        | (changeLevel ? 2 : 0)
        | (allowWriteStall ? 4 : 0);
  }

  int bottommostValue() {
    return bottommostLevelCompaction.getValue();
  }
}
