package dev.talus;

import java.util.Objects;

/**
 * Database and column-family options, as RocksJava's {@code Options}: setters return {@code
 * this}, getters are the bare property name. Defaults are RocksDB's own (RocksDB 10.10), except
 * {@link #compressionType()}, which is LZ4 (RocksDB's is Snappy).
 *
 * <p>A plain Java object, handed to the engine once, at {@link TalusDB#open(Options, String)}.
 * Setters accept every value RocksJava accepts; at open the engine corrects the values RocksDB
 * corrects, the same way (for example {@code writeBufferSize} is clamped to 64 KiB .. 64 GiB and
 * {@code maxWriteBufferNumber} raised to 2), and notes each correction in the info log; getters
 * return the value set. A negative value of a size or count that is unsigned in RocksDB is, as in
 * RocksJava, the unsigned number of the same bits ({@code -1} is 2<sup>64</sup>−1: no limit).
 * Only values no database can run with safely are refused, by the setter with an {@link
 * IllegalArgumentException} naming the option and its range (more than 1024 background threads,
 * more than 64 levels) or by open with {@code InvalidArgument} where RocksDB refuses too ({@code
 * keepLogFileNum} 0). {@link #close()} marks the object closed; later use throws {@link
 * IllegalStateException}.
 *
 * <p>Setters of RocksJava options that Talus does not implement throw {@link
 * UnsupportedOperationException} naming the option; none is silently ignored.
 */
public class Options extends PlainCloseable {

  // Database-wide.
  private boolean createIfMissing;
  private boolean errorIfExists;
  private boolean createMissingColumnFamilies;
  private boolean paranoidChecks = true;
  private boolean useFsync;
  private boolean allowIngestBehind;
  private boolean allowFAllocate = true;
  private String walDir = "";
  private WALRecoveryMode walRecoveryMode = WALRecoveryMode.TolerateCorruptedTailRecords;
  private long walBytesPerSync;
  private long bytesPerSync;
  private int maxBackgroundJobs = 2;
  private int maxBackgroundCompactions = -1;
  private int maxBackgroundFlushes = -1;
  private int maxSubcompactions = 1;
  private int maxOpenFiles = -1;
  private long delayedWriteRate;
  private long maxTotalWalSize;
  private boolean manualFlushEnabled;
  private int maxConcurrentWriters = -1;

  // Column family.
  private long writeBufferSize = 64L << 20;
  private int maxWriteBufferNumber = 2;
  private int minWriteBufferNumberToMerge = 1;
  private int level0FileNumCompactionTrigger = 4;
  private int level0SlowdownWritesTrigger = 20;
  private int level0StopWritesTrigger = 36;
  private long softPendingCompactionBytesLimit = 64L << 30;
  private long hardPendingCompactionBytesLimit = 256L << 30;
  private int numLevels = 7;
  private long maxBytesForLevelBase = 256L << 20;
  private double maxBytesForLevelMultiplier = 10.0;
  private boolean levelCompactionDynamicLevelBytes = true;
  private long targetFileSizeBase = 64L << 20;
  private int targetFileSizeMultiplier = 1;
  private CompactionPriority compactionPriority = CompactionPriority.MinOverlappingRatio;
  private boolean disableAutoCompactions;
  private CompactionStyle compactionStyle = CompactionStyle.LEVEL;
  private CompactionOptionsUniversal compactionOptionsUniversal = new CompactionOptionsUniversal();
  private CompactionOptionsFIFO compactionOptionsFIFO = new CompactionOptionsFIFO();
  private long ttl;
  private CompressionType compressionType = CompressionType.LZ4_COMPRESSION;
  private CompressionOptions compressionOptions = new CompressionOptions();
  private java.util.List<CompressionType> compressionPerLevel = java.util.List.of();
  private CompressionType bottommostCompressionType = CompressionType.DISABLE_COMPRESSION_OPTION;
  private CompressionOptions bottommostCompressionOptions = new CompressionOptions();
  /** {@code fixed:N}, {@code capped:N}, or empty for none: the engine's option text. */
  private String prefixExtractor = "";
  private TableFormatConfig tableFormatConfig = new BlockBasedTableConfig();
  private RateLimiter rateLimiter;
  private Statistics statistics;
  private Logger logger;
  private InfoLogLevel infoLogLevel = InfoLogLevel.INFO_LEVEL;
  private long maxLogFileSize;
  private long keepLogFileNum = 1000;
  private int statsDumpPeriodSec = 600;
  private MergeOperator mergeOperator;
  private String mergeOperatorName;

  /** The names {@link #setMergeOperatorName(String)} accepts (RocksDB's built-in operators). */
  private static final java.util.List<String> MERGE_OPERATOR_NAMES =
      java.util.List.of(
          "stringappend",
          "StringAppendOperator",
          "uint64add",
          "UInt64AddOperator",
          "put",
          "put_v1",
          "PutOperator",
          "max",
          "MaxOperator");

  /** Options with RocksDB's defaults ({@code createIfMissing} false). */
  public Options() {}

  /**
   * A shallow copy of {@code other}.
   *
   * @param other options to copy; not null
   * @throws NullPointerException if {@code other} is null
   * @throws IllegalStateException if {@code other} is closed
   */
  public Options(Options other) {
    Objects.requireNonNull(other, "other");
    other.checkOpen();
    this.createIfMissing = other.createIfMissing;
    this.errorIfExists = other.errorIfExists;
    this.paranoidChecks = other.paranoidChecks;
    this.useFsync = other.useFsync;
    this.allowIngestBehind = other.allowIngestBehind;
    this.allowFAllocate = other.allowFAllocate;
    this.walDir = other.walDir;
    this.walRecoveryMode = other.walRecoveryMode;
    this.walBytesPerSync = other.walBytesPerSync;
    this.bytesPerSync = other.bytesPerSync;
    this.maxBackgroundJobs = other.maxBackgroundJobs;
    this.maxBackgroundCompactions = other.maxBackgroundCompactions;
    this.maxBackgroundFlushes = other.maxBackgroundFlushes;
    this.maxSubcompactions = other.maxSubcompactions;
    this.maxOpenFiles = other.maxOpenFiles;
    this.delayedWriteRate = other.delayedWriteRate;
    this.maxTotalWalSize = other.maxTotalWalSize;
    this.manualFlushEnabled = other.manualFlushEnabled;
    this.maxConcurrentWriters = other.maxConcurrentWriters;
    this.writeBufferSize = other.writeBufferSize;
    this.maxWriteBufferNumber = other.maxWriteBufferNumber;
    this.minWriteBufferNumberToMerge = other.minWriteBufferNumberToMerge;
    this.level0FileNumCompactionTrigger = other.level0FileNumCompactionTrigger;
    this.level0SlowdownWritesTrigger = other.level0SlowdownWritesTrigger;
    this.level0StopWritesTrigger = other.level0StopWritesTrigger;
    this.softPendingCompactionBytesLimit = other.softPendingCompactionBytesLimit;
    this.hardPendingCompactionBytesLimit = other.hardPendingCompactionBytesLimit;
    this.numLevels = other.numLevels;
    this.maxBytesForLevelBase = other.maxBytesForLevelBase;
    this.maxBytesForLevelMultiplier = other.maxBytesForLevelMultiplier;
    this.levelCompactionDynamicLevelBytes = other.levelCompactionDynamicLevelBytes;
    this.targetFileSizeBase = other.targetFileSizeBase;
    this.targetFileSizeMultiplier = other.targetFileSizeMultiplier;
    this.compactionPriority = other.compactionPriority;
    this.disableAutoCompactions = other.disableAutoCompactions;
    this.compactionStyle = other.compactionStyle;
    this.compactionOptionsUniversal = new CompactionOptionsUniversal(other.compactionOptionsUniversal);
    this.compactionOptionsFIFO = new CompactionOptionsFIFO(other.compactionOptionsFIFO);
    this.ttl = other.ttl;
    this.compressionType = other.compressionType;
    this.compressionOptions = other.compressionOptions;
    this.compressionPerLevel = other.compressionPerLevel;
    this.bottommostCompressionType = other.bottommostCompressionType;
    this.bottommostCompressionOptions = other.bottommostCompressionOptions;
    this.prefixExtractor = other.prefixExtractor;
    this.tableFormatConfig = other.tableFormatConfig;
    this.rateLimiter = other.rateLimiter;
    this.statistics = other.statistics;
    this.logger = other.logger;
    this.infoLogLevel = other.infoLogLevel;
    this.maxLogFileSize = other.maxLogFileSize;
    this.keepLogFileNum = other.keepLogFileNum;
    this.statsDumpPeriodSec = other.statsDumpPeriodSec;
    this.mergeOperator = other.mergeOperator;
    this.mergeOperatorName = other.mergeOperatorName;
    this.createMissingColumnFamilies = other.createMissingColumnFamilies;
  }


