package dev.talus;

/** One backup, as RocksJava's {@code BackupInfo} ({@link BackupEngine#getBackupInfo()}). */
public class BackupInfo {
  private final int backupId;
  private final long timestamp;
  private final long size;
  private final int numberFiles;
  private final String appMetadata;

  BackupInfo(int backupId, long timestamp, long size, int numberFiles, String appMetadata) {
    this.backupId = backupId;
    this.timestamp = timestamp;
    this.size = size;
    this.numberFiles = numberFiles;
    this.appMetadata = appMetadata;
  }

  /** @return the backup's id (1, 2, ... in creation order) */
  public int backupId() {
    return backupId;
  }

  /** @return when it was made, in seconds since the Unix epoch */
  public long timestamp() {
    return timestamp;
  }

  /** @return bytes of its files (a shared table counted in every backup holding it) */
  public long size() {
    return size;
  }

  /** @return the number of its files */
  public int numberFiles() {
    return numberFiles;
  }

  /** @return the metadata given to {@link BackupEngine#createNewBackupWithMetadata}, or "" */
  public String appMetadata() {
    return appMetadata;
  }
}
