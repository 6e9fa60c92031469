package dev.talus;

import java.util.Objects;

/**
 * The options of one column family, as RocksJava's {@code ColumnFamilyOptions}: memtable sizes
 * and counts, level shape, compaction triggers and limits, compression, merge operator,
 * automatic compactions, the prefix extractor and the table options. Names, defaults and
 * accepted values are those of {@link Options}, which is the union of these and {@link
 * DBOptions}. As in RocksDB each family has its own table options ({@link
 * #setTableFormatConfig(TableFormatConfig)}): its tables are written with its block size,
 * restart interval, filter and prefix extractor, and read through its block cache — the {@link
 * Cache} its config names (shared with every family, or database, whose config names the same
 * object), or without one a cache of its own of {@link BlockBasedTableConfig#blockCacheSize()}
 * bytes. A family may be reopened with other table options: each table records how it was
 * written. {@link #close()} marks the object closed; later use throws {@link
 * IllegalStateException}.
 */
public class ColumnFamilyOptions extends PlainCloseable {
  private final Options options;

  /** Options with RocksDB's defaults (see {@link Options}). */
  public ColumnFamilyOptions() {
    this.options = new Options();
  }

  /**
   * The column-family fields of {@code options}.
   *
   * @param options the options to copy from
   */
  public ColumnFamilyOptions(Options options) {
    this.options = new Options(Objects.requireNonNull(options, "options"));
  }

  /**
   * As {@link Options#setWriteBufferSize(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public ColumnFamilyOptions setWriteBufferSize(long bytes) {
    checkOpen();
    options.setWriteBufferSize(bytes);
    return this;
  }

  /** @return as {@link Options#writeBufferSize()} */
  public long writeBufferSize() {
    checkOpen();
    return options.writeBufferSize();
  }

  /**
   * As {@link Options#setMaxWriteBufferNumber(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setMaxWriteBufferNumber(int n) {
    checkOpen();
    options.setMaxWriteBufferNumber(n);
    return this;
  }

  /** @return as {@link Options#maxWriteBufferNumber()} */
  public int maxWriteBufferNumber() {
    checkOpen();
    return options.maxWriteBufferNumber();
  }

  /**
   * As {@link Options#setMinWriteBufferNumberToMerge(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setMinWriteBufferNumberToMerge(int n) {
    checkOpen();
    options.setMinWriteBufferNumberToMerge(n);
    return this;
  }

  /** @return as {@link Options#minWriteBufferNumberToMerge()} */
  public int minWriteBufferNumberToMerge() {
    checkOpen();
    return options.minWriteBufferNumberToMerge();
  }

  /**
   * As {@link Options#setLevel0FileNumCompactionTrigger(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setLevel0FileNumCompactionTrigger(int n) {
    checkOpen();
    options.setLevel0FileNumCompactionTrigger(n);
    return this;
  }

  /** @return as {@link Options#level0FileNumCompactionTrigger()} */
  public int level0FileNumCompactionTrigger() {
    checkOpen();
    return options.level0FileNumCompactionTrigger();
  }

  /**
   * As {@link Options#setLevelZeroFileNumCompactionTrigger(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setLevelZeroFileNumCompactionTrigger(int n) {
    checkOpen();
    options.setLevelZeroFileNumCompactionTrigger(n);
    return this;
  }

  /** @return as {@link Options#levelZeroFileNumCompactionTrigger()} */
  public int levelZeroFileNumCompactionTrigger() {
    checkOpen();
    return options.levelZeroFileNumCompactionTrigger();
  }

  /**
   * As {@link Options#setLevel0SlowdownWritesTrigger(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setLevel0SlowdownWritesTrigger(int n) {
    checkOpen();
    options.setLevel0SlowdownWritesTrigger(n);
    return this;
  }

  /** @return as {@link Options#level0SlowdownWritesTrigger()} */
  public int level0SlowdownWritesTrigger() {
    checkOpen();
    return options.level0SlowdownWritesTrigger();
  }

  /**
   * As {@link Options#setLevelZeroSlowdownWritesTrigger(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setLevelZeroSlowdownWritesTrigger(int n) {
    checkOpen();
    options.setLevelZeroSlowdownWritesTrigger(n);
    return this;
  }

  /** @return as {@link Options#levelZeroSlowdownWritesTrigger()} */
  public int levelZeroSlowdownWritesTrigger() {
    checkOpen();
    return options.levelZeroSlowdownWritesTrigger();
  }

  /**
   * As {@link Options#setLevel0StopWritesTrigger(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setLevel0StopWritesTrigger(int n) {
    checkOpen();
    options.setLevel0StopWritesTrigger(n);
    return this;
  }

  /** @return as {@link Options#level0StopWritesTrigger()} */
  public int level0StopWritesTrigger() {
    checkOpen();
    return options.level0StopWritesTrigger();
  }

  /**
   * As {@link Options#setLevelZeroStopWritesTrigger(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setLevelZeroStopWritesTrigger(int n) {
    checkOpen();
    options.setLevelZeroStopWritesTrigger(n);
    return this;
  }

  /** @return as {@link Options#levelZeroStopWritesTrigger()} */
  public int levelZeroStopWritesTrigger() {
    checkOpen();
    return options.levelZeroStopWritesTrigger();
  }

