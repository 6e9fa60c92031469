package dev.talus;

import java.util.Arrays;
import java.util.Objects;

/**
 * Options of one read or iterator, as RocksJava's {@code ReadOptions}. A plain Java object: it
 * owns no native memory; {@link #close()} only marks it closed so that later use fails with
 * {@link IllegalStateException}.
 *
 * <p>Prefix seek: on a database opened with a prefix extractor ({@link
 * Options#useFixedLengthPrefixExtractor(int)}, {@link Options#useCappedPrefixExtractor(int)}),
 * an iterator's {@code seek} to a key that has a prefix is a <em>prefix seek</em> unless {@link
 * #setTotalOrderSeek(boolean) totalOrderSeek} or {@link #setAutoPrefixMode(boolean)
 * autoPrefixMode} is set: table files whose prefix Bloom filter rules the prefix out are skipped.
 * Keys of other prefixes are then not all seen, so, where RocksDB leaves the results past the
 * prefix undefined, Talus stops the iterator at the end of the prefix as soon as a table was
 * skipped (and goes on in key order when none was). With {@link
 * #setPrefixSameAsStart(boolean) prefixSameAsStart} it always stops there.
 */
public class ReadOptions extends PlainCloseable {
  static final int VERIFY_CHECKSUMS = 1;
  static final int FILL_CACHE = 2;
  static final int TOTAL_ORDER_SEEK = 4;
  static final int PREFIX_SAME_AS_START = 8;
  static final int AUTO_PREFIX_MODE = 16;
  static final int IGNORE_RANGE_DELETIONS = 32;
  static final int TAILING = 64;
  /** The read tier's byte sits at bit 8 of the flag word. */
  static final int READ_TIER_SHIFT = 8;

  private boolean verifyChecksums = true;
  private boolean fillCache = true;
  private Snapshot snapshot;
  private byte[] iterateLowerBound;
  private byte[] iterateUpperBound;
  private boolean totalOrderSeek;
  private boolean prefixSameAsStart;
  private boolean autoPrefixMode;
  private boolean ignoreRangeDeletions;
  private boolean tailing;
  private boolean asyncIo;
  private boolean pinData;
  private boolean backgroundPurgeOnIteratorCleanup;
  private ReadTier readTier = ReadTier.READ_ALL_TIER;
  private long readaheadSize;

  /** Default read options: checksums verified, blocks cached, latest state. */
  public ReadOptions() {}

  /**
   * @param verifyChecksums verify block checksums on every read (default true)
   * @param fillCache put blocks read into the block cache (default true)
   */
  public ReadOptions(boolean verifyChecksums, boolean fillCache) {
    this.verifyChecksums = verifyChecksums;
    this.fillCache = fillCache;
  }

  /**
   * A copy of {@code other} (sharing its snapshot and bounds).
   *
   * @param other options to copy; not null
   * @throws NullPointerException if {@code other} is null
   * @throws IllegalStateException if {@code other} is closed
   */
  public ReadOptions(ReadOptions other) {
    Objects.requireNonNull(other, "other");
    other.checkOpen();
    this.verifyChecksums = other.verifyChecksums;
    this.fillCache = other.fillCache;
    this.snapshot = other.snapshot;
    this.iterateLowerBound = other.iterateLowerBound;
    this.iterateUpperBound = other.iterateUpperBound;
    this.totalOrderSeek = other.totalOrderSeek;
    this.prefixSameAsStart = other.prefixSameAsStart;
    this.autoPrefixMode = other.autoPrefixMode;
    this.ignoreRangeDeletions = other.ignoreRangeDeletions;
    this.tailing = other.tailing;
    this.asyncIo = other.asyncIo;
    this.pinData = other.pinData;
    this.backgroundPurgeOnIteratorCleanup = other.backgroundPurgeOnIteratorCleanup;
    this.readTier = other.readTier;
    this.readaheadSize = other.readaheadSize;
  }

  /**
   * Verify the checksum of every block read from a table file. Default true.
   *
   * @param verifyChecksums true to verify
   * @return this
   */
  public ReadOptions setVerifyChecksums(boolean verifyChecksums) {
    checkOpen();
    this.verifyChecksums = verifyChecksums;
    return this;
  }

