package dev.talus;

/**
 * The base of the public objects that own no native memory ({@link Options}, {@link
 * ReadOptions}, {@link WriteOptions}, {@link FlushOptions}, {@link WriteBatch}, {@link Slice},
 * {@link Filter}, {@link PerfContext}, {@link ColumnFamilyHandle}): {@link #close()} only marks the object closed, and every later use
 * throws {@link IllegalStateException} {@code "<SimpleClassName> is closed"}, as a closed {@link
 * dev.talus.internal.NativeHandle} does. Objects that own native memory extend {@code
 * NativeHandle} instead.
 *
 * <p>Package-private in {@code dev.talus} rather than public in {@code dev.talus.internal}: the
 * database checks the options and handles passed to it through {@link #checkOpen()}, which must
 * not become public API of those classes.
 *
 * <p>Thread-safety: {@link #close()} may race any use; a use that reads the flag after the close
 * wrote it throws (the flag is volatile). The objects' own settings are not synchronised, as in
 * RocksJava: configure an object on one thread, then share it.
 */
abstract class PlainCloseable implements AutoCloseable {
  private volatile boolean closed;

  PlainCloseable() {}

  /**
   * Throws once closed. Overridden by objects that also depend on another (a column family
   * handle on its database).
   *
   * @throws IllegalStateException {@code "<SimpleClassName> is closed"} once {@link #close()} ran
   */
  void checkOpen() {
    if (closed) {
      throw new IllegalStateException(getClass().getSimpleName() + " is closed");
    }
  }

  /** @return whether {@link #close()} has run */
  final boolean isClosed() {
    return closed;
  }

  /**
   * Marks this object closed; later use throws {@link IllegalStateException}. It owns no native
   * memory, and closing it changes nothing outside it. Idempotent, from any thread.
   */
  @Override
  public void close() {
    closed = true;
  }
}