  /**
   * Upper bound of the background thread counts (the engine's {@code MAX_BACKGROUND_THREADS}):
   * the threads are started at open, and {@code Integer.MAX_VALUE} of them would exhaust the
   * system's threads.
   */
  static final int MAX_BACKGROUND_THREADS = 1024;

  /** Upper bound of {@link #setMaxConcurrentWriters(int)}, as in the engine. */
  static final int MAX_CONCURRENT_WRITERS = 1024;

  /**
   * Background thread counts: any value up to {@link #MAX_BACKGROUND_THREADS}; as in RocksDB,
   * values below 1 mean one thread (and -1, for the deprecated per-kind counts, derive them from
   * {@code maxBackgroundJobs}).
   */
  private static int threadCount(String name, int v) {
    if (v > MAX_BACKGROUND_THREADS) {
      throw new IllegalArgumentException(
          name + " must be at most " + MAX_BACKGROUND_THREADS + ", got " + v);
    }
    return v;
  }

  /** Upper bound of {@link #setNumLevels(int)}: the manifest records levels below 64. */
  static final int MAX_NUM_LEVELS = 64;

  // ---------------------------------------------------------------- database-wide

  /**
   * Create the database if it does not exist. Default false.
   *
   * @param flag true to create
   * @return this
   */
  public Options setCreateIfMissing(boolean flag) {
    checkOpen();
    createIfMissing = flag;
    return this;
  }

  /** @return whether a missing database is created (default false) */
  public boolean createIfMissing() {
    checkOpen();
    return createIfMissing;
  }

  /**
   * Create the column families named at open that the database does not have yet (RocksDB's
   * {@code create_missing_column_families}). Default false: such an open fails with {@code
   * InvalidArgument} naming them.
   *
   * @param flag true to create them
   * @return this
   */
  public Options setCreateMissingColumnFamilies(boolean flag) {
    checkOpen();
    createMissingColumnFamilies = flag;
    return this;
  }

  /** @return whether missing column families are created at open (default false) */
  public boolean createMissingColumnFamilies() {
    checkOpen();
    return createMissingColumnFamilies;
  }

  /**
   * Fail {@code open} if the database already exists. Default false.
   *
   * @param flag true to fail on an existing database
   * @return this
   */
  public Options setErrorIfExists(boolean flag) {
    checkOpen();
    errorIfExists = flag;
    return this;
  }

  /** @return whether opening an existing database fails (default false) */
  public boolean errorIfExists() {
    checkOpen();
    return errorIfExists;
  }

  /**
   * Check data aggressively and stop on any corruption found. Default true.
   *
   * @param flag true for paranoid checks
   * @return this
   */
  public Options setParanoidChecks(boolean flag) {
    checkOpen();
    paranoidChecks = flag;
    return this;
  }

  /** @return whether paranoid checks are on (default true) */
  public boolean paranoidChecks() {
    checkOpen();
    return paranoidChecks;
  }

  /**
   * Use fsync instead of fdatasync when syncing files. Default false.
   *
   * @param useFsync true for fsync
   * @return this
   */
  public Options setUseFsync(boolean useFsync) {
    checkOpen();
    this.useFsync = useFsync;
    return this;
  }

  /** @return whether fsync is used (default false) */
  public boolean useFsync() {
    checkOpen();
    return useFsync;
  }

  /**
   * Allows {@link IngestExternalFileOptions#setIngestBehind(boolean) ingestion behind}: compactions
   * then keep tombstones and merge operands at the bottom, since data ingested behind may lie under
   * them. Unlike RocksDB the last level is not reserved: an ingestion behind fails when the last
   * level already holds keys in a file's range. Default false.
   *
   * @param allowIngestBehind true to allow
   * @return this
   */
  public Options setAllowIngestBehind(boolean allowIngestBehind) {
    checkOpen();
    this.allowIngestBehind = allowIngestBehind;
    return this;
  }

  /** @return whether ingestion behind is allowed (default false) */
  public boolean allowIngestBehind() {
    checkOpen();
    return allowIngestBehind;
  }

  /**
   * Sets the options of a bulk load with RocksDB's values ({@code PrepareForBulkLoad}): automatic
   * compactions off; L0 compaction, slowdown and stop triggers 2^30; soft and hard pending
   * compaction byte limits 0 (off); 2 levels; 6 write buffers, 1 to merge; 4 background flushes and
   * 2 background compactions; 256 MiB target file size. The write buffer size is unchanged. Load,
   * then call {@link TalusDB#compactRange()} once.
   *
   * @return this
   */
  public Options prepareForBulkLoad() {
    checkOpen();
    disableAutoCompactions = true;
    level0FileNumCompactionTrigger = 1 << 30;
    level0SlowdownWritesTrigger = 1 << 30;
    level0StopWritesTrigger = 1 << 30;
    softPendingCompactionBytesLimit = 0;
    hardPendingCompactionBytesLimit = 0;
    numLevels = 2;
    maxWriteBufferNumber = 6;
    minWriteBufferNumberToMerge = 1;
    maxBackgroundFlushes = 4;
    maxBackgroundCompactions = 2;
    targetFileSizeBase = 256L << 20;
    return this;
  }

  /**
   * Reserve each new write-ahead log's disk blocks when it is created ({@code fallocate} with
   * {@code FALLOC_FL_KEEP_SIZE}, 1.1 × the write buffer size, at most {@code maxTotalWalSize} when
   * set), so that its appends never wait for block allocation; what a log did not use is given
   * back when it is closed. A hint: a file system without {@code fallocate} ignores it, and Talus
   * skips a reserve over a quarter of the disk's free space at that moment (the log then allocates
   * as it grows), so that it never takes the room flushes and compactions need. Default true, as
   * in RocksDB.
   *
   * @param allowFAllocate false to let logs allocate as they grow
   * @return this
   */
  public Options setAllowFAllocate(boolean allowFAllocate) {
    checkOpen();
    this.allowFAllocate = allowFAllocate;
    return this;
  }

  /** @return whether new write-ahead logs get their blocks reserved (default true) */
  public boolean allowFAllocate() {
    checkOpen();
    return allowFAllocate;
  }

  /**
   * Directory for the write-ahead logs; empty (the default) means the database directory.
   *
   * <p>An open database locks this directory (a second database opening on it fails with an
   * {@code IOError} status whose message names the directory and the lock, as for a database that
   * is already open), and every log names the database that wrote it, so a database never
   * replays or deletes another database's logs. Still, give each database a directory of its own.
   *
   * @param walDir a directory path
   * @return this
   */
  public Options setWalDir(String walDir) {
    checkOpen();
    this.walDir = Objects.requireNonNull(walDir, "walDir");
    return this;
  }

