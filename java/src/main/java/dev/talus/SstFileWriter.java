package dev.talus;

import dev.talus.internal.NativeHandle;
import java.util.Objects;

/**
 * Writes a table file outside any database, to be added with {@link
 * TalusDB#ingestExternalFile(java.util.List, IngestExternalFileOptions)}, as RocksJava's {@code
 * SstFileWriter}. The file is written with the options' block size, restart interval, bloom filter,
 * prefix extractor and compression (the codec of the last level: {@code bottommostCompression} when
 * set, else the last of {@code compressionPerLevel}, else {@code compression}).
 *
 * <p>Puts, merges and deletes must come in strictly increasing key order (bytewise); a key out of
 * order or added twice is refused with a {@link TalusException} of status {@code InvalidArgument}
 * naming both keys, and is not written. Range deletions may come in any order. {@link #finish()}
 * syncs the file before it returns; a file with no entry is refused and removed. One call at a time.
 */
public class SstFileWriter extends NativeHandle {
  /**
   * A writer with the table options of {@code options}.
   *
   * @param envOptions file access options (accepted for RocksJava compatibility; none apply)
   * @param options the table options of the files written
   */
  public SstFileWriter(final EnvOptions envOptions, final Options options) {
    super(nativeNew(Objects.requireNonNull(options, "options").toNativeString()));
    Objects.requireNonNull(envOptions, "envOptions").checkOpen();
  }

  /**
   * Creates (or truncates) the file and starts a table in it.
   *
   * @param filePath the file to write
   * @throws TalusException if the file cannot be created
   */
  public void open(final String filePath) throws TalusException {
    Objects.requireNonNull(filePath, "filePath");
    final long h = acquire();
    try {
      nativeOpen(h, filePath);
    } finally {
      release();
    }
  }

  private void add(final int op, final byte[] key, final byte[] value) throws TalusException {
    Objects.requireNonNull(key, "key");
    if (op != 2) {
      Objects.requireNonNull(value, "value");
    }
    final long h = acquire();
    try {
      nativeAdd(h, op, key, value);
    } finally {
      release();
    }
  }

  /**
   * Adds a value; {@code key} must sort after every key added before.
   *
   * @param key the key
   * @param value the value
   * @throws TalusException {@code InvalidArgument} for a key out of order or added twice
   */
  public void put(final byte[] key, final byte[] value) throws TalusException {
    add(0, key, value);
  }

  /**
   * Adds a value, the key and value given as {@link Slice}s (same rule as {@link #put(byte[],
   * byte[])}).
   *
   * @param key the key
   * @param value the value
   * @throws TalusException {@code InvalidArgument} for a key out of order or added twice
   */
  public void put(final Slice key, final Slice value) throws TalusException {
    add(0, Objects.requireNonNull(key, "key").data(), Objects.requireNonNull(value, "value").data());
  }

  /**
   * Adds a merge operand (same order rule as {@link #put(byte[], byte[])}); resolved by the merge
   * operator of the family it is ingested into.
   *
   * @param key the key
   * @param value the operand
   * @throws TalusException {@code InvalidArgument} for a key out of order or added twice
   */
  public void merge(final byte[] key, final byte[] value) throws TalusException {
    add(1, key, value);
  }

  /**
   * Adds a deletion of {@code key} (same order rule as {@link #put(byte[], byte[])}).
   *
   * @param key the key
   * @throws TalusException {@code InvalidArgument} for a key out of order or added twice
   */
  public void delete(final byte[] key) throws TalusException {
    add(2, key, null);
  }

  /**
   * Adds a deletion of every key in {@code [beginKey, endKey)}, in any order relative to other
   * entries.
   *
   * @param beginKey the first key deleted
   * @param endKey the first key after the range
   * @throws TalusException {@code InvalidArgument} when {@code beginKey} sorts after {@code endKey}
   */
  public void deleteRange(final byte[] beginKey, final byte[] endKey) throws TalusException {
    add(3, beginKey, Objects.requireNonNull(endKey, "endKey"));
  }

  /**
   * Finishes the file: writes its index, filter and footer and syncs it.
   *
   * @return what the file holds
   * @throws TalusException {@code InvalidArgument} when no file is open or it holds no entry
   */
  public ExternalSstFileInfo finish() throws TalusException {
    final long h = acquire();
    try {
      return new ExternalSstFileInfo(nativeFinish(h));
    } finally {
      release();
    }
  }

  /**
   * @return the bytes written so far to the open file plus the block being filled, without the
   *     index, filter and footer {@link #finish()} adds; 0 when no file is open
   */
  public long fileSize() {
    final long h = acquire();
    try {
      return nativeFileSize(h);
    } finally {
      release();
    }
  }

  @Override
  protected void disposeInternal(final long handle) {
    nativeDispose(handle);
  }

  private static native long nativeNew(String options);

  private static native void nativeOpen(long handle, String path);

  private static native void nativeAdd(long handle, int op, byte[] key, byte[] value);

  private static native Object[] nativeFinish(long handle);

  private static native long nativeFileSize(long handle);

  private static native void nativeDispose(long handle);
}
