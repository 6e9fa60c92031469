package dev.talus;

/**
 * Codec parameters, as RocksJava's {@code CompressionOptions}, with its names and defaults. Set on
 * {@link Options#setCompressionOptions(CompressionOptions)} (every level) or {@link
 * Options#setBottommostCompressionOptions(CompressionOptions)} (the bottommost level, when {@link
 * #enabled()}); the options copy the values when set, so later changes to this object do not
 * affect them.
 *
 * <p>What Talus does with each value:
 *
 * <ul>
 *   <li>{@link #setLevel(int)}: the ZSTD level. LZ4 and Snappy have no levels and ignore it.
 *   <li>{@link #setMaxDictBytes(int)} and {@link #setZStdMaxTrainBytes(int)}: dictionary
 *       compression for ZSTD tables. The dictionary is made from the first data blocks of each
 *       table and stored in the table. Other codecs ignore them, as RocksDB's Snappy does (RocksDB
 *       also uses dictionaries with LZ4 and zlib; Talus does not).
 *   <li>{@link #setWindowBits(int)} and {@link #setStrategy(int)}: zlib's parameters. zlib is not
 *       implemented, so they have no effect, as for RocksDB's other codecs.
 *   <li>{@link #setEnabled(boolean)}: for the bottommost options only.
 * </ul>
 *
 * <p>A plain Java object: {@link #close()} marks it closed; later use throws {@link
 * IllegalStateException}. Not thread-safe: configure it on one thread.
 */
public class CompressionOptions extends PlainCloseable {
  /** RocksDB's {@code kDefaultCompressionLevel}: each codec's own default level. */
  public static final int DEFAULT_COMPRESSION_LEVEL = 32767;

  private int windowBits = -14;
  private int level = DEFAULT_COMPRESSION_LEVEL;
  private int strategy;
  private int maxDictBytes;
  private int zstdMaxTrainBytes;
  private boolean enabled;

  /** Compression options with RocksDB's defaults. */
  public CompressionOptions() {}

  /** A copy of {@code other} (open or not). */
  CompressionOptions(CompressionOptions other) {
    this.windowBits = other.windowBits;
    this.level = other.level;
    this.strategy = other.strategy;
    this.maxDictBytes = other.maxDictBytes;
    this.zstdMaxTrainBytes = other.zstdMaxTrainBytes;
    this.enabled = other.enabled;
  }

  /**
   * zlib's window bits. Default -14. No effect in Talus (zlib is not implemented).
   *
   * @param windowBits the window bits
   * @return this
   */
  public CompressionOptions setWindowBits(int windowBits) {
    checkOpen();
    this.windowBits = windowBits;
    return this;
  }

  /** @return zlib's window bits (default -14) */
  public int windowBits() {
    checkOpen();
    return windowBits;
  }

  /**
   * The codec level: for ZSTD, its level (1 to 22, or negative for its fast levels; above 22
   * counts as 22). Default {@link #DEFAULT_COMPRESSION_LEVEL}, ZSTD's default level 3. LZ4 and
   * Snappy ignore it.
   *
   * @param level the level
   * @return this
   */
  public CompressionOptions setLevel(int level) {
    checkOpen();
    this.level = level;
    return this;
  }

  /** @return the codec level (default {@link #DEFAULT_COMPRESSION_LEVEL}) */
  public int level() {
    checkOpen();
    return level;
  }

  /**
   * zlib's strategy. Default 0. No effect in Talus (zlib is not implemented).
   *
   * @param strategy the strategy
   * @return this
   */
  public CompressionOptions setStrategy(int strategy) {
    checkOpen();
    this.strategy = strategy;
    return this;
  }

  /** @return zlib's strategy (default 0) */
  public int strategy() {
    checkOpen();
    return strategy;
  }

  /**
   * Largest compression dictionary, in bytes; 0 (the default) turns dictionaries off. With ZSTD,
   * each table's first data blocks (up to {@link #zstdMaxTrainBytes()} bytes, or this many when
   * that is 0) are held back, a dictionary is made from them and every ZSTD block of the table is
   * compressed with it. Held-back blocks are kept in memory while the table is written.
   *
   * @param maxDictBytes bytes; a negative value is the unsigned 32-bit number of the same bits
   * @return this
   */
  public CompressionOptions setMaxDictBytes(int maxDictBytes) {
    checkOpen();
    this.maxDictBytes = maxDictBytes;
    return this;
  }

  /** @return the largest dictionary in bytes (default 0: none) */
  public int maxDictBytes() {
    checkOpen();
    return maxDictBytes;
  }

  /**
   * Bytes of samples ZSTD's dictionary trainer reads; 0 (the default) uses the samples themselves
   * (their first {@link #maxDictBytes()} bytes) as the dictionary. The trainer wants about 100
   * times the dictionary size.
   *
   * @param zstdMaxTrainBytes bytes; a negative value is the unsigned 32-bit number of the same bits
   * @return this
   */
  public CompressionOptions setZStdMaxTrainBytes(int zstdMaxTrainBytes) {
    checkOpen();
    this.zstdMaxTrainBytes = zstdMaxTrainBytes;
    return this;
  }

  /** @return the bytes the dictionary trainer reads (default 0: no training) */
  public int zstdMaxTrainBytes() {
    checkOpen();
    return zstdMaxTrainBytes;
  }

  /**
   * For {@link Options#setBottommostCompressionOptions(CompressionOptions)}: whether these options
   * replace {@link Options#compressionOptions()} at the bottommost level. Default false. Ignored
   * in {@link Options#setCompressionOptions(CompressionOptions)}.
   *
   * @param enabled whether enabled
   * @return this
   */
  public CompressionOptions setEnabled(boolean enabled) {
    checkOpen();
    this.enabled = enabled;
    return this;
  }

  /** @return whether enabled (default false) */
  public boolean enabled() {
    checkOpen();
    return enabled;
  }

  /** Appends {@code prefix.field=value} lines for the engine. */
  void appendTo(StringBuilder b, String prefix) {
    Options.put(b, prefix + ".window_bits", windowBits);
    Options.put(b, prefix + ".level", level);
    Options.put(b, prefix + ".strategy", strategy);
    Options.put(b, prefix + ".max_dict_bytes", maxDictBytes);
    Options.put(b, prefix + ".zstd_max_train_bytes", zstdMaxTrainBytes);
    Options.put(b, prefix + ".enabled", enabled);
  }
}
