package dev.talus;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A byte string, as RocksJava's {@code Slice}, used for iterator bounds. A plain Java object
 * holding a copy of its bytes: it owns no native memory; {@link #close()} only marks it closed so
 * that later use fails with {@link IllegalStateException}, as with every closed Talus object.
 */
public class Slice extends PlainCloseable {
  private final byte[] data;

  /**
   * @param s a string, encoded as UTF-8; not null
   * @throws NullPointerException if {@code s} is null
   */
  public Slice(String s) {
    this.data = Objects.requireNonNull(s, "s").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @param data the bytes, copied; not null
   * @throws NullPointerException if {@code data} is null
   */
  public Slice(byte[] data) {
    this.data = Objects.requireNonNull(data, "data").clone();
  }

  /**
   * @param data the bytes; not null
   * @param offset first byte to use, from 0 to {@code data.length}; the rest of the array is
   *     copied
   * @throws NullPointerException if {@code data} is null
   * @throws IndexOutOfBoundsException if {@code offset} is outside {@code [0, data.length]}
   */
  public Slice(byte[] data, int offset) {
    Objects.requireNonNull(data, "data");
    Objects.checkIndex(offset, data.length + 1);
    this.data = Arrays.copyOfRange(data, offset, data.length);
  }

  /**
   * @return a copy of the bytes
   * @throws IllegalStateException if this slice is closed
   */
  public byte[] data() {
    checkOpen();
    return data.clone();
  }

  /**
   * @return the length in bytes
   * @throws IllegalStateException if this slice is closed
   */
  public int size() {
    checkOpen();
    return data.length;
  }

  /**
   * @return true when empty
   * @throws IllegalStateException if this slice is closed
   */
  public boolean empty() {
    checkOpen();
    return data.length == 0;
  }


  /** @return the bytes decoded as UTF-8, or {@code "Slice{closed}"} once closed */
  @Override
  public String toString() {
    return isClosed() ? "Slice{closed}" : new String(data, StandardCharsets.UTF_8);
  }
}