  /** @return the WAL directory, empty for the database directory */
  public String walDir() {
    checkOpen();
    return walDir;
  }

  /**
   * How recovery treats a damaged WAL. Default {@link
   * WALRecoveryMode#TolerateCorruptedTailRecords}.
   *
   * @param mode the recovery mode
   * @return this
   */
  public Options setWalRecoveryMode(WALRecoveryMode mode) {
    checkOpen();
    this.walRecoveryMode = Objects.requireNonNull(mode, "walRecoveryMode");
    return this;
  }

  /** @return the WAL recovery mode */
  public WALRecoveryMode walRecoveryMode() {
    checkOpen();
    return walRecoveryMode;
  }

  /**
   * Sync the WAL in the background every this many bytes written (0, the default, = off).
   *
   * @param bytes bytes between syncs
   * @return this
   */
  public Options setWalBytesPerSync(long bytes) {
    checkOpen();
    walBytesPerSync = bytes;
    return this;
  }

  /** @return bytes between background WAL syncs (0 = off) */
  public long walBytesPerSync() {
    checkOpen();
    return walBytesPerSync;
  }

  /**
   * Sync table files while they are written every this many bytes (0, the default, = off).
   *
   * @param bytes bytes between syncs
   * @return this
   */
  public Options setBytesPerSync(long bytes) {
    checkOpen();
    bytesPerSync = bytes;
    return this;
  }

  /** @return bytes between table-file syncs (0 = off) */
  public long bytesPerSync() {
    checkOpen();
    return bytesPerSync;
  }

  /**
   * Threads for background flushes and compactions together. Default 2. As in RocksDB, a quarter
   * of them (at least one) flush and the rest (at least one) compact; values below 2 give one of
   * each. Talus refuses more than 1024 (RocksDB has no limit): every thread is started at open.
   *
   * @param jobs at most 1024
   * @return this
   * @throws IllegalArgumentException above 1024
   */
  public Options setMaxBackgroundJobs(int jobs) {
    checkOpen();
    maxBackgroundJobs = threadCount("maxBackgroundJobs", jobs);
    return this;
  }

  /** @return the background job budget (default 2) */
  public int maxBackgroundJobs() {
    checkOpen();
    return maxBackgroundJobs;
  }

  /**
   * Deprecated in RocksDB: compaction threads, overriding the split of {@link
   * #maxBackgroundJobs()}. Default -1 (derive). As in RocksDB, once either this or {@link
   * #setMaxBackgroundFlushes(int)} is not -1, each is taken as at least 1.
   *
   * @param n at most 1024
   * @return this
   * @throws IllegalArgumentException above 1024
   */
  public Options setMaxBackgroundCompactions(int n) {
    checkOpen();
    maxBackgroundCompactions = threadCount("maxBackgroundCompactions", n);
    return this;
  }

  /** @return compaction threads, -1 when derived */
  public int maxBackgroundCompactions() {
    checkOpen();
    return maxBackgroundCompactions;
  }

  /**
   * Deprecated in RocksDB: flush threads, overriding the split of {@link #maxBackgroundJobs()}.
   * Default -1 (derive). See {@link #setMaxBackgroundCompactions(int)}.
   *
   * @param n at most 1024
   * @return this
   * @throws IllegalArgumentException above 1024
   */
  public Options setMaxBackgroundFlushes(int n) {
    checkOpen();
    maxBackgroundFlushes = threadCount("maxBackgroundFlushes", n);
    return this;
  }

  /** @return flush threads, -1 when derived */
  public int maxBackgroundFlushes() {
    checkOpen();
    return maxBackgroundFlushes;
  }

  /**
   * The most key ranges one compaction is split into, each compacted by a thread of its own and
   * all installed together (RocksDB's {@code max_subcompactions}). Only an L0 to base-level
   * compaction, a manual one ({@code compactRange}), or a universal one into a level below L0 is
   * split, and only into as many ranges as output files its inputs fill. Default 1 (no split); 0
   * counts as 1.
   *
   * @param n the bound, at least 0
   * @return this
   * @throws IllegalArgumentException when negative
   */
  public Options setMaxSubcompactions(int n) {
    checkOpen();
    if (n < 0) {
      throw new IllegalArgumentException("maxSubcompactions must be at least 0, got " + n);
    }
    maxSubcompactions = n;
    return this;
  }

  /** @return the bound on subcompactions of one compaction (default 1) */
  public int maxSubcompactions() {
    checkOpen();
    return maxSubcompactions;
  }

  /**
   * Table files kept open at once (-1, the default, = all). As in RocksDB, open clamps any other
   * value to 20 .. 4194304.
   *
   * @param n the limit, or -1
   * @return this
   */
  public Options setMaxOpenFiles(int n) {
    checkOpen();
    maxOpenFiles = n;
    return this;
  }

  /** @return open-file limit, -1 for none */
  public int maxOpenFiles() {
    checkOpen();
    return maxOpenFiles;
  }

  /**
   * Write rate in bytes per second while writes are delayed (0, the default, = the rate
   * limiter's rate if one is set, else 16 MiB/s).
   *
   * @param bytesPerSecond the delayed write rate
   * @return this
   */
  public Options setDelayedWriteRate(long bytesPerSecond) {
    checkOpen();
    delayedWriteRate = bytesPerSecond;
    return this;
  }

  /** @return the delayed write rate in bytes/s (0 = derived) */
  public long delayedWriteRate() {
    checkOpen();
    return delayedWriteRate;
  }

  /**
   * Flush memtables once the live WAL files exceed this many bytes (0, the default, = four times
   * the memtable budget).
   *
   * @param bytes the WAL size limit
   * @return this
   */
  public Options setMaxTotalWalSize(long bytes) {
    checkOpen();
    maxTotalWalSize = bytes;
    return this;
  }

  /** @return the WAL size that triggers a flush (0 = automatic) */
  public long maxTotalWalSize() {
    checkOpen();
    return maxTotalWalSize;
  }

  /**
   * Talus option, for importers that own their flush rhythm.
   * When true, no flush is ever triggered by WAL size ({@link #maxTotalWalSize()}); memtables are
   * flushed only when a write buffer fills or on an explicit {@link TalusDB#flush(FlushOptions)}.
   * Default false.
   *
   * @param flag true to disable WAL-size-triggered flushes
   * @return this
   */
  public Options setManualFlushEnabled(boolean flag) {
    checkOpen();
    manualFlushEnabled = flag;
    return this;
  }

  /** @return whether WAL-size-triggered flushes are off (default false) */
  public boolean manualFlushEnabled() {
    checkOpen();
    return manualFlushEnabled;
  }

  /**
   * Talus option (RocksDB has none): write admission. While more threads than this write
   * continuously (each starting its next put within 200 µs of its last), at most this many write
   * at once; the others sleep and take turns of 1 ms each, first come first served. A thread keeps
   * its turn from one put to the next, so a turn costs one wake-up, not one per put. With more
   * writer threads than cores, writers beyond the cores only wait in the operating system's run
   * queue, where a preempted put waits a scheduler tick per runnable thread; at the gate they wait
   * for turns of known length instead. While fewer threads write continuously (a service's
   * request threads, each writing now and then) the gate stays open: no put takes a turn or
   * waits. {@code sync}, {@code noSlowdown} and {@code lowPri} writes are never held.
   *
   * <p>Default -1: one writer per core this process may run on (a no-op while there are no more
   * continuous writer threads than cores). 0 turns admission off (every writer runs at once, as
   * in RocksDB); 1 to 1024 sets the number.
   *
   * @param writers -1 (one per core), 0 (no limit) or 1..1024
   * @return this
   * @throws IllegalArgumentException when out of range
   */
  public Options setMaxConcurrentWriters(int writers) {
    checkOpen();
    if (writers < -1 || writers > MAX_CONCURRENT_WRITERS) {
      throw new IllegalArgumentException("maxConcurrentWriters must be -1 (one per core), 0 (no"
          + " limit) or in 1.." + MAX_CONCURRENT_WRITERS + ", got " + writers);
    }
    maxConcurrentWriters = writers;
    return this;
  }