  /**
   * As {@link Options#setSoftPendingCompactionBytesLimit(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public ColumnFamilyOptions setSoftPendingCompactionBytesLimit(long bytes) {
    checkOpen();
    options.setSoftPendingCompactionBytesLimit(bytes);
    return this;
  }

  /** @return as {@link Options#softPendingCompactionBytesLimit()} */
  public long softPendingCompactionBytesLimit() {
    checkOpen();
    return options.softPendingCompactionBytesLimit();
  }

  /**
   * As {@link Options#setHardPendingCompactionBytesLimit(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public ColumnFamilyOptions setHardPendingCompactionBytesLimit(long bytes) {
    checkOpen();
    options.setHardPendingCompactionBytesLimit(bytes);
    return this;
  }

  /** @return as {@link Options#hardPendingCompactionBytesLimit()} */
  public long hardPendingCompactionBytesLimit() {
    checkOpen();
    return options.hardPendingCompactionBytesLimit();
  }

  /**
   * As {@link Options#setNumLevels(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions setNumLevels(int n) {
    checkOpen();
    options.setNumLevels(n);
    return this;
  }

  /** @return as {@link Options#numLevels()} */
  public int numLevels() {
    checkOpen();
    return options.numLevels();
  }

  /**
   * As {@link Options#setMaxBytesForLevelBase(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public ColumnFamilyOptions setMaxBytesForLevelBase(long bytes) {
    checkOpen();
    options.setMaxBytesForLevelBase(bytes);
    return this;
  }

  /** @return as {@link Options#maxBytesForLevelBase()} */
  public long maxBytesForLevelBase() {
    checkOpen();
    return options.maxBytesForLevelBase();
  }

  /**
   * As {@link Options#setMaxBytesForLevelMultiplier(double)}.
   *
   * @param multiplier the value
   * @return this
   */
  public ColumnFamilyOptions setMaxBytesForLevelMultiplier(double multiplier) {
    checkOpen();
    options.setMaxBytesForLevelMultiplier(multiplier);
    return this;
  }

  /** @return as {@link Options#maxBytesForLevelMultiplier()} */
  public double maxBytesForLevelMultiplier() {
    checkOpen();
    return options.maxBytesForLevelMultiplier();
  }

  /**
   * As {@link Options#setLevelCompactionDynamicLevelBytes(boolean)}.
   *
   * @param flag the value
   * @return this
   */
  public ColumnFamilyOptions setLevelCompactionDynamicLevelBytes(boolean flag) {
    checkOpen();
    options.setLevelCompactionDynamicLevelBytes(flag);
    return this;
  }

  /** @return as {@link Options#levelCompactionDynamicLevelBytes()} */
  public boolean levelCompactionDynamicLevelBytes() {
    checkOpen();
    return options.levelCompactionDynamicLevelBytes();
  }

  /**
   * As {@link Options#setTargetFileSizeBase(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public ColumnFamilyOptions setTargetFileSizeBase(long bytes) {
    checkOpen();
    options.setTargetFileSizeBase(bytes);
    return this;
  }

  /** @return as {@link Options#targetFileSizeBase()} */
  public long targetFileSizeBase() {
    checkOpen();
    return options.targetFileSizeBase();
  }

  /**
   * As {@link Options#setTargetFileSizeMultiplier(int)}.
   *
   * @param multiplier the value
   * @return this
   */
  public ColumnFamilyOptions setTargetFileSizeMultiplier(int multiplier) {
    checkOpen();
    options.setTargetFileSizeMultiplier(multiplier);
    return this;
  }

  /** @return as {@link Options#targetFileSizeMultiplier()} */
  public int targetFileSizeMultiplier() {
    checkOpen();
    return options.targetFileSizeMultiplier();
  }

  /**
   * As {@link Options#setCompactionPriority(CompactionPriority)}.
   *
   * @param priority the value
   * @return this
   */
  public ColumnFamilyOptions setCompactionPriority(CompactionPriority priority) {
    checkOpen();
    options.setCompactionPriority(priority);
    return this;
  }

  /** @return as {@link Options#compactionPriority()} */
  public CompactionPriority compactionPriority() {
    checkOpen();
    return options.compactionPriority();
  }

  /**
   * As {@link Options#setCompactionStyle(CompactionStyle)}.
   *
   * @param style the value
   * @return this
   */
  public ColumnFamilyOptions setCompactionStyle(CompactionStyle style) {
    checkOpen();
    options.setCompactionStyle(style);
    return this;
  }

  /** @return as {@link Options#compactionStyle()} */
  public CompactionStyle compactionStyle() {
    checkOpen();
    return options.compactionStyle();
  }

  /**
   * As {@link Options#setCompactionOptionsUniversal(CompactionOptionsUniversal)}.
   *
   * @param universal the value
   * @return this
   */
  public ColumnFamilyOptions setCompactionOptionsUniversal(CompactionOptionsUniversal universal) {
    checkOpen();
    options.setCompactionOptionsUniversal(universal);
    return this;
  }

