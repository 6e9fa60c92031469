package dev.talus.examples.bulkimport;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The storage engine under the harness: Talus ({@link TalusEngine}) or RocksJava ({@link
 * RocksDbEngine}), opened with the same {@link EngineSettings}. Puts use default write options
 * (WAL on, no sync) on both. Each method is the one call a user of that engine's Java API would
 * make, with default read options, so that a benchmark through this interface measures the API.
 *
 * <p>{@link #put}, the reads ({@link #get}, {@link #getDirect}, {@link #multiGetAsList}, {@link
 * #newCursor}) and {@link #writeBatch} are called by many threads at once; the other methods by
 * one thread at a time. A {@link Cursor} belongs to one thread.
 */
interface Engine extends AutoCloseable {

  /** Which engine. */
  enum Kind {
    /** Talus, through dev.talus. */
    talus,
    /** RocksDB, through RocksJava (org.rocksdb:rocksdbjni). */
    rocksdb
  }

  /** Indices into the array filled by {@link #readThreadStalls(long[])}. */
  int STALL_COUNT = 0;
  /** Microseconds stalled, all causes. */
  int STALL_MICROS = 1;
  /** Microseconds stalled because every memtable was full. */
  int STALL_MEMTABLE_MICROS = 2;
  /** Microseconds delayed by the L0 slowdown trigger. */
  int STALL_L0_SLOWDOWN_MICROS = 3;
  /** Microseconds stopped by the L0 stop trigger. */
  int STALL_L0_STOP_MICROS = 4;
  /** Microseconds stalled by the pending-compaction-bytes limits. */
  int STALL_PENDING_MICROS = 5;
  /** Length of the stall array. */
  int STALL_FIELDS = 6;

  /** Tickers read from the engine's statistics, by their RocksDB names. */
  enum Ticker {
    /** rocksdb.stall.micros: microseconds write groups were delayed or stopped. */
    STALL_MICROS,
    /** rocksdb.flush.write.bytes. */
    FLUSH_WRITE_BYTES,
    /** rocksdb.compact.write.bytes. */
    COMPACT_WRITE_BYTES,
    /** rocksdb.bytes.written: bytes of write batches written by users. */
    BYTES_WRITTEN,
    /** rocksdb.block.cache.hit: block cache hits, all block kinds. */
    BLOCK_CACHE_HIT,
    /** rocksdb.block.cache.miss: block cache misses (blocks read from files). */
    BLOCK_CACHE_MISS,
    /** Talus only (RocksJava: -1): times write admission engaged. */
    WRITE_ADMISSION_ENGAGEMENTS,
    /** Talus only (RocksJava: -1): puts that slept at the write admission gate for a turn. */
    WRITE_ADMISSION_WAITS
  }

  static Engine open(Kind kind, EngineSettings settings) throws Exception {
    return open(kind, settings, 1);
  }

  /**
   * Opens the engine with {@code families} column families: {@code default} and {@code cf1} ..
   * {@code cf<N-1>}, each with the settings' options. With more than one, every row goes to the
   * family {@link #familyOf} picks from its key (the same on both engines) and the whole-database
   * calls ({@link #flush}, {@link #compactRange}, the properties) cover every family.
   */
  static Engine open(Kind kind, EngineSettings settings, int families) throws Exception {
    return kind == Kind.talus ? new TalusEngine(settings, families)
        : new RocksDbEngine(settings, families);
  }

  /** @return the family (0 .. families - 1) of {@code key}: a hash of its bytes */
  static int familyOf(byte[] key, int families) {
    return families == 1 ? 0 : Math.floorMod(java.util.Arrays.hashCode(key), families);
  }

  /** @return the name of family {@code i} */
  static String familyName(int i) {
    return i == 0 ? "default" : "cf" + i;
  }

  /**
   * Properties that RocksDB keeps per family: over several families {@link #longProperty} sums
   * them, except the {@code num-files-at-level<N>} counts, which give the most of any family (the
   * figure a family's L0 stall triggers see). The others are the database's.
   */
  static boolean perFamily(String name) {
    return name.startsWith("rocksdb.num-files-at-level")
        || List.of("rocksdb.mem-table-flush-pending", "rocksdb.compaction-pending",
            "rocksdb.estimate-pending-compaction-bytes", "rocksdb.num-entries-active-mem-table",
            "rocksdb.num-entries-imm-mem-tables", "rocksdb.estimate-num-keys",
            "rocksdb.cur-size-active-mem-table", "rocksdb.cur-size-all-mem-tables",
            "rocksdb.size-all-mem-tables", "rocksdb.total-sst-files-size",
            "rocksdb.live-sst-files-size", "rocksdb.num-immutable-mem-table").contains(name);
  }

  /** @return the number of column families the rows are spread over */
  int families();

  /** @return e.g. "talus 0.1.0-SNAPSHOT" */
  String describe();

  void put(byte[] key, byte[] value) throws Exception;

  /** @return the value, or null when absent */
  byte[] get(byte[] key) throws Exception;

  /**
   * Reads {@code key} (position to limit) into the direct buffer {@code value} (from its
   * position), the {@code get(ReadOptions, ByteBuffer, ByteBuffer)} of both APIs.
   *
   * @return the value's full length, or -1 when absent
   */
  int getDirect(ByteBuffer key, ByteBuffer value) throws Exception;

  /** @return one value per key, null for absent keys ({@code multiGetAsList(List)}) */
  List<byte[]> multiGetAsList(List<byte[]> keys) throws Exception;

  /** @return a new iterator over the latest state, default read options, not yet positioned */
  Cursor newCursor();

  /**
   * Writes {@code keys[0..n)} and {@code values[0..n)} as one write batch.
   *
   * @param disableWal write options with {@code setDisableWAL(true)}: the rows are durable only
   *     after a flush (the fast path of a bulk load that flushes at its end)
   */
  void writeBatch(byte[][] keys, byte[][] values, int n, boolean disableWal) throws Exception;

  /** {@code compactRange()}: the whole key space, waiting until it is done. */
  void compactRange() throws Exception;

  /**
   * Writes the rows of {@code rows} (sorted by key, bytewise) to a table file at {@code file}
   * with the engine's {@code SstFileWriter} and the database's options, then ingests it ({@code
   * ingestExternalFile}, moveFiles true, other options RocksDB's defaults).
   *
   * @param rows the rows, in key order
   * @param file where the file is written (in the database's file system)
   * @return the size of the file ingested, in bytes
   * @throws Exception from the engine
   */
  long ingestSorted(SortedRows rows, String file) throws Exception;

  /**
   * Rows in ascending key order, computed one at a time into the caller's buffers (nothing is
   * kept per row).
   */
  interface SortedRows {
    /** How many rows. */
    int count();

    /**
     * Writes row {@code i}'s key and value (in key order: row {@code i + 1}'s key sorts after).
     *
     * @param i the row, from 0 to {@link #count()} - 1
     * @param key a buffer of the key size
     * @param value a buffer of the value size
     */
    void row(int i, byte[] key, byte[] value);

    /** Bytes of each key. */
    int keySize();

    /** Bytes of each value. */
    int valueSize();
  }

  /** Flushes the memtables and waits until the data is in table files. */
  void flush() throws Exception;

  String property(String name) throws Exception;

  long longProperty(String name) throws Exception;

  /** @return the ticker's count; 0 when the engine was opened without statistics */
  long ticker(Ticker ticker);

  /**
   * The engine's WAL sync histogram (Statistics WAL_FILE_SYNC_MICROS): syncs made, their p99 and
   * maximum in microseconds.
   */
  double[] walSyncs();

  /** Called once by each writer thread before its first put. */
  void startWriterThread();

  /** @return whether {@link #readThreadStalls(long[])} works (per-thread stall counters) */
  boolean hasThreadStalls();

  /**
   * Reads the calling thread's cumulative stall counters into {@code out} (indices {@link
   * #STALL_COUNT} ...).
   */
  void readThreadStalls(long[] out);

  /** @return where the stall figures come from, said in the output */
  String stallSource();

  /**
   * An iterator of either engine, with the calls of both APIs ({@code RocksIterator}, {@code
   * TalusIterator}); {@link #key()} and {@link #value()} return new arrays, as both do.
   */
  interface Cursor extends AutoCloseable {
    void seekToFirst();

    void seekToLast();

    void seek(byte[] target);

    boolean isValid();

    void next();

    void prev();

    byte[] key();

    byte[] value();

    /** Throws the iterator's error, if it stopped on one. */
    void status() throws Exception;

    @Override
    void close();
  }

  /** Closes the database (its final error, if any, as an unchecked exception) and its options. */
  @Override
  void close();
}
