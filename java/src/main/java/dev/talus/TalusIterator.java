package dev.talus;

import dev.talus.internal.NativeHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * An iterator over a database at a snapshot, with RocksJava's {@code RocksIterator} methods.
 * Created by {@link TalusDB#newIterator(ReadOptions)}; close it when done (closing the database
 * closes it too). Not thread-safe: use one iterator from one thread at a time.
 *
 * <p>Each movement crosses into native code once; the engine copies the new entry into a direct
 * buffer this object owns, so {@link #key()}, {@link #value()} and {@link #isValid()} read Java
 * memory.
 */
public class TalusIterator extends NativeHandle {
  private static final int NOT_VALID = -1;
  private static final int TOO_BIG = -2;
  private static final int INITIAL_BUFFER = 64 * 1024;
  private static final int MAX_BUFFER = 16 * 1024 * 1024;

  private final TalusDB db;
  private ByteBuffer buffer;
  /** Bytes of the entry in the buffer, NOT_VALID, or TOO_BIG. */
  private int state = NOT_VALID;

  private TalusIterator(TalusDB db, long handle, ByteBuffer buffer) {
    super(handle, true, 1);
    this.db = db;
    this.buffer = buffer;
  }

  /**
   * Creates the native iterator. The caller holds acquires of the database and of the snapshot
   * {@code snapshot} names (see {@code TalusDB.newIterator}).
   */
  static TalusIterator create(TalusDB db, long dbHandle, int flags, long snapshot,
      ReadOptions ro) {
    ByteBuffer buf = ByteBuffer.allocateDirect(INITIAL_BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    long h;
    try {
      h = TalusDB.nativeNewIterator(dbHandle, flags, snapshot, ro.lowerBound(), ro.upperBound(),
          buf);
    } catch (TalusException e) {
      throw new IllegalStateException("newIterator: " + e.getMessage(), e);
    }
    return new TalusIterator(db, h, buf);
  }

  /** @return the database this iterator reads */
  public TalusDB getDatabase() {
    acquire(); // throws IllegalStateException once closed, as every other method
    release();
    return db;
  }

  /** @return true when positioned on an entry */
  public boolean isValid() {
    long h = acquire();
    release();
    return h != 0 && state != NOT_VALID;
  }

  /** Moves to the first entry (at or after the lower bound). */
  public void seekToFirst() {
    move(0);
  }

  /** Moves to the last entry (before the upper bound). */
  public void seekToLast() {
    move(1);
  }

  /**
   * Moves to the next entry.
   *
   * @throws IllegalStateException when not positioned on an entry
   */
  public void next() {
    move(2);
  }

  /**
   * Moves to the previous entry.
   *
   * @throws IllegalStateException when not positioned on an entry
   */
  public void prev() {
    move(3);
  }

  private void move(int op) {
    long h = acquire();
    try {
      if ((op == 2 || op == 3) && state == NOT_VALID) {
        throw new IllegalStateException("the iterator is not positioned on an entry");
      }
      state = nativeMove(h, op);
    } finally {
      release();
    }
  }

  /**
   * Moves to the first key at or after {@code target}.
   *
   * @param target the key to seek
   */
  public void seek(byte[] target) {
    Objects.requireNonNull(target, "target");
    seek(false, target);
  }

  /**
   * Moves to the last key at or before {@code target}.
   *
   * @param target the key to seek
   */
  public void seekForPrev(byte[] target) {
    Objects.requireNonNull(target, "target");
    seek(true, target);
  }

  /**
   * Moves to the first key at or after the key in {@code target} (position to limit); the
   * buffer's position moves to its limit.
   *
   * @param target the key, direct or heap buffer
   */
  public void seek(ByteBuffer target) {
    seekBuffer(false, target);
  }

  /**
   * Moves to the last key at or before the key in {@code target}; the buffer's position moves
   * to its limit.
   *
   * @param target the key, direct or heap buffer
   */
  public void seekForPrev(ByteBuffer target) {
    seekBuffer(true, target);
  }

  private void seek(boolean forPrev, byte[] target) {
    long h = acquire();
    try {
      state = nativeSeek(h, forPrev, target, 0, target.length);
    } finally {
      release();
    }
  }

  private void seekBuffer(boolean forPrev, ByteBuffer target) {
    Objects.requireNonNull(target, "target");
    if (target.isDirect()) {
      long h = acquire();
      try {
        state = nativeSeekDirect(h, forPrev, target, target.position(), target.remaining());
      } finally {
        release();
      }
    } else {
      byte[] k = new byte[target.remaining()];
      target.duplicate().get(k);
      seek(forPrev, k);
    }
    target.position(target.limit());
  }

  private void checkValid() {
    if (state == NOT_VALID) {
      throw new IllegalStateException("the iterator is not positioned on an entry");
    }
  }

  /** Grows the entry buffer for an oversized entry, or returns false when over the cap. */
  private boolean growFor(long h) {
    if (buffer.capacity() >= MAX_BUFFER) {
      return false;
    }
    int cap = Math.min(MAX_BUFFER, buffer.capacity() * 4);
    ByteBuffer grown = ByteBuffer.allocateDirect(cap).order(ByteOrder.LITTLE_ENDIAN);
    // The native side keeps a global reference to the buffer it writes, so the iterator (not
    // thread-safe) misused from two threads cannot leave it writing a freed buffer; it is handed
    // the local, never the field another thread may have replaced.
    state = nativeSetBuffer(h, grown);
    buffer = grown;
    return state != TOO_BIG;
  }

  /**
   * @return a copy of the current key
   * @throws IllegalStateException when not positioned on an entry
   */
  public byte[] key() {
    long h = acquire();
    try {
      checkValid();
      if (state == TOO_BIG && !growFor(h)) {
        return nativeKey(h);
      }
      byte[] k = new byte[buffer.getInt(0)];
      buffer.get(8, k);
      return k;
    } finally {
      release();
    }
  }

  /**
   * @return a copy of the current value
   * @throws IllegalStateException when not positioned on an entry
   */
  public byte[] value() {
    long h = acquire();
    try {
      checkValid();
      if (state == TOO_BIG && !growFor(h)) {
        return nativeValue(h);
      }
      int klen = buffer.getInt(0);
      byte[] v = new byte[buffer.getInt(4)];
      buffer.get(8 + klen, v);
      return v;
    } finally {
      release();
    }
  }

  /**
   * Copies the current key into {@code key} from its position, as much as fits, and sets its
   * limit to {@code min(limit, position + length)}.
   *
   * @param key the destination; writable
   * @return the full key length
   * @throws IllegalArgumentException if {@code key} is read-only
   */
  public int key(ByteBuffer key) {
    Objects.requireNonNull(key, "key");
    return copyEntryPart(key, false);
  }

  /**
   * Copies the current value into {@code value} from its position, as much as fits, and sets
   * its limit to {@code min(limit, position + length)}.
   *
   * @param value the destination; writable
   * @return the full value length
   * @throws IllegalArgumentException if {@code value} is read-only
   */
  public int value(ByteBuffer value) {
    Objects.requireNonNull(value, "value");
    return copyEntryPart(value, true);
  }

  /** Copies straight from the entry buffer into {@code dst}, without a temporary array. */
  private int copyEntryPart(ByteBuffer dst, boolean value) {
    if (dst.isReadOnly()) {
      throw new IllegalArgumentException((value ? "value" : "key") + " buffer is read-only");
    }
    long h = acquire();
    try {
      checkValid();
      if (state == TOO_BIG && !growFor(h)) {
        return copyOut(value ? nativeValue(h) : nativeKey(h), dst);
      }
      int klen = buffer.getInt(0);
      int len = value ? buffer.getInt(4) : klen;
      int from = value ? 8 + klen : 8;
      int n = Math.min(len, dst.remaining());
      dst.put(dst.position(), buffer, from, n);
      dst.limit(Math.min(dst.limit(), dst.position() + len));
      return len;
    } finally {
      release();
    }
  }

  private static int copyOut(byte[] src, ByteBuffer dst) {
    int n = Math.min(src.length, dst.remaining());
    dst.duplicate().put(src, 0, n);
    dst.limit(Math.min(dst.limit(), dst.position() + src.length));
    return src.length;
  }

  /**
   * Throws the error the iterator met, if any (an IO error or corruption while reading).
   *
   * @throws TalusException the iterator's error
   */
  public void status() throws TalusException {
    long h = acquire();
    try {
      nativeStatus(h);
    } finally {
      release();
    }
  }

  @Override
  protected void beforeDispose() {
    db.removeChild(this);
  }

  @Override
  protected void disposeInternal(long handle) {
    try {
      nativeDispose(handle);
    } catch (TalusException e) {
      throw new IllegalStateException(e);
    }
  }

  private static native int nativeMove(long h, int op);

  private static native int nativeSeek(long h, boolean forPrev, byte[] key, int off, int len);

  private static native int nativeSeekDirect(long h, boolean forPrev, ByteBuffer key, int pos,
      int len);

  private static native int nativeSetBuffer(long h, ByteBuffer buffer);

  private static native byte[] nativeKey(long h);

  private static native byte[] nativeValue(long h);

  private static native void nativeStatus(long h) throws TalusException;

  private static native void nativeDispose(long h) throws TalusException;
}
