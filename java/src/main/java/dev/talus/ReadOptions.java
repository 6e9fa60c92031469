package dev.talus;

import java.util.Arrays;
import java.util.Objects;

/**
 * Options of one read or iterator, as RocksJava's {@code ReadOptions}. A plain Java object: it
 * owns no native memory; {@link #close()} only marks it closed so that later use fails with
 * {@link IllegalStateException}.
 */
public class ReadOptions extends PlainCloseable {
  static final int VERIFY_CHECKSUMS = 1;
  static final int FILL_CACHE = 2;

  private boolean verifyChecksums = true;
  private boolean fillCache = true;
  private Snapshot snapshot;
  private byte[] iterateLowerBound;
  private byte[] iterateUpperBound;

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

  byte[] lowerBound() {
    return iterateLowerBound;
  }

  byte[] upperBound() {
    return iterateUpperBound;
  }

  int flags() {
    checkOpen();
    return (verifyChecksums ? VERIFY_CHECKSUMS : 0) | (fillCache ? FILL_CACHE : 0);
  }


  @Override
  public String toString() {
    return "ReadOptions{verifyChecksums=" + verifyChecksums + ", fillCache=" + fillCache
        + ", snapshot=" + snapshot + ", lower=" + Arrays.toString(iterateLowerBound)
        + ", upper=" + Arrays.toString(iterateUpperBound) + "}";
  }
}