  /** @return the write admission limit (-1 = one per core, the default; 0 = no limit) */
  public int maxConcurrentWriters() {
    checkOpen();
    return maxConcurrentWriters;
  }

  // ---------------------------------------------------------------- column family

  /**
   * Bytes of the active memtable before it is switched and queued for flush. Default 64 MiB. Once
   * a memtable has been flushed, up to this many bytes of its memory stay allocated for the next
   * memtables (so writers do not fault in fresh pages), until the database closes. As in RocksDB,
   * open clamps the value to 64 KiB .. 64 GiB (a negative value is a huge unsigned one: 64 GiB).
   *
   * @param bytes the memtable size
   * @return this
   */
  public Options setWriteBufferSize(long bytes) {
    checkOpen();
    writeBufferSize = bytes;
    return this;
  }

  /** @return the memtable size in bytes (default 64 MiB) */
  public long writeBufferSize() {
    checkOpen();
    return writeBufferSize;
  }

  /**
   * Memtables (active plus immutable) held before writes stop. Default 2; as in RocksDB, open
   * raises values below 2 to 2.
   *
   * @param n the memtable limit
   * @return this
   */
  public Options setMaxWriteBufferNumber(int n) {
    checkOpen();
    maxWriteBufferNumber = n;
    return this;
  }

  /** @return the memtable limit (default 2) */
  public int maxWriteBufferNumber() {
    checkOpen();
    return maxWriteBufferNumber;
  }

  /**
   * Immutable memtables merged into one L0 table by a flush. Default 1; as in RocksDB, open brings
   * the value into 1 .. {@code maxWriteBufferNumber - 1}.
   *
   * @param n memtables per flush
   * @return this
   */
  public Options setMinWriteBufferNumberToMerge(int n) {
    checkOpen();
    minWriteBufferNumberToMerge = n;
    return this;
  }

  /** @return memtables merged per flush (default 1) */
  public int minWriteBufferNumberToMerge() {
    checkOpen();
    return minWriteBufferNumberToMerge;
  }

  /**
   * L0 files that trigger an L0 compaction. Default 4. Open raises 0 to 1, as RocksDB does, and
   * a negative value to 1 too (RocksDB keeps it, and then never compacts L0 by file count).
   *
   * @param n the trigger
   * @return this
   */
  public Options setLevel0FileNumCompactionTrigger(int n) {
    checkOpen();
    level0FileNumCompactionTrigger = n;
    return this;
  }

  /** @return the L0 compaction trigger (default 4) */
  public int level0FileNumCompactionTrigger() {
    checkOpen();
    return level0FileNumCompactionTrigger;
  }

  /**
   * Older RocksJava name of {@link #setLevel0FileNumCompactionTrigger(int)}.
   *
   * @param n the trigger
   * @return this
   */
  public Options setLevelZeroFileNumCompactionTrigger(int n) {
    return setLevel0FileNumCompactionTrigger(n);
  }

  /** @return the L0 compaction trigger */
  public int levelZeroFileNumCompactionTrigger() {
    return level0FileNumCompactionTrigger();
  }

  /**
   * L0 files at which writes are slowed down (delayed). Default 20; a negative value disables
   * the slowdown.
   *
   * @param n the slowdown trigger
   * @return this
   */
  public Options setLevel0SlowdownWritesTrigger(int n) {
    checkOpen();
    level0SlowdownWritesTrigger = n;
    return this;
  }

  /** @return the L0 slowdown trigger (default 20) */
  public int level0SlowdownWritesTrigger() {
    checkOpen();
    return level0SlowdownWritesTrigger;
  }

  /**
   * Alias of {@link #setLevel0SlowdownWritesTrigger(int)}, a spelling some importers use.
   *
   * @param n the slowdown trigger
   * @return this
   */
  public Options setLevel0FileNumSlowdownTrigger(int n) {
    return setLevel0SlowdownWritesTrigger(n);
  }

  /**
   * Older RocksJava name of {@link #setLevel0SlowdownWritesTrigger(int)}.
   *
   * @param n the slowdown trigger
   * @return this
   */
  public Options setLevelZeroSlowdownWritesTrigger(int n) {
    return setLevel0SlowdownWritesTrigger(n);
  }

  /** @return the L0 slowdown trigger */
  public int levelZeroSlowdownWritesTrigger() {
    return level0SlowdownWritesTrigger();
  }

  /**
   * L0 files at which writes stop until compaction catches up. Default 36. As in RocksDB, open
   * raises a value below the slowdown trigger (and below the compaction trigger) to it.
   *
   * @param n the stop trigger
   * @return this
   */
  public Options setLevel0StopWritesTrigger(int n) {
    checkOpen();
    level0StopWritesTrigger = n;
    return this;
  }

  /** @return the L0 stop trigger (default 36) */
  public int level0StopWritesTrigger() {
    checkOpen();
    return level0StopWritesTrigger;
  }

  /**
   * Older RocksJava name of {@link #setLevel0StopWritesTrigger(int)}.
   *
   * @param n the stop trigger
   * @return this
   */
  public Options setLevelZeroStopWritesTrigger(int n) {
    return setLevel0StopWritesTrigger(n);
  }

  /** @return the L0 stop trigger */
  public int levelZeroStopWritesTrigger() {
    return level0StopWritesTrigger();
  }

  /**
   * Estimated pending compaction bytes at which writes slow down (0 = off). Default 64 GiB.
   *
   * @param bytes the soft limit
   * @return this
   */
  public Options setSoftPendingCompactionBytesLimit(long bytes) {
    checkOpen();
    softPendingCompactionBytesLimit = bytes;
    return this;
  }

  /** @return the soft pending-compaction limit in bytes (default 64 GiB) */
  public long softPendingCompactionBytesLimit() {
    checkOpen();
    return softPendingCompactionBytesLimit;
  }

  /**
   * Alias of {@link #setSoftPendingCompactionBytesLimit(long)}, a spelling some importers use.
   *
   * @param bytes the soft limit
   * @return this
   */
  public Options setLevel0FileNumSoftPendingCompactionBytesLimit(long bytes) {
    return setSoftPendingCompactionBytesLimit(bytes);
  }

  /**
   * Estimated pending compaction bytes at which writes stop (0 = off). Default 256 GiB.
   *
   * @param bytes the hard limit
   * @return this
   */
  public Options setHardPendingCompactionBytesLimit(long bytes) {
    checkOpen();
    hardPendingCompactionBytesLimit = bytes;
    return this;
  }

  /** @return the hard pending-compaction limit in bytes (default 256 GiB) */
  public long hardPendingCompactionBytesLimit() {
    checkOpen();
    return hardPendingCompactionBytesLimit;
  }

  /**
   * Number of LSM levels. Default 7. As in RocksDB, open raises values below 2 to 2 (level
   * compaction needs a level below L0). Talus refuses more than 64 (RocksDB has no limit): its
   * manifest records levels below 64.
   *
   * @param n at most 64
   * @return this
   * @throws IllegalArgumentException above 64
   */
  public Options setNumLevels(int n) {
    checkOpen();
    if (n > MAX_NUM_LEVELS) {
      throw new IllegalArgumentException(
          "numLevels must be at most " + MAX_NUM_LEVELS + ", got " + n);
    }
    numLevels = n;
    return this;
  }