  /** @return whether block checksums are verified (default true) */
  public boolean verifyChecksums() {
    checkOpen();
    return verifyChecksums;
  }

  /**
   * Put blocks read by this read into the block cache. Default true; false suits one-off scans.
   *
   * @param fillCache true to cache
   * @return this
   */
  public ReadOptions setFillCache(boolean fillCache) {
    checkOpen();
    this.fillCache = fillCache;
    return this;
  }

  /** @return whether blocks read are cached (default true) */
  public boolean fillCache() {
    checkOpen();
    return fillCache;
  }

  /**
   * Read as of {@code snapshot}; {@code null} (the default) reads the latest state. A read of
   * another database than the snapshot's throws {@link IllegalArgumentException}, and a read
   * after the snapshot is released throws {@link IllegalStateException}.
   *
   * @param snapshot a snapshot from {@link TalusDB#getSnapshot()} of the database these options
   *     will read, or null
   * @return this
   */
  public ReadOptions setSnapshot(Snapshot snapshot) {
    checkOpen();
    this.snapshot = snapshot;
    return this;
  }

  /** @return the snapshot reads use, or null for the latest state */
  public Snapshot snapshot() {
    checkOpen();
    return snapshot;
  }

  /**
   * Iterators start at or after this key (inclusive); {@code null} (default) for no bound.
   *
   * @param key the lower bound, copied
   * @return this
   */
  public ReadOptions setIterateLowerBound(byte[] key) {
    checkOpen();
    this.iterateLowerBound = key == null ? null : key.clone();
    return this;
  }

  /**
   * RocksJava's form: the bound as a {@link Slice}.
   *
   * @param key the lower bound, or null
   * @return this
   */
  public ReadOptions setIterateLowerBound(Slice key) {
    return setIterateLowerBound(key == null ? null : key.data());
  }

  /** @return the lower bound as a slice, or null */
  public Slice iterateLowerBound() {
    checkOpen();
    return iterateLowerBound == null ? null : new Slice(iterateLowerBound);
  }

  /**
   * Iterators stop before this key (exclusive); {@code null} (default) for no bound.
   *
   * @param key the upper bound, copied
   * @return this
   */
  public ReadOptions setIterateUpperBound(byte[] key) {
    checkOpen();
    this.iterateUpperBound = key == null ? null : key.clone();
    return this;
  }

  /**
   * RocksJava's form: the bound as a {@link Slice}.
   *
   * @param key the upper bound, or null
   * @return this
   */
  public ReadOptions setIterateUpperBound(Slice key) {
    return setIterateUpperBound(key == null ? null : key.data());
  }

  /** @return the upper bound as a slice, or null */
  public Slice iterateUpperBound() {
    checkOpen();
    return iterateUpperBound == null ? null : new Slice(iterateUpperBound);
  }

  /**
   * Which data reads may reach. Default {@link ReadTier#READ_ALL_TIER}. With {@link
   * ReadTier#BLOCK_CACHE_TIER} a read never goes to disk: a {@code get} that would need to throws
   * {@link TalusException} with status {@code Incomplete}, and an iterator becomes invalid with
   * that status.
   *
   * @param readTier {@link ReadTier#READ_ALL_TIER} or {@link ReadTier#BLOCK_CACHE_TIER}
   * @return this
   * @throws UnsupportedOperationException for {@link ReadTier#PERSISTED_TIER} and {@link
   *     ReadTier#MEMTABLE_TIER}, which Talus does not implement
   */
  public ReadOptions setReadTier(ReadTier readTier) {
    checkOpen();
    Objects.requireNonNull(readTier, "readTier");
    if (readTier != ReadTier.READ_ALL_TIER && readTier != ReadTier.BLOCK_CACHE_TIER) {
      throw new UnsupportedOperationException("setReadTier(" + readTier
          + "): Talus implements READ_ALL_TIER and BLOCK_CACHE_TIER only");
    }
    this.readTier = readTier;
    return this;
  }

