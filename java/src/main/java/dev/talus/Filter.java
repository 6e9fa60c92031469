package dev.talus;

/**
 * A table filter policy, as RocksJava's {@code Filter}. Talus implements {@link BloomFilter}. A
 * plain Java object: its settings are copied into the database at open, so closing it once the
 * database is open is harmless. It owns no native memory; {@link #close()} only marks it closed,
 * and opening a database whose table config names a closed filter throws {@link
 * IllegalStateException}.
 */
public abstract class Filter extends PlainCloseable {

  Filter() {}

  /** @return bits per key of the filter */
  abstract double bitsPerKey();

}
