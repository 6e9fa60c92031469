package dev.talus;

/**
 * A sharded LRU block cache, as RocksJava's {@code LRUCache}. Each shard has its own lock; an
 * entry's charge is the memory of its block. Blocks pinned by readers are never evicted; with a
 * strict capacity limit, blocks that do not fit are simply not cached.
 *
 * <p>Unlike RocksDB's, the order is the CLOCK approximation of LRU: a hit marks its block used
 * instead of moving it to the front of the list (a hit then writes one entry, not three), and
 * eviction moves a used block met at the cold end back to the front, clearing the mark. A block
 * used since it last reached the cold end survives one more pass of the list, so the blocks
 * evicted are those unused for the longest in that approximate sense.
 */
public class LRUCache extends Cache {
  /**
   * @param capacity capacity in bytes
   */
  public LRUCache(long capacity) {
    this(capacity, -1, false, 0.0);
  }

  /**
   * @param capacity capacity in bytes
   * @param numShardBits log2 of the shard count; -1 (default) = automatic (shards of at least
   *     512 KiB, at most 64)
   */
  public LRUCache(long capacity, int numShardBits) {
    this(capacity, numShardBits, false, 0.0);
  }

  /**
   * @param capacity capacity in bytes
   * @param numShardBits log2 of the shard count, -1 = automatic
   * @param strictCapacityLimit refuse to exceed the capacity (blocks that do not fit are read
   *     without caching)
   */
  public LRUCache(long capacity, int numShardBits, boolean strictCapacityLimit) {
    this(capacity, numShardBits, strictCapacityLimit, 0.0);
  }

  /**
   * @param capacity capacity in bytes
   * @param numShardBits log2 of the shard count, -1 = automatic
   * @param strictCapacityLimit refuse to exceed the capacity
   * @param highPriPoolRatio share of the capacity reserved for high-priority blocks (index and
   *     filter blocks), in [0, 1]; RocksJava's default for this constructor chain is 0.0
   */
  public LRUCache(long capacity, int numShardBits, boolean strictCapacityLimit,
      double highPriPoolRatio) {
    super(capacity, numShardBits, strictCapacityLimit, highPriPoolRatio);
  }

  /**
   * RocksJava's five-argument form.
   *
   * @param capacity capacity in bytes
   * @param numShardBits log2 of the shard count, -1 = automatic
   * @param strictCapacityLimit refuse to exceed the capacity
   * @param highPriPoolRatio share reserved for high-priority blocks
   * @param lowPriPoolRatio must be 0.0: Talus has no separate low-priority pool
   * @throws UnsupportedOperationException for a non-zero low-priority pool
   */
  public LRUCache(long capacity, int numShardBits, boolean strictCapacityLimit,
      double highPriPoolRatio, double lowPriPoolRatio) {
    super(capacity, numShardBits, strictCapacityLimit, checkLow(highPriPoolRatio, lowPriPoolRatio));
  }

  private static double checkLow(double high, double low) {
    if (low != 0.0) {
      throw new UnsupportedOperationException(
          "LRUCache lowPriPoolRatio: Talus has no separate low-priority pool (use 0.0)");
    }
    return high;
  }
}
