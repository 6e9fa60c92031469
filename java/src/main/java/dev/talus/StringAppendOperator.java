package dev.talus;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * RocksDB's string-append merge operator, as RocksJava's {@code StringAppendOperator}: each
 * merge operand is appended to the key's value after the delimiter (no delimiter before the first
 * piece, so merging {@code "a"} then {@code "b"} into a missing key gives {@code "a,b"}, and into
 * the value {@code "v"} gives {@code "v,a,b"}).
 *
 * <p>The delimiter is stored as UTF-8 bytes: {@code ','} by default, any {@code char} or {@code
 * String}, possibly empty. RocksDB takes a {@code char} delimiter as one byte (a non-ASCII
 * {@code char} loses its high bits there); Talus uses its UTF-8 encoding.
 */
public class StringAppendOperator extends MergeOperator {
  /** An operator with RocksDB's default delimiter {@code ','}. */
  public StringAppendOperator() {
    this(',');
  }

  /**
   * An operator joining with {@code delim}.
   *
   * @param delim the delimiter character
   */
  public StringAppendOperator(final char delim) {
    this(String.valueOf(delim));
  }

  /**
   * An operator joining with {@code delim}.
   *
   * @param delim the delimiter, possibly empty
   * @throws NullPointerException if {@code delim} is null
   */
  public StringAppendOperator(final String delim) {
    super(create(Objects.requireNonNull(delim, "delim")));
  }

  private static long create(final String delim) {
    NativeLibrary.load();
    return nativeNew(delim.getBytes(StandardCharsets.UTF_8));
  }

  private static native long nativeNew(byte[] delimiter);
}
