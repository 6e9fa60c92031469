package dev.talus;

import java.util.Objects;

/**
 * Settings of Talus's block-based table format, as RocksJava's {@code BlockBasedTableConfig}.
 * Plain Java fields, handed to the engine at open with {@link
 * Options#setTableFormatConfig(TableFormatConfig)}. Defaults are RocksJava's.
 */
public class BlockBasedTableConfig extends TableFormatConfig {
  private Cache blockCache;
  private boolean noBlockCache;
  private long blockCacheSize = 8L << 20;
  private long blockSize = 4096;
  private int blockRestartInterval = 16;
  private int blockSizeDeviation = 10;
  private Filter filterPolicy;
  private boolean wholeKeyFiltering = true;
  private boolean cacheIndexAndFilterBlocks;
  private boolean pinL0FilterAndIndexBlocksInCache;

  /**
   * Default settings: 4 KiB blocks, no filter, an 8 MiB LRU block cache per column family using
   * this config (RocksDB's table factory per family).
   */
  public BlockBasedTableConfig() {}

  /**
   * The block cache to read through, shareable between column families and databases: every
   * family whose config names the same object reads through the one cache. Without one (and
   * without {@link #setNoBlockCache(boolean)}) each column family creates an LRU cache of {@link
   * #blockCacheSize()} bytes (8 MiB by default, RocksJava's default).
   *
   * @param cache the cache
   * @return this
   */
  public BlockBasedTableConfig setBlockCache(Cache cache) {
    this.blockCache = Objects.requireNonNull(cache, "cache");
    return this;
  }

  /**
   * Read without any block cache. Default false.
   *
   * @param noBlockCache true for no cache
   * @return this
   */
  public BlockBasedTableConfig setNoBlockCache(boolean noBlockCache) {
    this.noBlockCache = noBlockCache;
    return this;
  }

  /** @return whether no block cache is used */
  public boolean noBlockCache() {
    return noBlockCache;
  }

  /**
   * Deprecated in RocksJava: capacity of the cache a column family (the default family of a
   * database opened without families) creates for itself when none is set. Default 8 MiB.
   *
   * @param blockCacheSize bytes
   * @return this
   */
  public BlockBasedTableConfig setBlockCacheSize(long blockCacheSize) {
    if (blockCacheSize < 0) {
      throw new IllegalArgumentException("blockCacheSize must not be negative");
    }
    this.blockCacheSize = blockCacheSize;
    return this;
  }

  /** @return the capacity of the cache a column family creates for itself, in bytes */
  public long blockCacheSize() {
    return blockCacheSize;
  }

  /**
   * Target uncompressed size of a data block. Default 4096 bytes; 0 puts each entry in a block of
   * its own, as in RocksDB. Open refuses more than 1 GiB with {@code InvalidArgument} (RocksDB
   * refuses more than 4 GiB − 1; a negative value is a huge unsigned one).
   *
   * @param blockSize bytes
   * @return this
   */
  public BlockBasedTableConfig setBlockSize(long blockSize) {
    this.blockSize = blockSize;
    return this;
  }

  /** @return the block size in bytes (default 4096) */
  public long blockSize() {
    return blockSize;
  }

  /**
   * Entries between full keys (restart points) in a data block. Default 16; as in RocksDB, open
   * raises values below 1 to 1.
   *
   * @param interval the restart interval
   * @return this
   */
  public BlockBasedTableConfig setBlockRestartInterval(int interval) {
    this.blockRestartInterval = interval;
    return this;
  }

  /** @return the restart interval (default 16) */
  public int blockRestartInterval() {
    return blockRestartInterval;
  }

  /**
   * How far short of {@link #setBlockSize block size} a data block may end, in percent of it: a
   * block more than {@code 100 - blockSizeDeviation} percent full is closed before an entry that
   * would take it past the block size. Default 10; 0 closes a block only once it reaches the block
   * size. As in RocksDB, any int is accepted and open takes a value outside 0 to 100 as 0.
   *
   * @param blockSizeDeviation percent of the block size
   * @return this
   */
  public BlockBasedTableConfig setBlockSizeDeviation(int blockSizeDeviation) {
    this.blockSizeDeviation = blockSizeDeviation;
    return this;
  }

