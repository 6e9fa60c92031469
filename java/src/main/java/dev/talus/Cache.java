package dev.talus;

/**
 * A block cache shareable between databases. In RocksJava {@code Cache} is abstract; Talus makes
 * it concrete so that {@code new Cache(capacity)} (as some importers write it) builds
 *  an LRU cache, exactly as {@code new LRUCache(capacity)} does.
 *
 * <p>Pass it with {@link BlockBasedTableConfig#setBlockCache(Cache)}. Each database using the
 * cache holds its own reference, so closing this object while databases still use the cache is
 * safe: the memory goes when the last user does.
 */
public class Cache extends SharedNativeHandle {
  /**
   * An LRU cache of {@code capacity} bytes with automatic sharding, no strict limit and half
   * the capacity reserved for high-priority (index and filter) blocks.
   *
   * @param capacity capacity in bytes
   */
  public Cache(long capacity) {
    this(capacity, -1, false, 0.5);
  }

  Cache(long capacity, int numShardBits, boolean strictCapacityLimit, double highPriPoolRatio) {
    super(create(capacity, numShardBits, strictCapacityLimit, highPriPoolRatio));
  }

  private static long create(long capacity, int numShardBits, boolean strict, double ratio) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must not be negative, got " + capacity);
    }
    if (numShardBits < -1 || numShardBits >= 20) {
      throw new IllegalArgumentException("numShardBits must be in -1..19, got " + numShardBits);
    }
    if (!(ratio >= 0.0 && ratio <= 1.0)) {
      throw new IllegalArgumentException("highPriPoolRatio must be in [0, 1], got " + ratio);
    }
    NativeLibrary.load();
    try {
      return nativeNewLruCache(capacity, numShardBits, strict, ratio);
    } catch (TalusException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** @return bytes of blocks in the cache */
  public long getUsage() {
    return get(0);
  }

  /** @return bytes of cached blocks in use by readers (not evictable now) */
  public long getPinnedUsage() {
    return get(1);
  }

  /** @return the capacity in bytes */
  public long getCapacity() {
    return get(2);
  }

  /**
   * Changes the capacity, evicting blocks when it shrinks.
   *
   * @param capacity new capacity in bytes
   */
  public void setCapacity(long capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must not be negative, got " + capacity);
    }
    long h = acquire();
    try {
      nativeSetCapacity(h, capacity);
    } catch (TalusException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    } finally {
      release();
    }
  }

  private long get(int what) {
    long h = acquire();
    try {
      return nativeGet(h, what);
    } catch (TalusException e) {
      throw new IllegalStateException(e.getMessage(), e);
    } finally {
      release();
    }
  }

  @Override
  protected void disposeInternal(long handle) {
    try {
      nativeDispose(handle);
    } catch (TalusException e) {
      throw new IllegalStateException(e);
    }
  }

  private static native long nativeNewLruCache(long capacity, int numShardBits, boolean strict,
      double highPriPoolRatio) throws TalusException;

  private static native long nativeGet(long h, int what) throws TalusException;

  private static native void nativeSetCapacity(long h, long capacity) throws TalusException;

  private static native void nativeDispose(long h) throws TalusException;
}
