package dev.talus;

import java.util.Objects;

/**
 * Options of one write, as RocksJava's {@code WriteOptions}. Every option defaults to {@code
 * false}. A plain Java object: it owns no native memory; {@link #close()} only marks it closed
 * so that later use fails with {@link IllegalStateException}, as with every closed Talus object.
 */
public class WriteOptions extends PlainCloseable {
  static final int SYNC = 1;
  static final int DISABLE_WAL = 2;
  static final int NO_SLOWDOWN = 4;
  static final int LOW_PRI = 8;

  private int flags;

  /** Default write options: no sync, WAL on, waits in write stalls. */
  public WriteOptions() {}

  /**
   * A copy of {@code other}.
   *
   * @param other options to copy; not null
   * @throws NullPointerException if {@code other} is null
   * @throws IllegalStateException if {@code other} is closed
   */
  public WriteOptions(WriteOptions other) {
    this.flags = Objects.requireNonNull(other, "other").flags();
  }

  private WriteOptions set(int bit, boolean on) {
    checkOpen();
    flags = on ? (flags | bit) : (flags & ~bit);
    return this;
  }

  private boolean get(int bit) {
    checkOpen();
    return (flags & bit) != 0;
  }

  /**
   * Sync the write-ahead log to disk before the write returns. Default false: the write survives
   * a process crash once acknowledged, but not a power loss. Needs the WAL: a write whose options
   * also set {@link #setDisableWAL(boolean) disableWAL} fails with a {@link TalusException} of
   * status {@code InvalidArgument} and changes nothing (as in RocksDB); this setter itself
   * accepts either value.
   *
   * @param sync true to sync
   * @return this
   */
  public WriteOptions setSync(boolean sync) {
    return set(SYNC, sync);
  }

  /** @return whether writes sync the WAL (default false) */
  public boolean sync() {
    return get(SYNC);
  }

  /**
   * Skip the write-ahead log: the write is lost on a crash until its memtable is flushed. Default
   * false. Not with {@link #setSync(boolean) sync}: such a write is refused with {@code
   * InvalidArgument}.
   *
   * @param disableWAL true to skip the WAL
   * @return this
   */
  public WriteOptions setDisableWAL(boolean disableWAL) {
    return set(DISABLE_WAL, disableWAL);
  }

  /** @return whether the WAL is skipped (default false) */
  public boolean disableWAL() {
    return get(DISABLE_WAL);
  }

  /**
   * Fail at once with status {@code Incomplete} instead of waiting when writes are stalled or
   * delayed. Default false.
   *
   * @param noSlowdown true to fail instead of waiting
   * @return this
   */
  public WriteOptions setNoSlowdown(boolean noSlowdown) {
    return set(NO_SLOWDOWN, noSlowdown);
  }

  /** @return whether stalled writes fail instead of waiting (default false) */
  public boolean noSlowdown() {
    return get(NO_SLOWDOWN);
  }

  /**
   * Mark the write low priority: it is throttled first while compaction is behind. Default false.
   *
   * @param lowPri true for low priority
   * @return this
   */
  public WriteOptions setLowPri(boolean lowPri) {
    return set(LOW_PRI, lowPri);
  }

  /** @return whether the write is low priority (default false) */
  public boolean lowPri() {
    return get(LOW_PRI);
  }

  int flags() {
    checkOpen();
    return flags;
  }

}