  /** @return the number of levels (default 7) */
  public int numLevels() {
    checkOpen();
    return numLevels;
  }

  /**
   * Target size of the base level in bytes. Default 256 MiB. 0 acts as 1 byte (every level is
   * always over its target, so data moves down to the last level).
   *
   * @param bytes the base level target
   * @return this
   */
  public Options setMaxBytesForLevelBase(long bytes) {
    checkOpen();
    maxBytesForLevelBase = bytes;
    return this;
  }

  /** @return the base level target in bytes (default 256 MiB) */
  public long maxBytesForLevelBase() {
    checkOpen();
    return maxBytesForLevelBase;
  }

  /**
   * Size ratio between consecutive levels. Default 10. As in RocksDB, open sets a value not above
   * 0 to 1 (and so NaN, which RocksDB keeps); 1 makes every level the base level's size.
   *
   * @param multiplier the ratio
   * @return this
   */
  public Options setMaxBytesForLevelMultiplier(double multiplier) {
    checkOpen();
    maxBytesForLevelMultiplier = multiplier;
    return this;
  }

  /** @return the level size multiplier (default 10) */
  public double maxBytesForLevelMultiplier() {
    checkOpen();
    return maxBytesForLevelMultiplier;
  }

  /**
   * Size levels from the bottom up so that the last level holds most of the data. Default true
   * (RocksDB's default since 8.4).
   *
   * @param flag true for dynamic level sizing
   * @return this
   */
  public Options setLevelCompactionDynamicLevelBytes(boolean flag) {
    checkOpen();
    levelCompactionDynamicLevelBytes = flag;
    return this;
  }

  /** @return whether level sizes are dynamic (default true) */
  public boolean levelCompactionDynamicLevelBytes() {
    checkOpen();
    return levelCompactionDynamicLevelBytes;
  }

  /**
   * Target size of a compaction output file in bytes. Default 64 MiB. Differs from RocksDB below
   * 64 KiB: open raises a smaller value to 64 KiB, or to {@code writeBufferSize / 1024} when that
   * is smaller (logged in the info log), since every output file is synced and with tiny files
   * compaction runs at the pace of the syncs (with 1, one file per key). This getter still
   * returns the value set.
   *
   * @param bytes the target size
   * @return this
   */
  public Options setTargetFileSizeBase(long bytes) {
    checkOpen();
    targetFileSizeBase = bytes;
    return this;
  }

  /** @return the target file size in bytes (default 64 MiB) */
  public long targetFileSizeBase() {
    checkOpen();
    return targetFileSizeBase;
  }

  /**
   * Growth of the target file size per level. Default 1. Open raises values below 1 to 1
   * (RocksDB keeps them, and then writes files of 0 bytes' target below the base level).
   *
   * @param multiplier the growth factor
   * @return this
   */
  public Options setTargetFileSizeMultiplier(int multiplier) {
    checkOpen();
    targetFileSizeMultiplier = multiplier;
    return this;
  }

  /** @return the target file size multiplier (default 1) */
  public int targetFileSizeMultiplier() {
    checkOpen();
    return targetFileSizeMultiplier;
  }

  /**
   * Which file of a level to compact first. Default {@link
   * CompactionPriority#MinOverlappingRatio}.
   *
   * @param priority the priority
   * @return this
   */
  public Options setCompactionPriority(CompactionPriority priority) {
    checkOpen();
    compactionPriority = Objects.requireNonNull(priority, "compactionPriority");
    return this;
  }

  /** @return the compaction priority */
  public CompactionPriority compactionPriority() {
    checkOpen();
    return compactionPriority;
  }

  /**
   * Compaction style. Default {@link CompactionStyle#LEVEL}. {@link CompactionStyle#UNIVERSAL}
   * (tuned by {@link #setCompactionOptionsUniversal(CompactionOptionsUniversal)}) and {@link
   * CompactionStyle#FIFO} (tuned by {@link #setCompactionOptionsFIFO(CompactionOptionsFIFO)} and
   * {@link #setTtl(long)}) are implemented too. An existing database opens with another style
   * than it was written with where RocksDB allows it: leveled and universal read each other's
   * files (within {@code numLevels}); FIFO opens only a database (or column family) with nothing
   * below L0, and {@link TalusDB#open(Options, String)} refuses any other with {@link
   * TalusException} {@code InvalidArgument} naming the level that holds files.
   *
   * @param style the style
   * @return this
   * @throws UnsupportedOperationException for {@link CompactionStyle#NONE} (use {@link
   *     #setDisableAutoCompactions(boolean)})
   */
  public Options setCompactionStyle(CompactionStyle style) {
    checkOpen();
    if (Objects.requireNonNull(style, "compactionStyle") == CompactionStyle.NONE) {
      throw new UnsupportedOperationException(
          "setCompactionStyle(NONE): Talus implements LEVEL, UNIVERSAL and FIFO; turn automatic"
              + " compactions off with setDisableAutoCompactions(true)");
    }
    compactionStyle = style;
    return this;
  }

  /** @return the compaction style (default {@link CompactionStyle#LEVEL}) */
  public CompactionStyle compactionStyle() {
    checkOpen();
    return compactionStyle;
  }

  /**
   * Universal compaction's options (used with {@link CompactionStyle#UNIVERSAL}). The values are
   * copied. Default: RocksDB's ({@link CompactionOptionsUniversal#CompactionOptionsUniversal()}).
   *
   * @param options the options; not null, not closed
   * @return this
   */
  public Options setCompactionOptionsUniversal(CompactionOptionsUniversal options) {
    checkOpen();
    Objects.requireNonNull(options, "compactionOptionsUniversal");
    options.checkOpen();
    compactionOptionsUniversal = new CompactionOptionsUniversal(options);
    return this;
  }

  /** @return a copy of universal compaction's options */
  public CompactionOptionsUniversal compactionOptionsUniversal() {
    checkOpen();
    return new CompactionOptionsUniversal(compactionOptionsUniversal);
  }

  /**
   * FIFO compaction's options (used with {@link CompactionStyle#FIFO}). The values are copied.
   * Default: RocksDB's ({@link CompactionOptionsFIFO#CompactionOptionsFIFO()}).
   *
   * @param options the options; not null, not closed
   * @return this
   */
  public Options setCompactionOptionsFIFO(CompactionOptionsFIFO options) {
    checkOpen();
    Objects.requireNonNull(options, "compactionOptionsFIFO");
    options.checkOpen();
    compactionOptionsFIFO = new CompactionOptionsFIFO(options);
    return this;
  }

  /** @return a copy of FIFO compaction's options */
  public CompactionOptionsFIFO compactionOptionsFIFO() {
    checkOpen();
    return new CompactionOptionsFIFO(compactionOptionsFIFO);
  }

  /**
   * FIFO compaction drops a table once it is older than this many seconds (by the creation time
   * in its properties), checked whenever a flush or compaction finishes and at {@code
   * compactRange}. Default 0: tables are dropped by size only. RocksDB's default is a marker
   * meaning 30 days for leveled compaction, where a TTL makes old files compact again; Talus
   * implements the TTL for FIFO only, and {@link TalusDB#open(Options, String)} refuses a
   * positive TTL with another style with {@link TalusException} {@code NotSupported}. Unsigned in
   * RocksDB: a negative value is the unsigned number of the same bits.
   *
   * @param ttl seconds, or 0
   * @return this
   */
  public Options setTtl(long ttl) {
    checkOpen();
    this.ttl = ttl;
    return this;
  }

