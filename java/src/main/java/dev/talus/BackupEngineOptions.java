package dev.talus;

import java.util.Objects;

/**
 * Options of a {@link BackupEngine}, as RocksJava's {@code BackupEngineOptions}. Setters return
 * {@code this}; every getter and setter throws {@link IllegalStateException} after close.
 *
 * <p>Not honoured, so refused with {@link UnsupportedOperationException} naming the option:
 * {@link #setInfoLog(Logger)}, {@link #setBackupRateLimiter(RateLimiter)}, {@link
 * #setRestoreRateLimiter(RateLimiter)}, a non-zero {@link #setBackupRateLimit(long)} or {@link
 * #setRestoreRateLimit(long)}, and {@code setShareFilesWithChecksum(false)} (shared tables are
 * always named by number, checksum and size).
 */
public class BackupEngineOptions extends PlainCloseable {
  private final String backupDir;
  private boolean shareTableFiles = true;
  private boolean sync = true;
  private boolean destroyOldData;
  private boolean backupLogFiles = true;
  private int maxBackgroundOperations = 1;
  private long callbackTriggerIntervalSize = 4L * 1024 * 1024;
  private Env backupEnv = Env.getDefault();

  /**
   * @param path the backup directory (created if missing; it must not be a file)
   */
  public BackupEngineOptions(String path) {
    this.backupDir = Objects.requireNonNull(path, "path");
  }

  /** @return the backup directory */
  public String backupDir() {
    checkOpen();
    return backupDir;
  }

  /**
   * The environment of the backup directory. Talus has one, the default.
   *
   * @param env {@link Env#getDefault()}
   * @return this
   */
  public BackupEngineOptions setBackupEnv(Env env) {
    checkOpen();
    this.backupEnv = Objects.requireNonNull(env, "env");
    return this;
  }

  /** @return the environment, {@link Env#getDefault()} */
  public Env backupEnv() {
    checkOpen();
    return backupEnv;
  }

  /**
   * Share table files between backups: a table in several backups is copied once, under a name
   * made of its number, checksum and size. Default true.
   *
   * @param shareTableFiles the value
   * @return this
   */
  public BackupEngineOptions setShareTableFiles(boolean shareTableFiles) {
    checkOpen();
    this.shareTableFiles = shareTableFiles;
    return this;
  }

  /** @return whether table files are shared (default true) */
  public boolean shareTableFiles() {
    checkOpen();
    return shareTableFiles;
  }

  /**
   * Not supported: throws.
   *
   * @param logger ignored
   * @return never
   * @throws UnsupportedOperationException always
   */
  public BackupEngineOptions setInfoLog(Logger logger) {
    throw new UnsupportedOperationException(
        "BackupEngineOptions.setInfoLog: the backup engine reports through exceptions only");
  }

  /** @return null: the backup engine has no info log */
  public Logger infoLog() {
    checkOpen();
    return null;
  }

  /**
   * Sync every copied file and directory before a backup is committed. Default true; false
   * makes backups cheaper and lets a power loss damage the backup being written (a later {@link
   * BackupEngine#verifyBackup(int)} finds it).
   *
   * @param sync the value
   * @return this
   */
  public BackupEngineOptions setSync(boolean sync) {
    checkOpen();
    this.sync = sync;
    return this;
  }

  /** @return whether copies are synced (default true) */
  public boolean sync() {
    checkOpen();
    return sync;
  }

  /**
   * Delete every backup in the directory when the engine opens. Default false.
   *
   * @param destroyOldData the value
   * @return this
   */
  public BackupEngineOptions setDestroyOldData(boolean destroyOldData) {
    checkOpen();
    this.destroyOldData = destroyOldData;
    return this;
  }

  /** @return whether old backups are deleted at open (default false) */
  public boolean destroyOldData() {
    checkOpen();
    return destroyOldData;
  }

  /**
   * Back up the live write-ahead logs too, so a backup made without a flush holds the writes not
   * yet in tables. Default true.
   *
   * @param backupLogFiles the value
   * @return this
   */
  public BackupEngineOptions setBackupLogFiles(boolean backupLogFiles) {
    checkOpen();
    this.backupLogFiles = backupLogFiles;
    return this;
  }

