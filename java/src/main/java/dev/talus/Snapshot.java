package dev.talus;

import dev.talus.internal.NativeHandle;

/**
 * A pinned point in a database's history (RocksJava's {@code Snapshot}). Reads with {@link
 * ReadOptions#setSnapshot(Snapshot)} see the database as it was when the snapshot was taken.
 * Release it with {@link TalusDB#releaseSnapshot(Snapshot)} or {@link #close()}; closing the
 * database releases it too. A read holds the snapshot for its duration (a release waits for it);
 * a read with a released snapshot throws {@link IllegalStateException}, and a read of another
 * database than the snapshot's throws {@link IllegalArgumentException}.
 */
public class Snapshot extends NativeHandle {
  private final TalusDB db;
  private final long sequence;

  Snapshot(TalusDB db, long sequence) {
    // The handle is the sequence number; it names a registration in the database. Striped like
    // the database's own handle: every read at the snapshot holds it, often from many threads.
    super(sequence == 0 ? -1 : sequence, true, DEFAULT_STRIPES);
    this.db = db;
    this.sequence = sequence;
  }

  /** The sequence number, for a caller that holds an acquire of this snapshot. */
  long sequence() {
    return sequence;
  }

  /** The database this snapshot belongs to. */
  TalusDB database() {
    return db;
  }

  /** @return the sequence number reads at this snapshot see */
  public long getSequenceNumber() {
    acquire(); // throws IllegalStateException once released
    release();
    return sequence;
  }

  @Override
  protected void beforeDispose() {
    db.removeChild(this);
  }

  @Override
  protected void disposeInternal(long handle) {
    if (db.isClosed()) {
      return;
    }
    long h;
    try {
      h = db.acquireForChild();
    } catch (IllegalStateException closing) {
      return; // the database is closing: its snapshots go with it
    }
    try {
      TalusDB.nativeReleaseSnapshot(h, sequence);
    } catch (TalusException e) {
      throw new IllegalStateException("releaseSnapshot: " + e.getMessage(), e);
    } finally {
      db.releaseForChild();
    }
  }

  @Override
  public String toString() {
    return "Snapshot{sequence=" + sequence + "}";
  }
}
