package dev.talus;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A byte string, as RocksJava's {@code Slice}, used for iterator bounds. A plain Java object
 * holding a copy of its bytes; {@link #close()} is a no-op kept for RocksJava compatibility.
 */
public class Slice implements AutoCloseable {
  private final byte[] data;

  /**
   * @param s a string, encoded as UTF-8
   */
  public Slice(String s) {
    this.data = s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @param data the bytes, copied
   */
  public Slice(byte[] data) {
    this.data = data.clone();
  }

  /**
   * @param data the bytes
   * @param offset first byte to use; the rest of the array is copied
   */
  public Slice(byte[] data, int offset) {
    this.data = Arrays.copyOfRange(data, offset, data.length);
  }

  /** @return a copy of the bytes */
  public byte[] data() {
    return data.clone();
  }

  /** @return the length in bytes */
  public int size() {
    return data.length;
  }

  /** @return true when empty */
  public boolean empty() {
    return data.length == 0;
  }

  /** No native memory is held; nothing to free. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return new String(data, StandardCharsets.UTF_8);
  }
}