  /** @return the read tier (default {@link ReadTier#READ_ALL_TIER}) */
  public ReadTier readTier() {
    checkOpen();
    return readTier;
  }

  /**
   * Bytes an iterator reads beyond a data block it misses in the block cache, in one read, so that
   * the blocks after it need no read of their own. Default 0: automatic readahead, as RocksDB's
   * with its defaults (from the third data block in a row, 8 KiB doubling to 256 KiB; reverse
   * scans too). A positive size reads that many bytes beyond every block missed, from the first,
   * in the direction the iterator moves; Talus reads at most 64 MiB beyond a block (larger values
   * are accepted and read 64 MiB). Affects iterators only.
   *
   * @param readaheadSize bytes, 0 for automatic readahead; not negative
   * @return this
   * @throws IllegalArgumentException if {@code readaheadSize} is negative
   */
  public ReadOptions setReadaheadSize(long readaheadSize) {
    checkOpen();
    if (readaheadSize < 0) {
      throw new IllegalArgumentException("readaheadSize must not be negative: " + readaheadSize);
    }
    this.readaheadSize = readaheadSize;
    return this;
  }

  /** @return the iterators' readahead in bytes, 0 for automatic (default 0) */
  public long readaheadSize() {
    checkOpen();
    return readaheadSize;
  }

  /**
   * With a prefix extractor: iterators seek in total order, never skipping a table by its prefix
   * filter (see the class docs). Default false. Without a prefix extractor every seek is in total
   * order anyway.
   *
   * @param totalOrderSeek true for total-order seeks
   * @return this
   */
  public ReadOptions setTotalOrderSeek(boolean totalOrderSeek) {
    checkOpen();
    this.totalOrderSeek = totalOrderSeek;
    return this;
  }

  /** @return whether seeks are in total order (default false) */
  public boolean totalOrderSeek() {
    checkOpen();
    return totalOrderSeek;
  }

  /**
   * With a prefix extractor: after a {@code seek} (or {@code seekForPrev}) to a key that has a
   * prefix, the iterator stops at the end of that prefix; after {@code seekToFirst} or {@code
   * seekToLast}, at the end of the first key's prefix (after {@code seekToLast} with an upper
   * bound, of the bound's prefix, as in RocksDB). Default false. No effect without a prefix
   * extractor.
   *
   * @param prefixSameAsStart true to stay within the seek key's prefix
   * @return this
   */
  public ReadOptions setPrefixSameAsStart(boolean prefixSameAsStart) {
    checkOpen();
    this.prefixSameAsStart = prefixSameAsStart;
    return this;
  }

  /** @return whether iterators stay within the seek key's prefix (default false) */
  public boolean prefixSameAsStart() {
    checkOpen();
    return prefixSameAsStart;
  }

  /**
   * With a prefix extractor: seeks give the results of a total-order seek, and use the prefix
   * filters only where that cannot change them — when the seek key and {@link
   * #setIterateUpperBound(byte[]) iterateUpperBound} have the same prefix (or, with a fixed-length
   * extractor, the bound is the prefix's immediate successor, e.g. {@code "ab"} and {@code "ac"}).
   * Default false.
   *
   * @param autoPrefixMode true for automatic prefix mode
   * @return this
   */
  public ReadOptions setAutoPrefixMode(boolean autoPrefixMode) {
    checkOpen();
    this.autoPrefixMode = autoPrefixMode;
    return this;
  }

  /** @return whether automatic prefix mode is on (default false) */
  public boolean autoPrefixMode() {
    checkOpen();
    return autoPrefixMode;
  }

  /**
   * Reads do not apply range deletions: keys a {@code deleteRange} covers stay visible until
   * compaction drops them. Default false. Deprecated in RocksJava, honoured by Talus.
   *
   * @param ignoreRangeDeletions true to ignore range deletions
   * @return this
   */
  public ReadOptions setIgnoreRangeDeletions(boolean ignoreRangeDeletions) {
    checkOpen();
    this.ignoreRangeDeletions = ignoreRangeDeletions;
    return this;
  }

  /** @return whether range deletions are ignored (default false) */
  public boolean ignoreRangeDeletions() {
    checkOpen();
    return ignoreRangeDeletions;
  }

