package dev.talus;

import java.util.Objects;

/**
 * Universal compaction's options, as RocksJava's {@code CompactionOptionsUniversal}, with its
 * names and defaults; used by a family whose style is {@link CompactionStyle#UNIVERSAL}. Set on
 * {@link Options#setCompactionOptionsUniversal(CompactionOptionsUniversal)}, which copies the
 * values.
 *
 * <p>Universal compaction keeps the data in a few sorted runs (each L0 table is one, and each
 * non-empty level below L0) and merges whole runs: once there are {@code
 * level0FileNumCompactionTrigger} runs it merges everything into the oldest run when the newer
 * runs reach {@code maxSizeAmplificationPercent} of it; else the newest runs whose sizes are within
 * {@code sizeRatio} percent of each other (from {@code minMergeWidth} to {@code maxMergeWidth}
 * runs); else the newest runs regardless of size, enough to bring the count back to the trigger.
 * Writes slow down and stop when the number of sorted runs reaches the L0 slowdown and stop
 * triggers.
 *
 * <p>A plain Java object: {@link #close()} marks it closed; later use throws {@link
 * IllegalStateException}. Not thread-safe: configure it on one thread.
 */
public class CompactionOptionsUniversal extends PlainCloseable {
  private int sizeRatio = 1;
  private int minMergeWidth = 2;
  private int maxMergeWidth = -1;
  private int maxSizeAmplificationPercent = 200;
  private int compressionSizePercent = -1;
  private CompactionStopStyle stopStyle = CompactionStopStyle.CompactionStopStyleTotalSize;
  private boolean allowTrivialMove;

  /** Universal options with RocksDB's defaults. */
  public CompactionOptionsUniversal() {}

  /** A copy of {@code other} (open or not). */
  CompactionOptionsUniversal(CompactionOptionsUniversal other) {
    this.sizeRatio = other.sizeRatio;
    this.minMergeWidth = other.minMergeWidth;
    this.maxMergeWidth = other.maxMergeWidth;
    this.maxSizeAmplificationPercent = other.maxSizeAmplificationPercent;
    this.compressionSizePercent = other.compressionSizePercent;
    this.stopStyle = other.stopStyle;
    this.allowTrivialMove = other.allowTrivialMove;
  }

  /**
   * Percentage by which the next sorted run may be larger than the runs gathered so far and still
   * join them in a size-ratio compaction. Default 1. Unsigned in RocksDB: a negative value is the
   * unsigned number of the same bits.
   *
   * @param sizeRatio the percentage
   * @return this
   */
  public CompactionOptionsUniversal setSizeRatio(int sizeRatio) {
    checkOpen();
    this.sizeRatio = sizeRatio;
    return this;
  }

  /** @return the size ratio, percent (default 1) */
  public int sizeRatio() {
    checkOpen();
    return sizeRatio;
  }

  /**
   * Fewest sorted runs a size-ratio compaction merges. Default 2; values below 2 act as 2.
   *
   * @param minMergeWidth the number of runs
   * @return this
   */
  public CompactionOptionsUniversal setMinMergeWidth(int minMergeWidth) {
    checkOpen();
    this.minMergeWidth = minMergeWidth;
    return this;
  }

  /** @return the fewest runs merged (default 2) */
  public int minMergeWidth() {
    checkOpen();
    return minMergeWidth;
  }

  /**
   * Most sorted runs one compaction merges. Default -1: C++ {@code UINT_MAX}, no limit (as
   * RocksJava returns it; unsigned: a negative value is the unsigned number of the same bits).
   *
   * @param maxMergeWidth the number of runs
   * @return this
   */
  public CompactionOptionsUniversal setMaxMergeWidth(int maxMergeWidth) {
    checkOpen();
    this.maxMergeWidth = maxMergeWidth;
    return this;
  }

  /** @return the most runs merged (default -1: no limit) */
  public int maxMergeWidth() {
    checkOpen();
    return maxMergeWidth;
  }

  /**
   * Size amplification allowed: once the runs newer than the oldest reach this percentage of the
   * oldest run's size, everything is merged into one run. Default 200.
   *
   * @param maxSizeAmplificationPercent the percentage
   * @return this
   */
  public CompactionOptionsUniversal setMaxSizeAmplificationPercent(
      int maxSizeAmplificationPercent) {
    checkOpen();
    this.maxSizeAmplificationPercent = maxSizeAmplificationPercent;
    return this;
  }

  /** @return the size amplification allowed, percent (default 200) */
  public int maxSizeAmplificationPercent() {
    checkOpen();
    return maxSizeAmplificationPercent;
  }

  /**
   * -1 (the default): every output is compressed as the options say. Otherwise a compaction's
   * output stays uncompressed while the runs older than it hold at least this percentage of all
   * data.
   *
   * @param compressionSizePercent the percentage, or -1
   * @return this
   */
  public CompactionOptionsUniversal setCompressionSizePercent(int compressionSizePercent) {
    checkOpen();
    this.compressionSizePercent = compressionSizePercent;
    return this;
  }

  /** @return the compression size percentage (default -1) */
  public int compressionSizePercent() {
    checkOpen();
    return compressionSizePercent;
  }

  /**
   * How a size-ratio compaction stops gathering runs. Default {@link
   * CompactionStopStyle#CompactionStopStyleTotalSize}.
   *
   * @param stopStyle the style
   * @return this
   */
  public CompactionOptionsUniversal setStopStyle(CompactionStopStyle stopStyle) {
    checkOpen();
    this.stopStyle = Objects.requireNonNull(stopStyle, "stopStyle");
    return this;
  }

  /** @return the stop style */
  public CompactionStopStyle stopStyle() {
    checkOpen();
    return stopStyle;
  }

  /**
   * Move the tables of a compaction whose inputs do not overlap to the output level instead of
   * rewriting them. Default false.
   *
   * @param allowTrivialMove true to allow
   * @return this
   */
  public CompactionOptionsUniversal setAllowTrivialMove(boolean allowTrivialMove) {
    checkOpen();
    this.allowTrivialMove = allowTrivialMove;
    return this;
  }

  /** @return whether trivial moves are allowed (default false) */
  public boolean allowTrivialMove() {
    checkOpen();
    return allowTrivialMove;
  }

  void appendTo(StringBuilder b) {
    String p = "compaction_options_universal.";
    Options.put(b, p + "size_ratio", sizeRatio);
    Options.put(b, p + "min_merge_width", minMergeWidth);
    Options.put(b, p + "max_merge_width", maxMergeWidth);
    Options.put(b, p + "max_size_amplification_percent", maxSizeAmplificationPercent);
    Options.put(b, p + "compression_size_percent", compressionSizePercent);
    Options.put(b, p + "stop_style", stopStyle.getValue());
    Options.put(b, p + "allow_trivial_move", allowTrivialMove);
  }
}
