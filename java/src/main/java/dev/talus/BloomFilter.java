package dev.talus;

/**
 * A Bloom filter over whole user keys, as RocksJava's {@code BloomFilter}: a point lookup skips
 * a table file whose filter rules the key out. With 10 bits per key about 1% of absent keys pass
 * the filter.
 */
public class BloomFilter extends Filter {
  /** Default bits per key. */
  public static final double DEFAULT_BITS_PER_KEY = 10.0;

  private final double bitsPerKey;

  /** A filter with 10 bits per key. */
  public BloomFilter() {
    this(DEFAULT_BITS_PER_KEY);
  }

  /**
   * A filter of {@code bitsPerKey} bits per key, taken as RocksDB takes it at open: below 0.5 no
   * filter is built, below 1 one bit per key, and 100 or more (or NaN) means 100.
   *
   * @param bitsPerKey bits per key
   */
  public BloomFilter(double bitsPerKey) {
    this.bitsPerKey = bitsPerKey;
  }

  /**
   * RocksJava's form. Block-based filters were removed from RocksDB in version 7 and the flag is
   * ignored there; Talus always builds full filters, accepts {@code false}, and rejects {@code
   * true} rather than silently ignoring it.
   *
   * @param bitsPerKey bits per key
   * @param useBlockBasedBuilder must be false
   * @throws UnsupportedOperationException when {@code useBlockBasedBuilder} is true
   */
  public BloomFilter(double bitsPerKey, boolean useBlockBasedBuilder) {
    this(bitsPerKey);
    if (useBlockBasedBuilder) {
      throw new UnsupportedOperationException(
          "BloomFilter useBlockBasedBuilder=true: block-based filters are not implemented "
              + "(RocksDB removed them in 7.0); use false");
    }
  }

  @Override
  double bitsPerKey() {
    checkOpen();
    return bitsPerKey;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BloomFilter
        && Double.compare(((BloomFilter) o).bitsPerKey, bitsPerKey) == 0;
  }

  @Override
  public int hashCode() {
    return Double.hashCode(bitsPerKey);
  }
}
