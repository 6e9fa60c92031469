package dev.talus;

import java.util.Objects;

/**
 * Makes checkpoints of an open database, as RocksJava's {@code Checkpoint}: a directory that
 * opens as the database did at one point, the writes still only in the write-ahead log included.
 *
 * <p>{@link #createCheckpoint(String)} refuses a directory that exists, then builds the
 * checkpoint in {@code <dir>.tmp}: table files hard-linked where the directory is on the same
 * file system (copied otherwise), the manifest and the live write-ahead logs copied up to their
 * size at the point, a new {@code CURRENT} written last; each file synced, then the directory,
 * then it is renamed to {@code dir}. After a crash {@code dir} either holds the whole
 * checkpoint or does not exist (opening it fails with "does not exist"); the {@code <dir>.tmp}
 * an interrupted checkpoint leaves is removed by the next {@code createCheckpoint(dir)}. The
 * source is flushed first (as RocksDB does) and otherwise not written.
 *
 * <p>Thread-safe. Closing it does not close the database; after close every method throws
 * {@link IllegalStateException}, as after the database's close.
 */
public class Checkpoint extends PlainCloseable {
  private final TalusDB db;

  private Checkpoint(TalusDB db) {
    this.db = db;
  }

  /**
   * A checkpoint maker for {@code db}.
   *
   * @param db an open database (not read-only)
   * @return the checkpoint maker
   * @throws IllegalStateException if {@code db} is closed
   */
  public static Checkpoint create(TalusDB db) {
    Objects.requireNonNull(db, "db");
    db.checkOpen();
    return new Checkpoint(db);
  }

  /**
   * Writes a checkpoint of the database to {@code checkpointPath}, which must not exist and
   * whose parent must.
   *
   * @param checkpointPath the directory to create
   * @throws TalusException {@code InvalidArgument} when the directory exists ("Directory
   *     exists") or its parent does not; {@code NotSupported} on a read-only or secondary
   *     instance; {@code IOError} when a copy fails (nothing is left at {@code checkpointPath})
   */
  public void createCheckpoint(String checkpointPath) throws TalusException {
    Objects.requireNonNull(checkpointPath, "checkpointPath");
    checkOpen();
    db.withHandle(h -> {
      nativeCreateCheckpoint(h, checkpointPath);
      return null;
    });
  }

  private static native void nativeCreateCheckpoint(long db, String dir) throws TalusException;
}
