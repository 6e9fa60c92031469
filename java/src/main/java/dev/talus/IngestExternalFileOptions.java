package dev.talus;

/**
 * Options of {@link TalusDB#ingestExternalFile(java.util.List, IngestExternalFileOptions)}, as
 * RocksJava's {@code IngestExternalFileOptions}, with RocksDB's defaults. A plain Java object.
 */
public class IngestExternalFileOptions extends PlainCloseable {
  private boolean moveFiles;
  private boolean snapshotConsistency = true;
  private boolean allowGlobalSeqNo = true;
  private boolean allowBlockingFlush = true;
  private boolean ingestBehind;
  private boolean failIfNotBottommostLevel;

  /** Default options: copy, snapshot consistency, global seqno and blocking flush allowed. */
  public IngestExternalFileOptions() {}

  /**
   * RocksJava's four-argument constructor.
   *
   * @param moveFiles see {@link #setMoveFiles(boolean)}
   * @param snapshotConsistency see {@link #setSnapshotConsistency(boolean)}
   * @param allowGlobalSeqNo see {@link #setAllowGlobalSeqNo(boolean)}
   * @param allowBlockingFlush see {@link #setAllowBlockingFlush(boolean)}
   */
  public IngestExternalFileOptions(
      boolean moveFiles,
      boolean snapshotConsistency,
      boolean allowGlobalSeqNo,
      boolean allowBlockingFlush) {
    this.moveFiles = moveFiles;
    this.snapshotConsistency = snapshotConsistency;
    this.allowGlobalSeqNo = allowGlobalSeqNo;
    this.allowBlockingFlush = allowBlockingFlush;
  }

  /**
   * Hard link the files into the database and remove their original names once ingested; when the
   * link fails (another file system) the file is copied. Default false: copy, originals kept.
   *
   * @param moveFiles true to move
   * @return this
   */
  public IngestExternalFileOptions setMoveFiles(boolean moveFiles) {
    checkOpen();
    this.moveFiles = moveFiles;
    return this;
  }

  /** @return whether files are moved (default false) */
  public boolean moveFiles() {
    checkOpen();
    return moveFiles;
  }

  /**
   * Give the files a global sequence number when snapshots exist, so that snapshots taken before
   * the ingestion do not see its rows. Default true.
   *
   * @param snapshotConsistency true for consistency
   * @return this
   */
  public IngestExternalFileOptions setSnapshotConsistency(boolean snapshotConsistency) {
    checkOpen();
    this.snapshotConsistency = snapshotConsistency;
    return this;
  }

  /** @return whether snapshots are kept consistent (default true) */
  public boolean snapshotConsistency() {
    checkOpen();
    return snapshotConsistency;
  }

  /**
   * Allow a global sequence number (needed when the files overlap data in the family or, with
   * snapshot consistency, snapshots exist); when needed and not allowed the ingestion fails with
   * {@code InvalidArgument}. Default true.
   *
   * @param allowGlobalSeqNo true to allow
   * @return this
   */
  public IngestExternalFileOptions setAllowGlobalSeqNo(boolean allowGlobalSeqNo) {
    checkOpen();
    this.allowGlobalSeqNo = allowGlobalSeqNo;
    return this;
  }

  /** @return whether a global sequence number is allowed (default true) */
  public boolean allowGlobalSeqNo() {
    checkOpen();
    return allowGlobalSeqNo;
  }

  /**
   * Flush the memtable when it overlaps a file (writes wait meanwhile); when false such an
   * ingestion fails with {@code InvalidArgument}. Default true.
   *
   * @param allowBlockingFlush true to allow
   * @return this
   */
  public IngestExternalFileOptions setAllowBlockingFlush(boolean allowBlockingFlush) {
    checkOpen();
    this.allowBlockingFlush = allowBlockingFlush;
    return this;
  }

  /** @return whether a blocking flush is allowed (default true) */
  public boolean allowBlockingFlush() {
    checkOpen();
    return allowBlockingFlush;
  }

  /**
   * Put the files under all existing data, in the last level at sequence 0 (existing versions of
   * their keys win). Needs {@link Options#setAllowIngestBehind(boolean)}. Default false.
   *
   * @param ingestBehind true to ingest behind
   * @return this
   */
  public IngestExternalFileOptions setIngestBehind(boolean ingestBehind) {
    checkOpen();
    this.ingestBehind = ingestBehind;
    return this;
  }

  /** @return whether files are ingested behind (default false) */
  public boolean ingestBehind() {
    checkOpen();
    return ingestBehind;
  }

  /**
   * Fail unless every file goes to the last level ({@code InvalidArgument}; RocksDB returns {@code
   * TryAgain}). Default false.
   *
   * @param failIfNotBottommostLevel true to require the last level
   * @return this
   */
  public IngestExternalFileOptions setFailIfNotBottommostLevel(boolean failIfNotBottommostLevel) {
    checkOpen();
    this.failIfNotBottommostLevel = failIfNotBottommostLevel;
    return this;
  }

  /** @return whether an ingestion not into the last level fails (default false) */
  public boolean failIfNotBottommostLevel() {
    checkOpen();
    return failIfNotBottommostLevel;
  }

  int flags() {
    checkOpen();
    return (moveFiles ? 1 : 0)
        | (snapshotConsistency ? 2 : 0)
        | (allowGlobalSeqNo ? 4 : 0)
        | (allowBlockingFlush ? 8 : 0)
        | (ingestBehind ? 16 : 0)
        | (failIfNotBottommostLevel ? 32 : 0);
  }
}