  /** @return as {@link Options#compactionOptionsUniversal()} */
  public CompactionOptionsUniversal compactionOptionsUniversal() {
    checkOpen();
    return options.compactionOptionsUniversal();
  }

  /**
   * As {@link Options#setCompactionOptionsFIFO(CompactionOptionsFIFO)}.
   *
   * @param fifo the value
   * @return this
   */
  public ColumnFamilyOptions setCompactionOptionsFIFO(CompactionOptionsFIFO fifo) {
    checkOpen();
    options.setCompactionOptionsFIFO(fifo);
    return this;
  }

  /** @return as {@link Options#compactionOptionsFIFO()} */
  public CompactionOptionsFIFO compactionOptionsFIFO() {
    checkOpen();
    return options.compactionOptionsFIFO();
  }

  /**
   * As {@link Options#setTtl(long)}.
   *
   * @param ttl the value
   * @return this
   */
  public ColumnFamilyOptions setTtl(long ttl) {
    checkOpen();
    options.setTtl(ttl);
    return this;
  }

  /** @return as {@link Options#ttl()} */
  public long ttl() {
    checkOpen();
    return options.ttl();
  }

  /**
   * As {@link Options#optimizeUniversalStyleCompaction()}.
   *
   * @return this
   */
  public ColumnFamilyOptions optimizeUniversalStyleCompaction() {
    checkOpen();
    options.optimizeUniversalStyleCompaction();
    return this;
  }

  /**
   * As {@link Options#optimizeUniversalStyleCompaction(long)}.
   *
   * @param memtableMemoryBudget the value
   * @return this
   */
  public ColumnFamilyOptions optimizeUniversalStyleCompaction(long memtableMemoryBudget) {
    checkOpen();
    options.optimizeUniversalStyleCompaction(memtableMemoryBudget);
    return this;
  }

  /**
   * As {@link Options#setDisableAutoCompactions(boolean)}.
   *
   * @param flag the value
   * @return this
   */
  public ColumnFamilyOptions setDisableAutoCompactions(boolean flag) {
    checkOpen();
    options.setDisableAutoCompactions(flag);
    return this;
  }

  /** @return as {@link Options#disableAutoCompactions()} */
  public boolean disableAutoCompactions() {
    checkOpen();
    return options.disableAutoCompactions();
  }

  /**
   * As {@link Options#setCompressionType(CompressionType)}.
   *
   * @param type the value
   * @return this
   */
  public ColumnFamilyOptions setCompressionType(CompressionType type) {
    checkOpen();
    options.setCompressionType(type);
    return this;
  }

  /** @return as {@link Options#compressionType()} */
  public CompressionType compressionType() {
    checkOpen();
    return options.compressionType();
  }

  /**
   * As {@link Options#useFixedLengthPrefixExtractor(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions useFixedLengthPrefixExtractor(int n) {
    checkOpen();
    options.useFixedLengthPrefixExtractor(n);
    return this;
  }

  /**
   * As {@link Options#useCappedPrefixExtractor(int)}.
   *
   * @param n the value
   * @return this
   */
  public ColumnFamilyOptions useCappedPrefixExtractor(int n) {
    checkOpen();
    options.useCappedPrefixExtractor(n);
    return this;
  }

  /**
   * As {@link Options#setTableFormatConfig(TableFormatConfig)}.
   *
   * @param config the value
   * @return this
   */
  public ColumnFamilyOptions setTableFormatConfig(TableFormatConfig config) {
    checkOpen();
    options.setTableFormatConfig(config);
    return this;
  }

  /** @return as {@link Options#tableFormatConfig()} */
  public TableFormatConfig tableFormatConfig() {
    checkOpen();
    return options.tableFormatConfig();
  }

  /**
   * As {@link Options#setBlockBasedTableFactory(BlockBasedTableConfig)}.
   *
   * @param config the value
   * @return this
   */
  public ColumnFamilyOptions setBlockBasedTableFactory(BlockBasedTableConfig config) {
    checkOpen();
    options.setBlockBasedTableFactory(config);
    return this;
  }

  /**
   * As {@link Options#setMergeOperator(MergeOperator)}.
   *
   * @param mergeOperator the value
   * @return this
   */
  public ColumnFamilyOptions setMergeOperator(MergeOperator mergeOperator) {
    checkOpen();
    options.setMergeOperator(mergeOperator);
    return this;
  }

  /**
   * As {@link Options#setMergeOperatorName(String)}.
   *
   * @param name the value
   * @return this
   */
  public ColumnFamilyOptions setMergeOperatorName(String name) {
    checkOpen();
    options.setMergeOperatorName(name);
    return this;
  }

  /**
   * As {@link Options#optimizeLevelStyleCompaction()}.
   *
   * @return this
   */
  public ColumnFamilyOptions optimizeLevelStyleCompaction() {
    checkOpen();
    options.optimizeLevelStyleCompaction();
    return this;
  }

  /** The options object holding the values (package-private, for open). */
  Options options() {
    checkOpen();
    return options;
  }
}
