package dev.talus;

/**
 * Options of {@link TalusDB#flush(FlushOptions)}, as RocksJava's {@code FlushOptions}. A plain
 * Java object.
 */
public class FlushOptions extends PlainCloseable {
  private boolean waitForFlush = true;
  private boolean allowWriteStall;

  /** Default flush options: wait for the flush, no write stall allowed. */
  public FlushOptions() {}

  /**
   * Wait until the flush has finished. Default true.
   *
   * @param waitForFlush true to block until the data is in table files
   * @return this
   */
  public FlushOptions setWaitForFlush(boolean waitForFlush) {
    checkOpen();
    this.waitForFlush = waitForFlush;
    return this;
  }

  /** @return whether flush waits (default true) */
  public boolean waitForFlush() {
    checkOpen();
    return waitForFlush;
  }

  /**
   * Flush even if switching the memtable would stop writes. Default false: the flush first waits
   * until one more immutable memtable stays below {@code maxWriteBufferNumber}.
   *
   * @param allowWriteStall true to allow
   * @return this
   */
  public FlushOptions setAllowWriteStall(boolean allowWriteStall) {
    checkOpen();
    this.allowWriteStall = allowWriteStall;
    return this;
  }

  /** @return whether a write stall is allowed (default false) */
  public boolean allowWriteStall() {
    checkOpen();
    return allowWriteStall;
  }

}
