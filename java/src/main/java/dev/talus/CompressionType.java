package dev.talus;

/**
 * Block compression, with RocksJava's byte values (stored in each block of a table). Talus
 * implements {@link #NO_COMPRESSION}, {@link #SNAPPY_COMPRESSION}, {@link #LZ4_COMPRESSION} (the
 * default) and {@link #ZSTD_COMPRESSION}; the options accept every value, as RocksJava's do, and
 * {@code open} refuses the others with {@link TalusException} {@code NotSupported} naming the
 * codec. Reading a table block written with a codec this build lacks fails the same way.
 */
public enum CompressionType {
  /** No compression. */
  NO_COMPRESSION((byte) 0x0, null),
  /** Snappy (raw format). */
  SNAPPY_COMPRESSION((byte) 0x1, "snappy"),
  /** zlib: not implemented by Talus (open fails with {@code NotSupported}). */
  ZLIB_COMPRESSION((byte) 0x2, "z"),
  /** bzip2: not implemented by Talus (open fails with {@code NotSupported}). */
  BZLIB2_COMPRESSION((byte) 0x3, "bzip2"),
  /** LZ4 block compression (Talus's default). */
  LZ4_COMPRESSION((byte) 0x4, "lz4"),
  /** LZ4HC: not implemented by Talus (open fails with {@code NotSupported}). */
  LZ4HC_COMPRESSION((byte) 0x5, "lz4hc"),
  /** Xpress: not implemented by Talus (open fails with {@code NotSupported}). */
  XPRESS_COMPRESSION((byte) 0x6, "xpress"),
  /**
   * Zstandard, with levels and dictionary compression ({@link CompressionOptions}); the usual
   * choice for the bottommost level.
   */
  ZSTD_COMPRESSION((byte) 0x7, "zstd"),
  /** "Same as the general compression type", for bottommost compression. */
  DISABLE_COMPRESSION_OPTION((byte) 0x7F, null);

  private final byte value;
  private final String libraryName;

  CompressionType(byte value, String libraryName) {
    this.value = value;
    this.libraryName = libraryName;
  }

  /** @return RocksJava's byte value */
  public byte getValue() {
    return value;
  }

  /** @return the codec library name, or null */
  public String getLibraryName() {
    return libraryName;
  }

  /**
   * @param value a byte from {@link #getValue()}
   * @return the matching type
   * @throws IllegalArgumentException for an unknown byte
   */
  public static CompressionType getCompressionType(byte value) {
    for (CompressionType t : values()) {
      if (t.value == value) {
        return t;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for CompressionType: " + value);
  }

  /**
   * @param libraryName a codec library name ({@code "lz4"}, ...), or null for none
   * @return the matching type, {@link #NO_COMPRESSION} when not found
   */
  public static CompressionType getCompressionType(String libraryName) {
    if (libraryName != null) {
      for (CompressionType t : values()) {
        if (libraryName.equals(t.libraryName)) {
          return t;
        }
      }
    }
    return NO_COMPRESSION;
  }
}
