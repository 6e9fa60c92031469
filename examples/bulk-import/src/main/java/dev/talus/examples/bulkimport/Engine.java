package dev.talus.examples.bulkimport;

/**
 * The storage engine under the harness: Talus ({@link TalusEngine}) or RocksJava ({@link
 * RocksDbEngine}), opened with the same {@link EngineSettings}. Puts use default write options
 * (WAL on, no sync) on both.
 *
 * <p>{@link #put} and {@link #get} are called by many threads at once; the other methods by one
 * thread at a time.
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
    BYTES_WRITTEN
  }

  static Engine open(Kind kind, EngineSettings settings) throws Exception {
    return kind == Kind.talus ? new TalusEngine(settings) : new RocksDbEngine(settings);
  }

  /** @return e.g. "talus 0.1.0-SNAPSHOT" */
  String describe();

  void put(byte[] key, byte[] value) throws Exception;

  /** @return the value, or null when absent */
  byte[] get(byte[] key) throws Exception;

  /** Flushes the memtables and waits until the data is in table files. */
  void flush() throws Exception;

  String property(String name) throws Exception;

  long longProperty(String name) throws Exception;

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

  /** Closes the database (its final error, if any, as an unchecked exception) and its options. */
  @Override
  void close();
}
