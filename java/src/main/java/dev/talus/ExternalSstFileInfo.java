package dev.talus;

/**
 * What {@link SstFileWriter#finish()} wrote, as RocksJava's {@code ExternalSstFileInfo}. A plain,
 * immutable Java object.
 */
public class ExternalSstFileInfo {
  private final String filePath;
  private final byte[] smallestKey;
  private final byte[] largestKey;
  private final long sequenceNumber;
  private final long fileSize;
  private final long numEntries;
  private final long numRangeDelEntries;
  private final int version;

  ExternalSstFileInfo(Object[] fields) {
    long[] n = (long[]) fields[3];
    this.filePath = (String) fields[0];
    this.smallestKey = (byte[]) fields[1];
    this.largestKey = (byte[]) fields[2];
    this.sequenceNumber = n[0];
    this.fileSize = n[1];
    this.numEntries = n[2];
    this.numRangeDelEntries = n[3];
    this.version = (int) n[4];
  }

  /** @return the path of the file written */
  public String filePath() {
    return filePath;
  }

  /** @return the smallest key of a put, merge or delete (empty when there is none); a copy */
  public byte[] smallestKey() {
    return smallestKey.clone();
  }

  /** @return the largest key of a put, merge or delete (empty when there is none); a copy */
  public byte[] largestKey() {
    return largestKey.clone();
  }

  /**
   * @return the sequence number of the file's entries: always 0 (the global sequence number is
   *     assigned at ingestion)
   */
  public long sequenceNumber() {
    return sequenceNumber;
  }

  /** @return the size of the file, in bytes */
  public long fileSize() {
    return fileSize;
  }

  /** @return the number of puts, merges and deletes in the file */
  public long numEntries() {
    return numEntries;
  }

  /** @return the number of range deletions in the file */
  public long numRangeDelEntries() {
    return numRangeDelEntries;
  }

  /** @return the external-file version of Talus's table format (1) */
  public int version() {
    return version;
  }
}
