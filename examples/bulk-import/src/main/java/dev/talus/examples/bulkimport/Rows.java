package dev.talus.examples.bulkimport;

/**
 * The rows of an import, computed from their index and the seed, so that nothing per row is
 * stored and any run can be verified afterwards.
 *
 * <p>Key of row {@code i} ({@code keySize} bytes, at least 8): the first 8 bytes are a 64-bit id
 * in big-endian order, the rest a filler derived from the id. The id is {@code i} itself for
 * {@code --key-order sequential} (keys arrive in ascending order), and a bijective 64-bit mix of
 * {@code i} and the seed for {@code random} (keys arrive in random order). Because the id is a
 * bijection of {@code i}, keys of different rows always differ.
 *
 * <p>Value ({@code valueSize} bytes, at least 8): the first 8 bytes are a 64-bit checksum of the
 * key (so a value stored under the wrong key is caught), then a pseudo-random filler seeded by
 * that checksum whose second half repeats the first: the value compresses to about half, like
 * {@code db_bench --compression_ratio=0.5}, so LZ4 has real work on both engines.
 *
 * <p>Immutable and thread-safe; the {@code byte[]} arguments are the caller's reusable buffers.
 */
final class Rows {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final long seed;
  private final int keySize;
  private final int valueSize;
  private final boolean sequential;

  Rows(long seed, int keySize, int valueSize, boolean sequential) {
    if (keySize < 8) {
      throw new IllegalArgumentException("key size must be at least 8 bytes, got " + keySize);
    }
    if (valueSize < 8) {
      throw new IllegalArgumentException("value size must be at least 8 bytes, got " + valueSize);
    }
    this.seed = seed;
    this.keySize = keySize;
    this.valueSize = valueSize;
    this.sequential = sequential;
  }

  /**
   * Rows of the same sizes under another seed, in random key order whatever this one's order: a
   * different bijection of the row index, so that its keys are, but with probability about
   * rows² / 2⁶⁴, none of this one's. The read benchmark's absent keys.
   */
  Rows withSeed(long otherSeed) {
    return new Rows(otherSeed, keySize, valueSize, false);
  }

  int keySize() {
    return keySize;
  }

  int valueSize() {
    return valueSize;
  }

  /** SplitMix64's finalizer: a bijection of the 64-bit integers. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The id of row {@code index}: a bijection of the index (identity when sequential). */
  long id(long index) {
    return sequential ? index : mix(index ^ mix(seed));
  }

  /** Writes the key of row {@code index} into {@code key} (length {@link #keySize()}). */
  void key(long index, byte[] key) {
    keyOfId(id(index), key);
  }

  /**
   * Writes the key whose id is {@code id} into {@code key} (length {@link #keySize()}): the key
   * depends on the row only through its id, and keys sort (bytewise) as their ids do as unsigned
   * integers, so rows can be sorted by sorting their ids.
   */
  void keyOfId(long id, byte[] key) {
    putLong(key, 0, id);
    fill(key, 8, keySize, mix(id + seed * GOLDEN + 1));
  }

  /** Writes the value belonging to {@code key} into {@code value} (length {@link #valueSize()}). */
  void value(byte[] key, byte[] value) {
    long sum = checksum(key);
    putLong(value, 0, sum);
    int half = 8 + (valueSize - 8 + 1) / 2;
    fill(value, 8, half, sum);
    for (int i = half; i < valueSize; i++) {
      value[i] = value[i - (half - 8)];
    }
  }

  /**
   * Whether {@code actual} is exactly the value of {@code key}.
   *
   * @param scratch a buffer of {@link #valueSize()} bytes
   */
  boolean matches(byte[] key, byte[] actual, byte[] scratch) {
    if (actual.length != valueSize) {
      return false;
    }
    value(key, scratch);
    return java.util.Arrays.equals(actual, scratch);
  }

  /** A 64-bit checksum of the key bytes, keyed by the seed. */
  long checksum(byte[] key) {
    long h = mix(seed ^ GOLDEN) ^ key.length;
    int i = 0;
    for (; i + 8 <= key.length; i += 8) {
      h = mix(h ^ getLong(key, i)) + GOLDEN;
    }
    long tail = 0;
    for (; i < key.length; i++) {
      tail = (tail << 8) | (key[i] & 0xFF);
    }
    return mix(h ^ tail);
  }

  private static void fill(byte[] b, int from, int to, long state) {
    long x = state;
    int i = from;
    while (i < to) {
      x += GOLDEN;
      long r = mix(x);
      for (int j = 0; j < 8 && i < to; j++, i++) {
        b[i] = (byte) (r >>> (56 - 8 * j));
      }
    }
  }

  private static void putLong(byte[] b, int at, long v) {
    for (int j = 0; j < 8; j++) {
      b[at + j] = (byte) (v >>> (56 - 8 * j));
    }
  }

  /** The big-endian 64-bit integer at {@code at} (a value's first 8 bytes: its key checksum). */
  static long getLong(byte[] b, int at) {
    long v = 0;
    for (int j = 0; j < 8; j++) {
      v = (v << 8) | (b[at + j] & 0xFF);
    }
    return v;
  }
}
