package dev.talus;

import java.util.Objects;

/**
 * The database-wide options, as RocksJava's {@code DBOptions}: creation, WAL, background
 * threads, limits, statistics, logging. Names, defaults and accepted values are those of {@link
 * Options}, which is the union of these and {@link ColumnFamilyOptions}. {@link #close()} marks
 * the object closed; later use throws {@link IllegalStateException}.
 */
public class DBOptions extends PlainCloseable {
  private final Options options;

  /** Options with RocksDB's defaults (see {@link Options}). */
  public DBOptions() {
    this.options = new Options();
  }

  /**
   * The database-wide fields of {@code options}.
   *
   * @param options the options to copy from
   */
  public DBOptions(Options options) {
    this.options = new Options(Objects.requireNonNull(options, "options"));
  }

  /**
   * As {@link Options#setCreateIfMissing(boolean)}.
   *
   * @param flag the value
   * @return this
   */
  public DBOptions setCreateIfMissing(boolean flag) {
    checkOpen();
    options.setCreateIfMissing(flag);
    return this;
  }

  /** @return as {@link Options#createIfMissing()} */
  public boolean createIfMissing() {
    checkOpen();
    return options.createIfMissing();
  }

  /**
   * As {@link Options#setCreateMissingColumnFamilies(boolean)}.
   *
   * @param flag the value
   * @return this
   */
  public DBOptions setCreateMissingColumnFamilies(boolean flag) {
    checkOpen();
    options.setCreateMissingColumnFamilies(flag);
    return this;
  }

  /** @return as {@link Options#createMissingColumnFamilies()} */
  public boolean createMissingColumnFamilies() {
    checkOpen();
    return options.createMissingColumnFamilies();
  }

  /**
   * As {@link Options#setErrorIfExists(boolean)}.
   *
   * @param flag the value
   * @return this
   */
  public DBOptions setErrorIfExists(boolean flag) {
    checkOpen();
    options.setErrorIfExists(flag);
    return this;
  }

  /** @return as {@link Options#errorIfExists()} */
  public boolean errorIfExists() {
    checkOpen();
    return options.errorIfExists();
  }

  /**
   * As {@link Options#setParanoidChecks(boolean)}.
   *
   * @param flag the value
   * @return this
   */
  public DBOptions setParanoidChecks(boolean flag) {
    checkOpen();
    options.setParanoidChecks(flag);
    return this;
  }

  /** @return as {@link Options#paranoidChecks()} */
  public boolean paranoidChecks() {
    checkOpen();
    return options.paranoidChecks();
  }

  /**
   * As {@link Options#setUseFsync(boolean)}.
   *
   * @param useFsync the value
   * @return this
   */
  public DBOptions setUseFsync(boolean useFsync) {
    checkOpen();
    options.setUseFsync(useFsync);
    return this;
  }

  /** @return as {@link Options#useFsync()} */
  public boolean useFsync() {
    checkOpen();
    return options.useFsync();
  }

  /**
   * As {@link Options#setAllowFAllocate(boolean)}.
   *
   * @param allowFAllocate the value
   * @return this
   */
  public DBOptions setAllowFAllocate(boolean allowFAllocate) {
    checkOpen();
    options.setAllowFAllocate(allowFAllocate);
    return this;
  }

  /** @return as {@link Options#allowFAllocate()} */
  public boolean allowFAllocate() {
    checkOpen();
    return options.allowFAllocate();
  }

  /**
   * As {@link Options#setWalDir(String)}.
   *
   * @param walDir the value
   * @return this
   */
  public DBOptions setWalDir(String walDir) {
    checkOpen();
    options.setWalDir(walDir);
    return this;
  }

  /** @return as {@link Options#walDir()} */
  public String walDir() {
    checkOpen();
    return options.walDir();
  }

  /**
   * As {@link Options#setWalRecoveryMode(WALRecoveryMode)}.
   *
   * @param mode the value
   * @return this
   */
  public DBOptions setWalRecoveryMode(WALRecoveryMode mode) {
    checkOpen();
    options.setWalRecoveryMode(mode);
    return this;
  }

