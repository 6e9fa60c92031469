package dev.talus;

/**
 * The histograms {@link Statistics} keeps, with RocksJava's constant names for what Talus records.
 *
 * <p>Values are microseconds unless the name says otherwise ({@code _NANOS}: nanoseconds; {@code
 * BYTES_PER_*}: bytes; {@link #NUM_FILES_IN_SINGLE_COMPACTION}, {@link #READ_NUM_MERGE_OPERANDS}:
 * counts). The byte values are Talus's own stable mapping (RocksJava's bytes differ): new
 * constants are only ever appended. Read them with {@link
 * Statistics#getHistogramData(HistogramType)}.
 */
public enum HistogramType {
  /** Get latency, microseconds. Native name {@code rocksdb.db.get.micros}. */
  DB_GET((byte) 0x00),

  /**
   * Write (put/delete/batch) latency, microseconds. Native name {@code rocksdb.db.write.micros}.
   */
  DB_WRITE((byte) 0x01),

  /** Iterator seek latency, microseconds. Native name {@code rocksdb.db.seek.micros}. */
  DB_SEEK((byte) 0x02),

  /** MultiGet latency, microseconds. Native name {@code rocksdb.db.multiget.micros}. */
  DB_MULTIGET((byte) 0x03),

  /** Flush job duration, microseconds. Native name {@code rocksdb.db.flush.micros}. */
  FLUSH_TIME((byte) 0x04),

  /** Compaction job duration, microseconds. Native name {@code rocksdb.compaction.times.micros}. */
  COMPACTION_TIME((byte) 0x05),

  /**
   * Time one write spent in a write stall, microseconds. Native name {@code
   * rocksdb.db.write.stall}.
   */
  WRITE_STALL((byte) 0x06),

  /** Table file read latency, microseconds. Native name {@code rocksdb.sst.read.micros}. */
  SST_READ_MICROS((byte) 0x07),

  /** Table file write latency, microseconds. Native name {@code rocksdb.sst.write.micros}. */
  SST_WRITE_MICROS((byte) 0x08),

  /** WAL sync latency, microseconds. Native name {@code rocksdb.wal.file.sync.micros}. */
  WAL_FILE_SYNC_MICROS((byte) 0x09),

  /** Table file sync latency, microseconds. Native name {@code rocksdb.table.sync.micros}. */
  TABLE_SYNC_MICROS((byte) 0x0A),

  /** MANIFEST sync latency, microseconds. Native name {@code rocksdb.manifest.file.sync.micros}. */
  MANIFEST_FILE_SYNC_MICROS((byte) 0x0B),

  /** Value bytes returned per Get. Native name {@code rocksdb.bytes.per.read}. */
  BYTES_PER_READ((byte) 0x0C),

  /** Bytes per write batch. Native name {@code rocksdb.bytes.per.write}. */
  BYTES_PER_WRITE((byte) 0x0D),

  /**
   * Time to compress one block, ns (stats level EXCEPT_TIME_FOR_MUTEX or higher). Native name
   * {@code rocksdb.compression.times.nanos}.
   */
  COMPRESSION_TIMES_NANOS((byte) 0x0E),

  /**
   * Time to decompress one block, ns (stats level EXCEPT_TIME_FOR_MUTEX or higher). Native name
   * {@code rocksdb.decompression.times.nanos}.
   */
  DECOMPRESSION_TIMES_NANOS((byte) 0x0F),

  /** Input files per compaction. Native name {@code rocksdb.numfiles.in.singlecompaction}. */
  NUM_FILES_IN_SINGLE_COMPACTION((byte) 0x10),

  /**
   * Merge operands a get merged, per get that merged any (a count). Native name {@code
   * rocksdb.read.num.merge_operands}.
   */
  READ_NUM_MERGE_OPERANDS((byte) 0x11);

  private final byte value;

  HistogramType(final byte value) {
    this.value = value;
  }

  /**
   * Returns the byte value that identifies this constant across JNI.
   *
   * @return Talus's byte value (not RocksJava's)
   */
  public byte getValue() {
    return value;
  }

  /**
   * Returns the constant with byte value {@code value}.
   *
   * @param value a byte value from {@link #getValue()}
   * @return the HistogramType with that value
   * @throws IllegalArgumentException if no constant has that value
   */
  public static HistogramType getHistogramType(final byte value) {
    for (final HistogramType t : HistogramType.values()) {
      if (t.value == value) {
        return t;
      }
    }
    throw new IllegalArgumentException("Illegal value provided for HistogramType: " + value);
  }
}