  /** @return the block size deviation in percent (default 10) */
  public int blockSizeDeviation() {
    return blockSizeDeviation;
  }

  /**
   * The filter built into each table; {@code null} (the default) builds none.
   *
   * @param filter e.g. {@code new BloomFilter(10, false)}
   * @return this
   */
  public BlockBasedTableConfig setFilterPolicy(Filter filter) {
    this.filterPolicy = filter;
    return this;
  }

  /** @return the filter policy, or null */
  public Filter filterPolicy() {
    return filterPolicy;
  }

  /**
   * Deprecated RocksJava alias of {@link #setFilterPolicy(Filter)}.
   *
   * @param filter the filter
   * @return this
   */
  public BlockBasedTableConfig setFilter(Filter filter) {
    return setFilterPolicy(filter);
  }

  /**
   * Put whole user keys into the filter. Default true. With a prefix extractor ({@link
   * Options#useFixedLengthPrefixExtractor(int)}) the filter holds the keys' prefixes too, and
   * false leaves only the prefixes (smaller filters; point lookups then probe the key's prefix).
   * Without an extractor, false builds no filter.
   *
   * @param wholeKeyFiltering true to filter on whole keys
   * @return this
   */
  public BlockBasedTableConfig setWholeKeyFiltering(boolean wholeKeyFiltering) {
    this.wholeKeyFiltering = wholeKeyFiltering;
    return this;
  }

  /** @return whether whole keys are filtered (default true) */
  public boolean wholeKeyFiltering() {
    return wholeKeyFiltering;
  }

  /**
   * Alias of {@link #setWholeKeyFiltering(boolean)}, a spelling some importers use.
   *
   * @param flag true to filter on whole keys
   * @return this
   */
  public BlockBasedTableConfig setUseBloomFilterWithWholeKey(boolean flag) {
    return setWholeKeyFiltering(flag);
  }

  /**
   * Keep index and filter blocks in the block cache (high priority) instead of in each table
   * reader. Default false.
   *
   * @param flag true to cache them
   * @return this
   */
  public BlockBasedTableConfig setCacheIndexAndFilterBlocks(boolean flag) {
    this.cacheIndexAndFilterBlocks = flag;
    return this;
  }

  /** @return whether index and filter blocks live in the block cache (default false) */
  public boolean cacheIndexAndFilterBlocks() {
    return cacheIndexAndFilterBlocks;
  }

  /**
   * With {@link #setCacheIndexAndFilterBlocks(boolean)}, keep L0 tables' index and filter
   * blocks pinned in the cache. Default false.
   *
   * @param flag true to pin them
   * @return this
   */
  public BlockBasedTableConfig setPinL0FilterAndIndexBlocksInCache(boolean flag) {
    this.pinL0FilterAndIndexBlocksInCache = flag;
    return this;
  }

  /** @return whether L0 index and filter blocks are pinned (default false) */
  public boolean pinL0FilterAndIndexBlocksInCache() {
    return pinL0FilterAndIndexBlocksInCache;
  }

  @Override
  void appendTo(StringBuilder b) {
    Options.put(b, "table.block_size", blockSize);
    Options.put(b, "table.block_restart_interval", blockRestartInterval);
    Options.put(b, "table.block_size_deviation", blockSizeDeviation);
    Options.put(b, "table.filter_bits_per_key", filterPolicy == null ? 0.0 : filterPolicy.bitsPerKey());
    Options.put(b, "table.whole_key_filtering", wholeKeyFiltering);
    Options.put(b, "table.cache_index_and_filter_blocks", cacheIndexAndFilterBlocks);
    Options.put(b, "table.pin_l0_filter_and_index_blocks_in_cache", pinL0FilterAndIndexBlocksInCache);
    Options.put(b, "table.no_block_cache", noBlockCache);
    Options.put(b, "table.block_cache_size", blockCacheSize);
  }

  @Override
  Cache sharedCache() {
    return noBlockCache ? null : blockCache;
  }
}
