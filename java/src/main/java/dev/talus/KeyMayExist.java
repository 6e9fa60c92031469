package dev.talus;

import java.util.Objects;

/**
 * The answer of {@link TalusDB#keyMayExist(ReadOptions, java.nio.ByteBuffer,
 * java.nio.ByteBuffer)}, as RocksJava's {@code KeyMayExist}: whether the key may exist, and the
 * length of its value when it was found in memory.
 */
public class KeyMayExist {
  /** What a key-may-exist lookup could tell without reading from disk. */
  public enum KeyMayExistEnum {
    /** The key is certainly absent. */
    kNotExist,
    /** The key may exist; finding out needs a read from disk, which was not done. */
    kExistsWithoutValue,
    /** The key exists; its value was found in memory (memtable or block cache). */
    kExistsWithValue
  }

  /** The answer. */
  public final KeyMayExistEnum exists;

  /**
   * The full length of the value in bytes with {@link KeyMayExistEnum#kExistsWithValue}, else 0.
   */
  public final int valueLength;

  /**
   * @param exists the answer
   * @param valueLength the value's full length in bytes (0 without a value)
   */
  public KeyMayExist(final KeyMayExistEnum exists, final int valueLength) {
    this.exists = exists;
    this.valueLength = valueLength;
  }

  @Override
  public boolean equals(final Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof KeyMayExist)) {
      return false;
    }
    final KeyMayExist that = (KeyMayExist) o;
    return valueLength == that.valueLength && exists == that.exists;
  }

  @Override
  public int hashCode() {
    return Objects.hash(exists, valueLength);
  }

  @Override
  public String toString() {
    return "KeyMayExist{" + exists + ", valueLength=" + valueLength + "}";
  }
}
