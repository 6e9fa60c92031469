package dev.talus;

import dev.talus.internal.NativeHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Numbered, incremental, checksummed backups of a database, as RocksJava's {@code
 * BackupEngine}.
 *
 * <p>Each backup copies the files of a consistent point of the database (the live write-ahead
 * logs too, with {@link BackupEngineOptions#setBackupLogFiles(boolean)}); with {@link
 * BackupEngineOptions#setShareTableFiles(boolean)} (the default) a table file is stored once in
 * {@code shared_checksum/}, named by its number, XXH64 checksum and size, and later backups that
 * hold it copy nothing. Every file's size and checksum are recorded in the backup's meta file
 * (written to a temporary name, synced, renamed: the commit point), checked by {@link
 * #verifyBackup(int)} and while restoring; a damaged file is named in the {@code Corruption}
 * error. A crash while backing up leaves no backup and files the next open deletes.
 *
 * <p>Thread-safe (calls are serialized). After {@link #close()} every method throws {@link
 * IllegalStateException}. One engine at a time should use a backup directory.
 */
public class BackupEngine extends NativeHandle {
  private BackupEngine(long handle) {
    super(handle);
  }

  /**
   * Opens the backup directory of {@code options}, creating it if missing, and deletes what no
   * committed backup names (left by a crash).
   *
   * @param env the environment ({@link Env#getDefault()}, Talus's only one)
   * @param options the options (read now; they may be closed afterwards)
   * @return the engine
   * @throws TalusException {@code InvalidArgument} when the backup directory is a file
   */
  public static BackupEngine open(Env env, BackupEngineOptions options) throws TalusException {
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(options, "options");
    NativeLibrary.load();
    return new BackupEngine(nativeOpen(options.backupDir(), options.shareTableFiles(),
        options.sync(), options.destroyOldData(), options.backupLogFiles(),
        options.maxBackgroundOperations()));
  }

  /**
   * Backs up {@code db} without flushing first (the logs hold what the tables do not, with
   * {@code backupLogFiles}).
   *
   * @param db an open database (not read-only)
   * @throws TalusException when a copy fails (no backup is made)
   */
  public void createNewBackup(TalusDB db) throws TalusException {
    createNewBackup(db, false);
  }

  /**
   * Backs up {@code db}, flushing its memtables first when {@code flushBeforeBackup}.
   *
   * @param db an open database (not read-only)
   * @param flushBeforeBackup flush first
   * @throws TalusException when a copy fails (no backup is made); {@code NotSupported} for a
   *     read-only or secondary instance
   */
  public void createNewBackup(TalusDB db, boolean flushBeforeBackup) throws TalusException {
    create(db, null, flushBeforeBackup);
  }

  /**
   * {@link #createNewBackup(TalusDB, boolean)} recording {@code metadata} with the backup
   * ({@link BackupInfo#appMetadata()}).
   *
   * @param db an open database
   * @param metadata any text (stored as UTF-8)
   * @param flushBeforeBackup flush first
   * @throws TalusException as {@link #createNewBackup(TalusDB, boolean)}
   */
  public void createNewBackupWithMetadata(TalusDB db, String metadata, boolean flushBeforeBackup)
      throws TalusException {
    Objects.requireNonNull(metadata, "metadata");
    create(db, metadata.getBytes(StandardCharsets.UTF_8), flushBeforeBackup);
  }

  private void create(TalusDB db, byte[] metadata, boolean flush) throws TalusException {
    Objects.requireNonNull(db, "db");
    long h = acquire();
    try {
      db.withHandle(d -> nativeCreateNewBackup(h, d, metadata, flush));
    } finally {
      release();
    }
  }

  /**
   * Every readable backup, oldest first.
   *
   * @return the backups
   */
  public List<BackupInfo> getBackupInfo() {
    long h = acquire();
    try {
      Object[] r = nativeGetBackupInfo(h);
      long[] nums = (long[]) r[0];
      byte[][] metas = (byte[][]) r[1];
      List<BackupInfo> out = new ArrayList<>(metas.length);
      for (int i = 0; i < metas.length; i++) {
        out.add(new BackupInfo((int) nums[4 * i], nums[4 * i + 1], nums[4 * i + 2],
            (int) nums[4 * i + 3], new String(metas[i], StandardCharsets.UTF_8)));
      }
      return out;
    } catch (TalusException e) {
      throw new IllegalStateException(e);
    } finally {
      release();
    }
  }

  /**
   * Checks every file of backup {@code backupId}: present, of its recorded size, with its
   * recorded XXH64 checksum (RocksDB checks sizes only unless asked for checksums).
   *
   * @param backupId the backup
   * @throws TalusException {@code Corruption} naming the first damaged or missing file; {@code
   *     NotFound} ("Backup not found") for an unknown id
   */
  public void verifyBackup(int backupId) throws TalusException {
    op(0, backupId);
  }

  /**
   * Deletes backup {@code backupId} (its meta file first, then the files no other backup uses).
   *
   * @param backupId the backup
   * @throws TalusException {@code NotFound} for an unknown id
   */
  public void deleteBackup(int backupId) throws TalusException {
    op(1, backupId);
  }

  /**
   * Deletes the oldest backups until at most {@code numBackupsToKeep} are left.
   *
   * @param numBackupsToKeep backups to keep, at least 0
   * @throws TalusException when a deletion fails
   */
  public void purgeOldBackups(int numBackupsToKeep) throws TalusException {
    if (numBackupsToKeep < 0) {
      throw new IllegalArgumentException("numBackupsToKeep must not be negative");
    }
    op(2, numBackupsToKeep);
  }

  private void op(int what, int id) throws TalusException {
    long h = acquire();
    try {
      nativeBackupOp(h, what, id);
    } finally {
      release();
    }
  }

  /**
   * Restores backup {@code backupId} into {@code dbDir} (the logs into {@code walDir}): the
   * database files there are replaced (an open database there makes it fail with the {@code
   * LOCK} error, untouched), every file's size and checksum is checked as it is copied, and
   * {@code CURRENT} is written last, so an interrupted or failed restore leaves a directory that
   * does not open ("CURRENT is missing").
   *
   * @param backupId the backup
   * @param dbDir the database directory to restore into (created if missing)
   * @param walDir the directory for the logs (usually {@code dbDir})
   * @param restoreOptions the options
   * @throws TalusException {@code NotFound} for an unknown id; {@code Corruption} naming a
   *     damaged backup file
   */
  public void restoreDbFromBackup(int backupId, String dbDir, String walDir,
      RestoreOptions restoreOptions) throws TalusException {
    if (backupId < 0) {
      throw new IllegalArgumentException("backupId must not be negative: " + backupId);
    }
    restore(backupId, dbDir, walDir, restoreOptions);
  }

  /**
   * {@link #restoreDbFromBackup} of the newest backup.
   *
   * @param dbDir the database directory
   * @param walDir the directory for the logs
   * @param restoreOptions the options
   * @throws TalusException {@code NotFound} when there is no backup; as {@link
   *     #restoreDbFromBackup} otherwise
   */
  public void restoreDbFromLatestBackup(String dbDir, String walDir,
      RestoreOptions restoreOptions) throws TalusException {
    restore(-1, dbDir, walDir, restoreOptions);
  }

  private void restore(int id, String dbDir, String walDir, RestoreOptions ro)
      throws TalusException {
    Objects.requireNonNull(dbDir, "dbDir");
    Objects.requireNonNull(walDir, "walDir");
    Objects.requireNonNull(ro, "restoreOptions");
    boolean keep = ro.keepLogFiles();
    long h = acquire();
    try {
      nativeRestore(h, id, dbDir, walDir, keep);
    } finally {
      release();
    }
  }

  @Override
  protected void disposeInternal(long handle) {
    nativeDispose(handle);
  }

  private static native long nativeOpen(String dir, boolean share, boolean sync, boolean destroy,
      boolean logs, int threads) throws TalusException;

  private static native void nativeDispose(long h);

  private static native int nativeCreateNewBackup(long h, long db, byte[] metadata,
      boolean flush) throws TalusException;

  private static native Object[] nativeGetBackupInfo(long h) throws TalusException;

  private static native void nativeBackupOp(long h, int op, int id) throws TalusException;

  private static native void nativeRestore(long h, int id, String dbDir, String walDir,
      boolean keepLogFiles) throws TalusException;
}
