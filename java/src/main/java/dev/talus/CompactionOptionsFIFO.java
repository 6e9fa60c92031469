package dev.talus;

/**
 * FIFO compaction's options, as RocksJava's {@code CompactionOptionsFIFO}, with its names and
 * defaults; used by a family whose style is {@link CompactionStyle#FIFO}. Set on {@link
 * Options#setCompactionOptionsFIFO(CompactionOptionsFIFO)}, which copies the values.
 *
 * <p>FIFO compaction keeps every table in L0 and deletes the oldest: those older than {@link
 * Options#setTtl(long)} seconds, then the oldest while the tables total more than {@link
 * #maxTableFilesSize()}. Data is lost on purpose: FIFO is for caches and logs whose old entries
 * may go. Tables are dropped whole, oldest first, so what is left is always every write newer than
 * some point. L0's stall triggers do not apply.
 *
 * <p>A plain Java object: {@link #close()} marks it closed; later use throws {@link
 * IllegalStateException}. Not thread-safe: configure it on one thread.
 */
public class CompactionOptionsFIFO extends PlainCloseable {
  private long maxTableFilesSize = 1L << 30;
  private boolean allowCompaction;

  /** FIFO options with RocksDB's defaults. */
  public CompactionOptionsFIFO() {}

  /** A copy of {@code other} (open or not). */
  CompactionOptionsFIFO(CompactionOptionsFIFO other) {
    this.maxTableFilesSize = other.maxTableFilesSize;
    this.allowCompaction = other.allowCompaction;
  }

  /**
   * Total size of the tables above which the oldest are deleted, bytes. Default 1 GiB. Unsigned
   * in RocksDB: a negative value is the unsigned number of the same bits.
   *
   * @param size bytes
   * @return this
   */
  public CompactionOptionsFIFO setMaxTableFilesSize(long size) {
    checkOpen();
    this.maxTableFilesSize = size;
    return this;
  }

  /** @return the size limit, bytes (default 1 GiB) */
  public long maxTableFilesSize() {
    checkOpen();
    return maxTableFilesSize;
  }

  /**
   * Merge the newest small L0 tables into one (at least four, once L0 holds {@code
   * level0FileNumCompactionTrigger} tables) when no table is due to be dropped. Default false.
   *
   * @param allowCompaction true to allow
   * @return this
   */
  public CompactionOptionsFIFO setAllowCompaction(boolean allowCompaction) {
    checkOpen();
    this.allowCompaction = allowCompaction;
    return this;
  }

  /** @return whether intra-L0 compaction is allowed (default false) */
  public boolean allowCompaction() {
    checkOpen();
    return allowCompaction;
  }

  void appendTo(StringBuilder b) {
    Options.put(b, "compaction_options_fifo.max_table_files_size", maxTableFilesSize);
    Options.put(b, "compaction_options_fifo.allow_compaction", allowCompaction);
  }
}