  /** @return whether logs are backed up (default true) */
  public boolean backupLogFiles() {
    checkOpen();
    return backupLogFiles;
  }

  /**
   * Rate limit of backups in bytes per second: only 0 (none, the default) is supported.
   *
   * @param backupRateLimit 0
   * @return this
   * @throws UnsupportedOperationException for any other value
   */
  public BackupEngineOptions setBackupRateLimit(long backupRateLimit) {
    checkOpen();
    if (backupRateLimit > 0) {
      throw new UnsupportedOperationException("BackupEngineOptions.setBackupRateLimit");
    }
    return this;
  }

  /** @return 0: backups are not rate limited */
  public long backupRateLimit() {
    checkOpen();
    return 0;
  }

  /**
   * Not supported: throws.
   *
   * @param rateLimiter ignored
   * @return never
   * @throws UnsupportedOperationException always
   */
  public BackupEngineOptions setBackupRateLimiter(RateLimiter rateLimiter) {
    throw new UnsupportedOperationException("BackupEngineOptions.setBackupRateLimiter");
  }

  /** @return null: no rate limiter */
  public RateLimiter backupRateLimiter() {
    checkOpen();
    return null;
  }

  /**
   * Rate limit of restores in bytes per second: only 0 (none, the default) is supported.
   *
   * @param restoreRateLimit 0
   * @return this
   * @throws UnsupportedOperationException for any other value
   */
  public BackupEngineOptions setRestoreRateLimit(long restoreRateLimit) {
    checkOpen();
    if (restoreRateLimit > 0) {
      throw new UnsupportedOperationException("BackupEngineOptions.setRestoreRateLimit");
    }
    return this;
  }

  /** @return 0: restores are not rate limited */
  public long restoreRateLimit() {
    checkOpen();
    return 0;
  }

  /**
   * Not supported: throws.
   *
   * @param rateLimiter ignored
   * @return never
   * @throws UnsupportedOperationException always
   */
  public BackupEngineOptions setRestoreRateLimiter(RateLimiter rateLimiter) {
    throw new UnsupportedOperationException("BackupEngineOptions.setRestoreRateLimiter");
  }

  /** @return null: no rate limiter */
  public RateLimiter restoreRateLimiter() {
    checkOpen();
    return null;
  }

  /**
   * Name shared tables by checksum too: always so in Talus (true is accepted, false throws).
   *
   * @param shareFilesWithChecksum true
   * @return this
   * @throws UnsupportedOperationException for false
   */
  public BackupEngineOptions setShareFilesWithChecksum(boolean shareFilesWithChecksum) {
    checkOpen();
    if (!shareFilesWithChecksum) {
      throw new UnsupportedOperationException(
          "BackupEngineOptions.setShareFilesWithChecksum(false): shared tables are always named"
              + " by number, checksum and size");
    }
    return this;
  }

  /** @return true */
  public boolean shareFilesWithChecksum() {
    checkOpen();
    return true;
  }

  /**
   * Files a backup copies at once (tables are spread over this many threads). Default 1.
   *
   * @param maxBackgroundOperations at least 1
   * @return this
   * @throws IllegalArgumentException below 1
   */
  public BackupEngineOptions setMaxBackgroundOperations(int maxBackgroundOperations) {
    checkOpen();
    if (maxBackgroundOperations < 1) {
      throw new IllegalArgumentException(
          "maxBackgroundOperations must be at least 1, got " + maxBackgroundOperations);
    }
    this.maxBackgroundOperations = maxBackgroundOperations;
    return this;
  }

  /** @return files copied at once (default 1) */
  public int maxBackgroundOperations() {
    checkOpen();
    return maxBackgroundOperations;
  }

  /**
   * Bytes between progress callbacks (default 4 MiB). Kept for RocksJava compatibility: RocksJava
   * exposes no progress callback, so it has no effect there either.
   *
   * @param callbackTriggerIntervalSize bytes
   * @return this
   */
  public BackupEngineOptions setCallbackTriggerIntervalSize(long callbackTriggerIntervalSize) {
    checkOpen();
    this.callbackTriggerIntervalSize = callbackTriggerIntervalSize;
    return this;
  }

  /** @return bytes between progress callbacks */
  public long callbackTriggerIntervalSize() {
    checkOpen();
    return callbackTriggerIntervalSize;
  }
}
