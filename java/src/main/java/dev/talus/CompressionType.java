package dev.talus;

/**
 * Block compression, with RocksJava's byte values. Talus implements {@link #NO_COMPRESSION} and
 * {@link #LZ4_COMPRESSION} (the default); choosing another codec fails at {@code open} with
 * {@code NotSupported}.
 */
public enum CompressionType {
  /** No compression. */
  NO_COMPRESSION((byte) 0x0, null),
  /** Snappy: not implemented by Talus. */
  SNAPPY_COMPRESSION((byte) 0x1, "snappy"),
  /** zlib: not implemented by Talus. */
  ZLIB_COMPRESSION((byte) 0x2, "z"),
  /** bzip2: not implemented by Talus. */
  BZLIB2_COMPRESSION((byte) 0x3, "bzip2"),
  /** LZ4 block compression (Talus's default). */
  LZ4_COMPRESSION((byte) 0x4, "lz4"),
  /** LZ4HC: not implemented by Talus. */
  LZ4HC_COMPRESSION((byte) 0x5, "lz4hc"),
  /** Xpress: not implemented by Talus. */
  XPRESS_COMPRESSION((byte) 0x6, "xpress"),
  /** Zstandard: not implemented by Talus. */
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