  /** @return as {@link Options#walRecoveryMode()} */
  public WALRecoveryMode walRecoveryMode() {
    checkOpen();
    return options.walRecoveryMode();
  }

  /**
   * As {@link Options#setWalBytesPerSync(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public DBOptions setWalBytesPerSync(long bytes) {
    checkOpen();
    options.setWalBytesPerSync(bytes);
    return this;
  }

  /** @return as {@link Options#walBytesPerSync()} */
  public long walBytesPerSync() {
    checkOpen();
    return options.walBytesPerSync();
  }

  /**
   * As {@link Options#setBytesPerSync(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public DBOptions setBytesPerSync(long bytes) {
    checkOpen();
    options.setBytesPerSync(bytes);
    return this;
  }

  /** @return as {@link Options#bytesPerSync()} */
  public long bytesPerSync() {
    checkOpen();
    return options.bytesPerSync();
  }

  /**
   * As {@link Options#setMaxBackgroundJobs(int)}.
   *
   * @param jobs the value
   * @return this
   */
  public DBOptions setMaxBackgroundJobs(int jobs) {
    checkOpen();
    options.setMaxBackgroundJobs(jobs);
    return this;
  }

  /** @return as {@link Options#maxBackgroundJobs()} */
  public int maxBackgroundJobs() {
    checkOpen();
    return options.maxBackgroundJobs();
  }

  /**
   * As {@link Options#setMaxBackgroundCompactions(int)}.
   *
   * @param n the value
   * @return this
   */
  public DBOptions setMaxBackgroundCompactions(int n) {
    checkOpen();
    options.setMaxBackgroundCompactions(n);
    return this;
  }

  /** @return as {@link Options#maxBackgroundCompactions()} */
  public int maxBackgroundCompactions() {
    checkOpen();
    return options.maxBackgroundCompactions();
  }

  /**
   * As {@link Options#setMaxBackgroundFlushes(int)}.
   *
   * @param n the value
   * @return this
   */
  public DBOptions setMaxBackgroundFlushes(int n) {
    checkOpen();
    options.setMaxBackgroundFlushes(n);
    return this;
  }

  /** @return as {@link Options#maxBackgroundFlushes()} */
  public int maxBackgroundFlushes() {
    checkOpen();
    return options.maxBackgroundFlushes();
  }

  /**
   * As {@link Options#setMaxSubcompactions(int)}.
   *
   * @param n the bound, at least 0
   * @return this
   */
  public DBOptions setMaxSubcompactions(int n) {
    checkOpen();
    options.setMaxSubcompactions(n);
    return this;
  }

  /** @return as {@link Options#maxSubcompactions()} */
  public int maxSubcompactions() {
    checkOpen();
    return options.maxSubcompactions();
  }

  /**
   * As {@link Options#setMaxOpenFiles(int)}.
   *
   * @param n the value
   * @return this
   */
  public DBOptions setMaxOpenFiles(int n) {
    checkOpen();
    options.setMaxOpenFiles(n);
    return this;
  }

  /** @return as {@link Options#maxOpenFiles()} */
  public int maxOpenFiles() {
    checkOpen();
    return options.maxOpenFiles();
  }

  /**
   * As {@link Options#setDelayedWriteRate(long)}.
   *
   * @param bytesPerSecond the value
   * @return this
   */
  public DBOptions setDelayedWriteRate(long bytesPerSecond) {
    checkOpen();
    options.setDelayedWriteRate(bytesPerSecond);
    return this;
  }

  /** @return as {@link Options#delayedWriteRate()} */
  public long delayedWriteRate() {
    checkOpen();
    return options.delayedWriteRate();
  }

  /**
   * As {@link Options#setMaxTotalWalSize(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public DBOptions setMaxTotalWalSize(long bytes) {
    checkOpen();
    options.setMaxTotalWalSize(bytes);
    return this;
  }

  /** @return as {@link Options#maxTotalWalSize()} */
  public long maxTotalWalSize() {
    checkOpen();
    return options.maxTotalWalSize();
  }