  /** @return the TTL in seconds (default 0: none) */
  public long ttl() {
    checkOpen();
    return ttl;
  }

  /**
   * Stop scheduling automatic compactions (manual {@code compactRange} still works). Default
   * false.
   *
   * @param flag true to disable
   * @return this
   */
  public Options setDisableAutoCompactions(boolean flag) {
    checkOpen();
    disableAutoCompactions = flag;
    return this;
  }

  /** @return whether automatic compactions are off (default false) */
  public boolean disableAutoCompactions() {
    checkOpen();
    return disableAutoCompactions;
  }

  /**
   * Block compression. Default {@link CompressionType#LZ4_COMPRESSION} (RocksDB's default is
   * Snappy). Talus implements {@code NO_COMPRESSION}, {@code SNAPPY_COMPRESSION}, {@code
   * LZ4_COMPRESSION} and {@code ZSTD_COMPRESSION}; as in RocksJava every type is accepted here,
   * and {@link TalusDB#open(Options, String)} refuses the others with {@link TalusException}
   * {@code NotSupported} naming the codec. Which level uses which codec: {@link
   * #setCompressionPerLevel(java.util.List)}.
   *
   * @param type the compression
   * @return this
   */
  public Options setCompressionType(CompressionType type) {
    checkOpen();
    Objects.requireNonNull(type, "compressionType");
    compressionType = type;
    return this;
  }

  /**
   * Codec parameters for every level (the ZSTD level, dictionary sizes); see {@link
   * CompressionOptions} for what Talus does with each. The values are copied.
   *
   * @param options the parameters; not null, not closed
   * @return this
   */
  public Options setCompressionOptions(CompressionOptions options) {
    checkOpen();
    Objects.requireNonNull(options, "compressionOptions");
    options.checkOpen();
    compressionOptions = new CompressionOptions(options);
    return this;
  }

  /** @return a copy of the codec parameters (default: RocksDB's defaults) */
  public CompressionOptions compressionOptions() {
    checkOpen();
    return new CompressionOptions(compressionOptions);
  }

  /**
   * A codec per level, as RocksDB's {@code compression_per_level}; empty (the default) uses
   * {@link #compressionType()} at every level. A flush (to L0) uses entry 0. A compaction into
   * level {@code L >= 1} uses entry {@code L - baseLevel + 1}, where the base level is the level
   * L0 compacts into (L1 with static level sizing; with {@link
   * #setLevelCompactionDynamicLevelBytes(boolean)} the first non-empty level, so the base level
   * always uses entry 1); levels past the end of the list use its last entry. {@link
   * #setBottommostCompressionType(CompressionType)} overrides it at the bottommost level.
   *
   * @param compressionLevels the codecs; not null, no null entry (every type is accepted here; open
   *     refuses those Talus does not implement, as for {@link #setCompressionType})
   * @return this
   */
  public Options setCompressionPerLevel(java.util.List<CompressionType> compressionLevels) {
    checkOpen();
    Objects.requireNonNull(compressionLevels, "compressionPerLevel");
    for (CompressionType t : compressionLevels) {
      Objects.requireNonNull(t, "compressionPerLevel entry");
      if (t == CompressionType.DISABLE_COMPRESSION_OPTION) {
        throw new IllegalArgumentException(
            "compressionPerLevel: DISABLE_COMPRESSION_OPTION is not a codec");
      }
    }
    compressionPerLevel = java.util.List.copyOf(compressionLevels);
    return this;
  }

  /** @return the codecs per level (default empty: {@link #compressionType()} everywhere) */
  public java.util.List<CompressionType> compressionPerLevel() {
    checkOpen();
    return compressionPerLevel;
  }

  /**
   * Codec of the tables compactions write to the bottommost level: a compaction whose output level
   * is at or below the deepest level holding data (flushes never). Default {@link
   * CompressionType#DISABLE_COMPRESSION_OPTION}: no codec of its own, the level's usual one.
   *
   * @param bottommostCompressionType the codec; not null (every type is accepted here; open
   *     refuses those Talus does not implement)
   * @return this
   */
  public Options setBottommostCompressionType(CompressionType bottommostCompressionType) {
    checkOpen();
    Objects.requireNonNull(bottommostCompressionType, "bottommostCompressionType");
    this.bottommostCompressionType = bottommostCompressionType;
    return this;
  }

  /** @return the bottommost codec (default {@code DISABLE_COMPRESSION_OPTION}) */
  public CompressionType bottommostCompressionType() {
    checkOpen();
    return bottommostCompressionType;
  }

  /**
   * Codec parameters at the bottommost level, used there instead of {@link #compressionOptions()}
   * when {@link CompressionOptions#enabled()} is set. The values are copied.
   *
   * @param options the parameters; not null, not closed
   * @return this
   */
  public Options setBottommostCompressionOptions(CompressionOptions options) {
    checkOpen();
    Objects.requireNonNull(options, "bottommostCompressionOptions");
    options.checkOpen();
    bottommostCompressionOptions = new CompressionOptions(options);
    return this;
  }

  /** @return a copy of the bottommost codec parameters (default: RocksDB's defaults) */
  public CompressionOptions bottommostCompressionOptions() {
    checkOpen();
    return new CompressionOptions(bottommostCompressionOptions);
  }

  /** @return the block compression (default LZ4) */
  public CompressionType compressionType() {
    checkOpen();
    return compressionType;
  }

  /**
   * Uses the first {@code n} bytes of a key as its prefix (RocksDB's fixed-length prefix
   * extractor, {@code rocksdb.FixedPrefix.n}); keys shorter than {@code n} have none. With a Bloom
   * filter ({@link BlockBasedTableConfig#setFilterPolicy(Filter)}), table files add the prefixes
   * of their keys to the filter (besides whole keys, unless {@link
   * BlockBasedTableConfig#setWholeKeyFiltering(boolean)} is false), and iterators seek by prefix:
   * see {@link ReadOptions}. Tables record the extractor's name, so a table written with another
   * extractor is never probed with this one's prefixes. Default: no extractor. A negative {@code
   * n} is, as in RocksJava, a huge unsigned length: no key has a prefix.
   *
   * @param n prefix length in bytes
   * @return this
   */
  public Options useFixedLengthPrefixExtractor(int n) {
    checkOpen();
    prefixExtractor = "fixed:" + Integer.toUnsignedLong(n);
    return this;
  }

  /**
   * Uses the first {@code min(n, key length)} bytes of a key as its prefix (RocksDB's capped
   * prefix extractor, {@code rocksdb.CappedPrefix.n}); every key has one. Otherwise as {@link
   * #useFixedLengthPrefixExtractor(int)}.
   *
   * @param n largest prefix length in bytes
   * @return this
   */
  public Options useCappedPrefixExtractor(int n) {
    checkOpen();
    prefixExtractor = "capped:" + Integer.toUnsignedLong(n);
    return this;
  }

  /** The presets of {@link #setOptimizeLevelStyle(OptimizeLevelStyle)}. */
  public enum OptimizeLevelStyle {
    /** {@link #optimizeLevelStyleCompaction()} with its default 512 MiB memtable budget. */
    OPTIMIZE_LEVEL_STYLE
  }

  /** RocksDB's default memtable budget of the optimize presets: 512 MiB. */
  public static final long DEFAULT_COMPACTION_MEMTABLE_MEMORY_BUDGET = 512L << 20;

  /**
   * RocksDB's preset for leveled compaction with a 512 MiB memtable budget; see {@link
   * #optimizeLevelStyleCompaction(long)}.
   *
   * @return this
   */
  public Options optimizeLevelStyleCompaction() {
    return optimizeLevelStyleCompaction(DEFAULT_COMPACTION_MEMTABLE_MEMORY_BUDGET);
  }

