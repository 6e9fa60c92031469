package dev.talus;

/** Options of a restore, as RocksJava's {@code RestoreOptions}. */
public class RestoreOptions extends PlainCloseable {
  private final boolean keepLogFiles;

  /**
   * @param keepLogFiles keep the write-ahead logs already in the WAL directory and restore none
   *     from the backup (default in RocksJava's other constructors: false)
   */
  public RestoreOptions(boolean keepLogFiles) {
    this.keepLogFiles = keepLogFiles;
  }

  /** @return whether the WAL directory's logs are kept */
  public boolean keepLogFiles() {
    checkOpen();
    return keepLogFiles;
  }
}