  /**
   * As {@link Options#setManualFlushEnabled(boolean)}.
   *
   * @param flag the value
   * @return this
   */
  public DBOptions setManualFlushEnabled(boolean flag) {
    checkOpen();
    options.setManualFlushEnabled(flag);
    return this;
  }

  /** @return as {@link Options#manualFlushEnabled()} */
  public boolean manualFlushEnabled() {
    checkOpen();
    return options.manualFlushEnabled();
  }

  /**
   * As {@link Options#setMaxConcurrentWriters(int)}.
   *
   * @param writers the value
   * @return this
   */
  public DBOptions setMaxConcurrentWriters(int writers) {
    checkOpen();
    options.setMaxConcurrentWriters(writers);
    return this;
  }

  /** @return as {@link Options#maxConcurrentWriters()} */
  public int maxConcurrentWriters() {
    checkOpen();
    return options.maxConcurrentWriters();
  }

  /**
   * As {@link Options#setRateLimiter(RateLimiter)}.
   *
   * @param rateLimiter the value
   * @return this
   */
  public DBOptions setRateLimiter(RateLimiter rateLimiter) {
    checkOpen();
    options.setRateLimiter(rateLimiter);
    return this;
  }

  /**
   * As {@link Options#setEnv(Env)}.
   *
   * @param env the value
   * @return this
   */
  public DBOptions setEnv(Env env) {
    checkOpen();
    options.setEnv(env);
    return this;
  }

  /**
   * As {@link Options#setStatistics(Statistics)}.
   *
   * @param statistics the value
   * @return this
   */
  public DBOptions setStatistics(Statistics statistics) {
    checkOpen();
    options.setStatistics(statistics);
    return this;
  }

  /** @return as {@link Options#statistics()} */
  public Statistics statistics() {
    checkOpen();
    return options.statistics();
  }

  /**
   * As {@link Options#setLogger(Logger)}.
   *
   * @param logger the value
   * @return this
   */
  public DBOptions setLogger(Logger logger) {
    checkOpen();
    options.setLogger(logger);
    return this;
  }

  /**
   * As {@link Options#setInfoLogLevel(InfoLogLevel)}.
   *
   * @param level the value
   * @return this
   */
  public DBOptions setInfoLogLevel(InfoLogLevel level) {
    checkOpen();
    options.setInfoLogLevel(level);
    return this;
  }

  /** @return as {@link Options#infoLogLevel()} */
  public InfoLogLevel infoLogLevel() {
    checkOpen();
    return options.infoLogLevel();
  }

  /**
   * As {@link Options#setMaxLogFileSize(long)}.
   *
   * @param bytes the value
   * @return this
   */
  public DBOptions setMaxLogFileSize(long bytes) {
    checkOpen();
    options.setMaxLogFileSize(bytes);
    return this;
  }

  /** @return as {@link Options#maxLogFileSize()} */
  public long maxLogFileSize() {
    checkOpen();
    return options.maxLogFileSize();
  }

  /**
   * As {@link Options#setKeepLogFileNum(long)}.
   *
   * @param n the value
   * @return this
   */
  public DBOptions setKeepLogFileNum(long n) {
    checkOpen();
    options.setKeepLogFileNum(n);
    return this;
  }

  /** @return as {@link Options#keepLogFileNum()} */
  public long keepLogFileNum() {
    checkOpen();
    return options.keepLogFileNum();
  }

  /**
   * As {@link Options#setStatsDumpPeriodSec(int)}.
   *
   * @param seconds the value
   * @return this
   */
  public DBOptions setStatsDumpPeriodSec(int seconds) {
    checkOpen();
    options.setStatsDumpPeriodSec(seconds);
    return this;
  }

  /** @return as {@link Options#statsDumpPeriodSec()} */
  public int statsDumpPeriodSec() {
    checkOpen();
    return options.statsDumpPeriodSec();
  }

  /** The options object holding the values (package-private, for open). */
  Options options() {
    checkOpen();
    return options;
  }
}