  /**
   * RocksDB's preset for leveled compaction: write buffers of a quarter of the budget, merged two
   * at a time, up to six; L0 compacted at two files; target files of an eighth of the budget; a
   * base level as large as the budget; leveled compaction. Like every setter it affects
   * databases opened afterwards.
   *
   * @param memtableMemoryBudget bytes for all memtables
   * @return this
   */
  public Options optimizeLevelStyleCompaction(long memtableMemoryBudget) {
    checkOpen();
    setWriteBufferSize(memtableMemoryBudget / 4);
    setMinWriteBufferNumberToMerge(2);
    setMaxWriteBufferNumber(6);
    setLevel0FileNumCompactionTrigger(2);
    setTargetFileSizeBase(memtableMemoryBudget / 8);
    setMaxBytesForLevelBase(memtableMemoryBudget);
    setCompactionStyle(CompactionStyle.LEVEL);
    return this;
  }

  /**
   * RocksDB's preset for universal compaction with a 512 MiB memtable budget; see {@link
   * #optimizeUniversalStyleCompaction(long)}.
   *
   * @return this
   */
  public Options optimizeUniversalStyleCompaction() {
    return optimizeUniversalStyleCompaction(DEFAULT_COMPACTION_MEMTABLE_MEMORY_BUDGET);
  }

  /**
   * RocksDB's preset for universal compaction: write buffers of a quarter of the budget, merged
   * two at a time, up to six; a run-count trigger of two; universal compaction whose outputs stay
   * uncompressed while the older runs hold 80 % of the data ({@code compressionSizePercent} 80).
   *
   * @param memtableMemoryBudget bytes for all memtables
   * @return this
   */
  public Options optimizeUniversalStyleCompaction(long memtableMemoryBudget) {
    checkOpen();
    setWriteBufferSize(memtableMemoryBudget / 4);
    setMinWriteBufferNumberToMerge(2);
    setMaxWriteBufferNumber(6);
    setLevel0FileNumCompactionTrigger(2);
    setCompactionStyle(CompactionStyle.UNIVERSAL);
    compactionOptionsUniversal.setCompressionSizePercent(80);
    return this;
  }

  /**
   * A form some importers write; alias of {@link #optimizeLevelStyleCompaction()}.
   *
   * @param style the preset
   * @return this
   */
  public Options setOptimizeLevelStyle(OptimizeLevelStyle style) {
    Objects.requireNonNull(style, "style");
    return optimizeLevelStyleCompaction();
  }

  /**
   * The table format; Talus implements {@link BlockBasedTableConfig}.
   *
   * @param config the table settings
   * @return this
   */
  public Options setTableFormatConfig(TableFormatConfig config) {
    checkOpen();
    this.tableFormatConfig = Objects.requireNonNull(config, "tableFormatConfig");
    return this;
  }

  /** @return the table settings (a default {@link BlockBasedTableConfig} unless set) */
  public TableFormatConfig tableFormatConfig() {
    checkOpen();
    return tableFormatConfig;
  }

  /**
   * Alias of {@link #setTableFormatConfig(TableFormatConfig)}, a spelling some importers use.
   *
   * @param config the table settings
   * @return this
   */
  public Options setBlockBasedTableFactory(BlockBasedTableConfig config) {
    return setTableFormatConfig(config);
  }

  /**
   * Limits the bytes per second of flush and compaction writes (shareable between databases).
   * Also makes {@code bytesPerSync} default to 1 MiB and {@code delayedWriteRate} default to the
   * limiter's rate, as in RocksDB. Default none.
   *
   * @param rateLimiter the limiter
   * @return this
   */
  public Options setRateLimiter(RateLimiter rateLimiter) {
    checkOpen();
    this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
    return this;
  }

  /**
   * The environment of the background threads. Talus has one, {@link Env#getDefault()}, which is
   * also the default; this setter exists so RocksJava code that passes it ports unchanged.
   *
   * @param env {@link Env#getDefault()}
   * @return this
   * @throws NullPointerException if {@code env} is null
   */
  public Options setEnv(Env env) {
    checkOpen();
    Objects.requireNonNull(env, "env");
    return this;
  }

  /** @return {@link Env#getDefault()}, the environment of every database */
  public Env getEnv() {
    checkOpen();
    return Env.getDefault();
  }

  /**
   * Collects tickers and histograms (shareable between databases). Default none.
   *
   * @param statistics the statistics object
   * @return this
   */
  public Options setStatistics(Statistics statistics) {
    checkOpen();
    this.statistics = Objects.requireNonNull(statistics, "statistics");
    return this;
  }

  /** @return the statistics object, or null */
  public Statistics statistics() {
    checkOpen();
    return statistics;
  }

  /**
   * Sets the merge operator that resolves {@link TalusDB#merge(byte[], byte[])} operands
   * (shareable between databases; the database keeps its own reference). Default none: merges
   * are refused ({@code NotSupported}). Replaces a name set with {@link
   * #setMergeOperatorName(String)}. A database holding operands must be opened with the operator
   * that wrote them (see {@link MergeOperator}).
   *
   * @param mergeOperator the operator
   * @return this
   * @throws NullPointerException if {@code mergeOperator} is null
   */
  public Options setMergeOperator(MergeOperator mergeOperator) {
    checkOpen();
    this.mergeOperator = Objects.requireNonNull(mergeOperator, "mergeOperator");
    this.mergeOperatorName = null;
    return this;
  }

  /**
   * Sets a built-in merge operator by its RocksDB name: {@code "stringappend"} (delimiter
   * {@code ','}), {@code "uint64add"}, {@code "put"} or {@code "put_v1"} (the newest operand
   * replaces the value), {@code "max"} (the bytewise largest), or their class names ({@code
   * "StringAppendOperator"}, {@code "UInt64AddOperator"}, {@code "PutOperator"}, {@code
   * "MaxOperator"}). Replaces an operator set with {@link #setMergeOperator(MergeOperator)}.
   * Unlike RocksJava, which silently leaves the operator unset for a name it does not know, an
   * unknown name throws.
   *
   * @param name the operator's name
   * @return this
   * @throws IllegalArgumentException if {@code name} is null or not one of the names above
   */
  public Options setMergeOperatorName(String name) {
    checkOpen();
    if (name == null) {
      throw new IllegalArgumentException("Merge operator name must not be null.");
    }
    if (!MERGE_OPERATOR_NAMES.contains(name)) {
      throw new IllegalArgumentException(
          "unknown merge operator name \"" + name + "\"; Talus has "
              + String.join(", ", MERGE_OPERATOR_NAMES));
    }
    this.mergeOperatorName = name;
    this.mergeOperator = null;
    return this;
  }

  /**
   * Sends the info log to {@code logger} instead of the {@code LOG} file. Default none.
   *
   * @param logger the logger
   * @return this
   */
  public Options setLogger(Logger logger) {
    checkOpen();
    this.logger = Objects.requireNonNull(logger, "logger");
    return this;
  }

  /**
   * Lowest level written to the info log. Default {@link InfoLogLevel#INFO_LEVEL}.
   *
   * @param level the level
   * @return this
   */
  public Options setInfoLogLevel(InfoLogLevel level) {
    checkOpen();
    this.infoLogLevel = Objects.requireNonNull(level, "infoLogLevel");
    return this;
  }

  /** @return the info log level (default INFO) */
  public InfoLogLevel infoLogLevel() {
    checkOpen();
    return infoLogLevel;
  }