  /**
   * A tailing iterator: each {@code seek} and {@code seekToFirst} reads the latest state, so the
   * iterator sees writes made after it was created (the snapshot, if set, is not used). It moves
   * forward only: {@code prev}, {@code seekToLast} and {@code seekForPrev} make it invalid with
   * status {@code NotSupported} (as RocksDB's), until the next forward seek. Default false.
   *
   * @param tailing true for a tailing iterator
   * @return this
   */
  public ReadOptions setTailing(boolean tailing) {
    checkOpen();
    this.tailing = tailing;
    return this;
  }

  /** @return whether iterators are tailing (default false) */
  public boolean tailing() {
    checkOpen();
    return tailing;
  }

  /**
   * RocksDB: read data blocks asynchronously. Accepted, and without effect: Talus reads
   * synchronously (the results are the same). Default false.
   *
   * @param asyncIo the value to remember
   * @return this
   */
  public ReadOptions setAsyncIo(boolean asyncIo) {
    checkOpen();
    this.asyncIo = asyncIo;
    return this;
  }

  /** @return the value set by {@link #setAsyncIo(boolean)} (default false) */
  public boolean asyncIo() {
    checkOpen();
    return asyncIo;
  }

  /**
   * RocksDB: keep the blocks of an iterator's entries pinned so that their keys stay valid while
   * the iterator lives. Talus honours it always: {@link TalusIterator#key()} and {@link
   * TalusIterator#value()} return copies, valid forever. Default false.
   *
   * @param pinData the value to remember
   * @return this
   */
  public ReadOptions setPinData(boolean pinData) {
    checkOpen();
    this.pinData = pinData;
    return this;
  }

  /** @return the value set by {@link #setPinData(boolean)} (default false) */
  public boolean pinData() {
    checkOpen();
    return pinData;
  }

  /**
   * RocksDB: delete the files an iterator kept alive on a background thread when it is closed.
   * Talus always does (closing an iterator never deletes files on the calling thread). Default
   * false.
   *
   * @param backgroundPurgeOnIteratorCleanup the value to remember
   * @return this
   */
  public ReadOptions setBackgroundPurgeOnIteratorCleanup(
      boolean backgroundPurgeOnIteratorCleanup) {
    checkOpen();
    this.backgroundPurgeOnIteratorCleanup = backgroundPurgeOnIteratorCleanup;
    return this;
  }

  /** @return the value set by {@link #setBackgroundPurgeOnIteratorCleanup(boolean)} */
  public boolean backgroundPurgeOnIteratorCleanup() {
    checkOpen();
    return backgroundPurgeOnIteratorCleanup;
  }

  byte[] lowerBound() {
    return iterateLowerBound;
  }

  byte[] upperBound() {
    return iterateUpperBound;
  }

  int flags() {
    checkOpen();
    return (verifyChecksums ? VERIFY_CHECKSUMS : 0)
        | (fillCache ? FILL_CACHE : 0)
        | (totalOrderSeek ? TOTAL_ORDER_SEEK : 0)
        | (prefixSameAsStart ? PREFIX_SAME_AS_START : 0)
        | (autoPrefixMode ? AUTO_PREFIX_MODE : 0)
        | (ignoreRangeDeletions ? IGNORE_RANGE_DELETIONS : 0)
        | (tailing ? TAILING : 0)
        | (readTier.getValue() << READ_TIER_SHIFT);
  }


  @Override
  public String toString() {
    return "ReadOptions{verifyChecksums=" + verifyChecksums + ", fillCache=" + fillCache
        + ", snapshot=" + snapshot + ", lower=" + Arrays.toString(iterateLowerBound)
        + ", upper=" + Arrays.toString(iterateUpperBound) + ", readTier=" + readTier
        + ", totalOrderSeek=" + totalOrderSeek + ", prefixSameAsStart=" + prefixSameAsStart
        + ", autoPrefixMode=" + autoPrefixMode + ", ignoreRangeDeletions="
        + ignoreRangeDeletions + ", tailing=" + tailing + ", readaheadSize=" + readaheadSize
        + "}";
  }
}
