package dev.talus;

/**
 * A mutable reference to one value, as RocksJava's {@code Holder}: {@link
 * TalusDB#keyMayExist(byte[], Holder)} hands a value back through it. Not thread-safe.
 *
 * @param <T> the type of the value
 */
public class Holder<T> {
  private T value;

  /** A holder of {@code null}. */
  public Holder() {}

  /**
   * A holder of {@code value}.
   *
   * @param value the value, or null
   */
  public Holder(final T value) {
    this.value = value;
  }

  /** @return the value held, or null */
  public T getValue() {
    return value;
  }

  /**
   * Replaces the value held.
   *
   * @param value the new value, or null
   */
  public void setValue(final T value) {
    this.value = value;
  }
}
