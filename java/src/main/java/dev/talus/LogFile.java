package dev.talus;

/** One live write-ahead log, as RocksJava's {@code LogFile} ({@link TalusDB#getSortedWalFiles()}). */
public class LogFile {
  private final String pathName;
  private final long logNumber;
  private final WalFileType type;
  private final long startSequence;
  private final long sizeFileBytes;

  LogFile(String pathName, long logNumber, WalFileType type, long startSequence,
      long sizeFileBytes) {
    this.pathName = pathName;
    this.logNumber = logNumber;
    this.type = type;
    this.startSequence = startSequence;
    this.sizeFileBytes = sizeFileBytes;
  }

  /** @return the name relative to the WAL directory, with a leading {@code /} */
  public String pathName() {
    return pathName;
  }

  /** @return the log number */
  public long logNumber() {
    return logNumber;
  }

  /** @return always {@link WalFileType#kAliveLogFile} in Talus */
  public WalFileType type() {
    return type;
  }

  /** @return the sequence number of the first write in the log */
  public long startSequence() {
    return startSequence;
  }

  /** @return the file's size in bytes when listed */
  public long sizeFileBytes() {
    return sizeFileBytes;
  }
}