  /**
   * Rotate the {@code LOG} file once it grows beyond this many bytes (0, the default, = never).
   *
   * @param bytes the size limit
   * @return this
   */
  public Options setMaxLogFileSize(long bytes) {
    checkOpen();
    this.maxLogFileSize = bytes;
    return this;
  }

  /** @return the LOG rotation size (0 = never) */
  public long maxLogFileSize() {
    checkOpen();
    return maxLogFileSize;
  }

  /**
   * Old info log files kept after rotation. Default 1000. 0 is refused by open with {@code
   * InvalidArgument}, as in RocksDB.
   *
   * @param n the number of old info logs kept
   * @return this
   */
  public Options setKeepLogFileNum(long n) {
    checkOpen();
    this.keepLogFileNum = n;
    return this;
  }

  /** @return the number of old info logs kept (default 1000) */
  public long keepLogFileNum() {
    checkOpen();
    return keepLogFileNum;
  }

  /**
   * Dump {@code rocksdb.stats} (and the statistics) to the info log every this many seconds
   * (0 = never). Default 600. Unsigned in RocksDB: a negative value is over 68 years.
   *
   * @param seconds the period
   * @return this
   */
  public Options setStatsDumpPeriodSec(int seconds) {
    checkOpen();
    this.statsDumpPeriodSec = seconds;
    return this;
  }

  /** @return the stats dump period in seconds (default 600) */
  public int statsDumpPeriodSec() {
    checkOpen();
    return statsDumpPeriodSec;
  }

  /** Opens a database with the handles of the shared native objects acquired. */
  interface SharedOpen {
    TalusDB open(long[] shared) throws TalusException;
  }

  /**
   * Runs {@code open} with the handles of the shared native objects these options name (block
   * cache, rate limiter, statistics, logger, merge operator; 0 when unset), each held open for
   * the call.
   */
  TalusDB withSharedHandles(SharedOpen open) throws TalusException {
    checkOpen();
    // Read once: a setter called on another thread meanwhile must not make the finally block
    // release an object it did not acquire (and leave the acquired one held forever).
    Cache cache = tableFormatConfig.sharedCache();
    RateLimiter rateLimiter = this.rateLimiter;
    Statistics statistics = this.statistics;
    Logger logger = this.logger;
    MergeOperator mergeOperator = this.mergeOperator;
    long[] shared = new long[5];
    int held = 0;
    try {
      if (cache != null) {
        shared[0] = cache.acquireShared();
      }
      held = 1;
      if (rateLimiter != null) {
        shared[1] = rateLimiter.acquireShared();
      }
      held = 2;
      if (statistics != null) {
        shared[2] = statistics.acquireShared();
      }
      held = 3;
      if (logger != null) {
        shared[3] = logger.acquireShared();
      }
      held = 4;
      if (mergeOperator != null) {
        shared[4] = mergeOperator.acquireShared();
      }
      held = 5;
      return open.open(shared);
    } finally {
      if (held >= 5 && mergeOperator != null) {
        mergeOperator.releaseShared();
      }
      if (held >= 4 && logger != null) {
        logger.releaseShared();
      }
      if (held >= 3 && statistics != null) {
        statistics.releaseShared();
      }
      if (held >= 2 && rateLimiter != null) {
        rateLimiter.releaseShared();
      }
      if (held >= 1 && cache != null) {
        cache.releaseShared();
      }
    }
  }

  /**
   * Encodes every option as {@code name=value} lines, the form the engine parses at open.
   *
   * @return the option string
   */
  String toNativeString() {
    checkOpen();
    StringBuilder b = new StringBuilder(1024);
    put(b, "create_if_missing", createIfMissing);
    put(b, "error_if_exists", errorIfExists);
    put(b, "create_missing_column_families", createMissingColumnFamilies);
    put(b, "paranoid_checks", paranoidChecks);
    put(b, "use_fsync", useFsync);
    put(b, "allow_ingest_behind", allowIngestBehind);
    put(b, "allow_fallocate", allowFAllocate);
    put(b, "wal_dir", walDir);
    put(b, "wal_recovery_mode", walRecoveryMode.getValue());
    put(b, "wal_bytes_per_sync", walBytesPerSync);
    put(b, "bytes_per_sync", bytesPerSync);
    put(b, "max_background_jobs", maxBackgroundJobs);
    put(b, "max_background_compactions", maxBackgroundCompactions);
    put(b, "max_background_flushes", maxBackgroundFlushes);
    put(b, "max_subcompactions", maxSubcompactions);
    put(b, "max_open_files", maxOpenFiles);
    put(b, "delayed_write_rate", delayedWriteRate);
    put(b, "max_total_wal_size", maxTotalWalSize);
    put(b, "manual_flush_enabled", manualFlushEnabled);
    put(b, "max_concurrent_writers", maxConcurrentWriters);
    put(b, "write_buffer_size", writeBufferSize);
    put(b, "max_write_buffer_number", maxWriteBufferNumber);
    put(b, "min_write_buffer_number_to_merge", minWriteBufferNumberToMerge);
    put(b, "level0_file_num_compaction_trigger", level0FileNumCompactionTrigger);
    put(b, "level0_slowdown_writes_trigger", level0SlowdownWritesTrigger);
    put(b, "level0_stop_writes_trigger", level0StopWritesTrigger);
    put(b, "soft_pending_compaction_bytes_limit", softPendingCompactionBytesLimit);
    put(b, "hard_pending_compaction_bytes_limit", hardPendingCompactionBytesLimit);
    put(b, "num_levels", numLevels);
    put(b, "max_bytes_for_level_base", maxBytesForLevelBase);
    put(b, "max_bytes_for_level_multiplier", maxBytesForLevelMultiplier);
    put(b, "level_compaction_dynamic_level_bytes", levelCompactionDynamicLevelBytes);
    put(b, "target_file_size_base", targetFileSizeBase);
    put(b, "target_file_size_multiplier", targetFileSizeMultiplier);
    put(b, "compaction_pri", compactionPriority.getValue());
    put(b, "disable_auto_compactions", disableAutoCompactions);
    put(b, "compaction_style", compactionStyle.getValue());
    compactionOptionsUniversal.appendTo(b);
    compactionOptionsFIFO.appendTo(b);
    put(b, "ttl", ttl);
    put(b, "compression", compressionType.getValue());
    StringBuilder levels = new StringBuilder();
    for (CompressionType t : compressionPerLevel) {
      if (levels.length() > 0) {
        levels.append(',');
      }
      levels.append(t.getValue());
    }
    put(b, "compression_per_level", levels);
    put(b, "bottommost_compression", bottommostCompressionType.getValue());
    compressionOptions.appendTo(b, "compression_opts");
    bottommostCompressionOptions.appendTo(b, "bottommost_compression_opts");
    put(b, "prefix_extractor", prefixExtractor);
    put(b, "stats_dump_period_sec", statsDumpPeriodSec);
    put(b, "info_log_level", infoLogLevel.getValue());
    put(b, "max_log_file_size", maxLogFileSize);
    put(b, "keep_log_file_num", keepLogFileNum);
    if (mergeOperatorName != null) {
      put(b, "merge_operator", mergeOperatorName);
    }
    tableFormatConfig.appendTo(b);
    return b.toString();
  }

  /** Sets this object's prefix extractor to {@code other}'s (or none). */
  void copyPrefixExtractor(Options other) {
    prefixExtractor = other.prefixExtractor;
  }

  /** @return the merge operator object set, or null */
  MergeOperator mergeOperatorObject() {
    return mergeOperator;
  }

  static void put(StringBuilder b, String name, Object value) {
    String v = String.valueOf(value);
    if (v.indexOf('\n') >= 0) {
      throw new IllegalArgumentException(name + " must not contain a line break");
    }
    b.append(name).append('=').append(v).append('\n');
  }
}
