package dev.talus;

/**
 * A table filter policy, as RocksJava's {@code Filter}. Talus implements {@link BloomFilter}. A
 * plain Java object: its settings are copied into the database at open.
 */
public abstract class Filter implements AutoCloseable {
  Filter() {}

  /** @return bits per key of the filter */
  abstract double bitsPerKey();

  /** No native memory is held; nothing to free. */
  @Override
  public void close() {}
}
