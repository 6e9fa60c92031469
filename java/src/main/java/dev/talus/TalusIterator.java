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
 * <p>Each movement crosses into native code at most once; the engine copies the new entry into a
 * direct buffer this object owns, so {@link #key()}, {@link #value()}, {@link #isValid()} and a
 * {@link #next()} or {@link #prev()} inside a fetched batch read Java memory only, without an
 * atomic operation (a concurrent {@link #close()} makes them throw, see {@code
 * NativeHandle.beginOptimisticRead}). A run of {@link #next()} (or of {@link #prev()}) fetches
 * entries in batches that grow by half from {@value #FIRST_BATCH} up to {@value #MAX_BATCH}
 * entries (as many as fit the buffer), so a scan crosses once per batch; a seek fetches one
 * entry. Entries fetched ahead are read from the iterator's snapshot, so they are the entries a
 * one-at-a-time iterator would show; the engine's next/prev counters (statistics, perf context)
 * count the entries fetched, which may run ahead of the calls made. A tailing iterator fetches
 * one entry per movement.
 */
public class TalusIterator extends NativeHandle {
  private static final int NOT_VALID = -1;
  private static final int TOO_BIG = -2;
  /** Capacity of the entry buffer an iterator starts with, and of those {@link TalusDB} reuses. */
  static final int INITIAL_BUFFER = 64 * 1024;
  private static final int MAX_BUFFER = 16 * 1024 * 1024;
  /**
   * Entries fetched by the first next (or prev) after a seek or a turn; each later fetch in the
   * same direction asks for half as many again (2, 3, 4, 6, 9, 13, ...).
   */
  static final int FIRST_BATCH = 2;
  /** The most entries one fetch asks for (the native side's limit is 4096). */
  static final int MAX_BATCH = 256;
  private static final int NEXT = 2;
  private static final int PREV = 3;

  private final TalusDB db;
  private final boolean tailing;
  private ByteBuffer buffer;
  /** Entries of the batch in the buffer, NOT_VALID, or TOO_BIG (then one entry, not copied). */
  private int state = NOT_VALID;
  /** Index in the batch of the entry shown. */
  private int index;
  /** Buffer offset of the entry shown. */
  private int pos;
  /** Direction of the batch in the buffer: NEXT, PREV, or 0 after a seek. */
  private int batchOp;
  /** Entries the next fetch in direction batchOp asks for. */
  private int nextBatch = FIRST_BATCH;

  private TalusIterator(TalusDB db, long handle, ByteBuffer buffer, boolean tailing) {
    super(handle, true, 1);
    this.db = db;
    this.buffer = buffer;
    this.tailing = tailing;
  }

  /**
   * Creates the native iterator. The caller holds acquires of the database and of the snapshot
   * {@code snapshot} names (see {@code TalusDB.newIterator}).
   */
  static TalusIterator create(TalusDB db, long dbHandle, int flags, long snapshot,
      ReadOptions ro) {
    ByteBuffer buf = db.takeIteratorBuffer();
    long h;
    try {
      h = TalusDB.nativeNewIterator(dbHandle, flags, snapshot, ro.lowerBound(), ro.upperBound(),
          ro.readaheadSize(), buf);
    } catch (TalusException e) {
      db.returnIteratorBuffer(buf);
      throw new IllegalStateException("newIterator: " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      db.returnIteratorBuffer(buf);
      throw e;
    }
    return new TalusIterator(db, h, buf, ro.tailing());
  }

  static TalusIterator createCf(TalusDB db, long dbHandle, int flags, long snapshot,
      ReadOptions ro, int cf) {
    ByteBuffer buf = db.takeIteratorBuffer();
    long h;
    try {
      h = TalusDB.nativeCfNewIterator(dbHandle, flags, snapshot, cf, ro.lowerBound(),
          ro.upperBound(), ro.readaheadSize(), buf);
    } catch (TalusException e) {
      db.returnIteratorBuffer(buf);
      throw new IllegalStateException("newIterator: " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      db.returnIteratorBuffer(buf);
      throw e;
    }
    return new TalusIterator(db, h, buf, ro.tailing());
  }

  /** @return the database this iterator reads */
  public TalusDB getDatabase() {
    acquire(); // throws IllegalStateException once closed, as every other method
    release();
    return db;
  }

  /** @return true when positioned on an entry */
  public boolean isValid() {
    beginOptimisticRead();
    return state != NOT_VALID;
  }

  /** Moves to the first entry (at or after the lower bound). */
  public void seekToFirst() {
    seekTo(0);
  }

  /** Moves to the last entry (before the upper bound). */
  public void seekToLast() {
    seekTo(1);
  }

  /**
   * Moves to the next entry.
   *
   * @throws IllegalStateException when not positioned on an entry
   */
  public void next() {
    step(NEXT);
  }

  /**
   * Moves to the previous entry.
   *
   * @throws IllegalStateException when not positioned on an entry
   */
  public void prev() {
    step(PREV);
  }

  private void seekTo(int op) {
    long h = acquire();
    try {
      shown(nativeMove(h, op, 0, 1), 0);
    } finally {
      release();
    }
  }

  /** Shows the first entry of what a native movement returned ({@code state}). */
  private void shown(int newState, int op) {
    state = newState;
    index = 0;
    pos = 0;
    if (op != batchOp) {
      nextBatch = FIRST_BATCH;
    }
    batchOp = op;
  }

  private void step(int op) {
    beginOptimisticRead();
    int st = state;
    if (st == NOT_VALID) {
      throw new IllegalStateException("the iterator is not positioned on an entry");
    }
    if (op == batchOp && index + 1 < st) {
      // The next entry in this direction is in the buffer already: Java memory only, so no
      // acquire, whose two atomic read-modify-writes per call were a large share of a scan's
      // time per entry (docs/results/reads.md, "iterator reads without an atomic").
      int at = pos;
      int end = at + 8 + buffer.getInt(at) + buffer.getInt(at + 4);
      endOptimisticRead(); // the lengths were this iterator's, not a later owner's of the buffer
      if (at < 0 || end <= at || end > buffer.capacity() - 8) {
        throw new IllegalStateException(
            "iterator batch out of step (one iterator used from several threads?)");
      }
      pos = end;
      index++;
      return;
    }
    long h = acquire();
    try {
      // Entries of the batch after the one shown (a TOO_BIG entry is a batch of one).
      int lag = st > 0 ? st - 1 - index : 0;
      int batch = tailing ? 1 : (op == batchOp ? nextBatch : FIRST_BATCH);
      int got = nativeMove(h, op, lag, batch);
      shown(got, op);
      // Growth by half, not doubling: entries fetched past where the caller stops are wasted
      // work (a native step and a copy each), and a run that stops at a random length wastes
      // about 44% of what it read with doubling and 23% with growth by half, for 70% more
      // crossings. A crossing costs less than an entry fetched (profile of seek + 50 next), so
      // the smaller waste wins from a few dozen entries on (docs/results/reads.md).
      nextBatch = Math.min(MAX_BATCH, batch + Math.max(1, batch / 2));
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
      shown(nativeSeek(h, forPrev, target, 0, target.length), 0);
    } finally {
      release();
    }
  }

  private void seekBuffer(boolean forPrev, ByteBuffer target) {
    Objects.requireNonNull(target, "target");
    if (target.isDirect()) {
      long h = acquire();
      try {
        shown(nativeSeekDirect(h, forPrev, target, target.position(), target.remaining()), 0);
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
    int st = nativeSetBuffer(h, grown);
    buffer = grown;
    state = st;
    index = 0;
    pos = 0;
    batchOp = 0;
    nextBatch = FIRST_BATCH;
    return st != TOO_BIG;
  }

  /**
   * @return a copy of the current key
   * @throws IllegalStateException when not positioned on an entry
   */
  public byte[] key() {
    return entryPart(false);
  }

  /**
   * @return a copy of the current value
   * @throws IllegalStateException when not positioned on an entry
   */
  public byte[] value() {
    return entryPart(true);
  }

  /** A copy of the current key or value, read from the entry buffer. */
  private byte[] entryPart(boolean value) {
    beginOptimisticRead();
    checkValid();
    if (state == TOO_BIG) {
      byte[] big = growOrFetch(value);
      if (big != null) {
        return big;
      }
    }
    int at = pos;
    int klen = keyLength(at);
    byte[] out = new byte[partLength(at, klen, value)];
    buffer.get(partStart(at, klen, value), out);
    endOptimisticRead(); // the bytes were this iterator's entry, not a later owner's of the buffer
    return out;
  }

  /**
   * For an entry too big for the buffer: grows the buffer and returns null (the entry is then
   * in it), or, with the buffer at its cap, returns the key or value copied through JNI. Native
   * calls: under acquire.
   */
  private byte[] growOrFetch(boolean value) {
    long h = acquire();
    try {
      if (state == TOO_BIG && !growFor(h)) {
        return value ? nativeValue(h) : nativeKey(h);
      }
      return null;
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
    beginOptimisticRead();
    checkValid();
    if (state == TOO_BIG) {
      byte[] big = growOrFetch(value);
      if (big != null) {
        return copyOut(big, dst);
      }
    }
    // Java memory only, read optimistically as in entryPart(); if a concurrent close() wins, dst's
    // bytes from its position may have changed but its position and limit have not.
    int at = pos;
    int klen = keyLength(at);
    int len = partLength(at, klen, value);
    int n = Math.min(len, dst.remaining());
    dst.put(dst.position(), buffer, partStart(at, klen, value), n);
    endOptimisticRead();
    dst.limit(Math.min(dst.limit(), dst.position() + len));
    return len;
  }

  /**
   * The key length of the entry at {@code at}, checked against the buffer: an iterator misused
   * from several threads gets an IllegalStateException, never a garbage length.
   */
  private int keyLength(int at) {
    int klen = buffer.getInt(at);
    if (klen < 0 || klen > buffer.capacity() - at - 8) {
      throw new IllegalStateException(
          "iterator entry out of step (one iterator used from several threads?)");
    }
    return klen;
  }

  /** The value length of the entry at {@code at}, whose key is {@code klen} bytes; checked. */
  private int valueLength(int at, int klen) {
    int vlen = buffer.getInt(at + 4);
    if (vlen < 0 || vlen > buffer.capacity() - at - 8 - klen) {
      throw new IllegalStateException(
          "iterator entry out of step (one iterator used from several threads?)");
    }
    return vlen;
  }

  /**
   * Where the key or value of the entry at {@code at} starts in the buffer. An entry is [key
   * length: 4][value length: 4][key][value], lengths little-endian as the native side writes them.
   */
  private static int partStart(int at, int klen, boolean value) {
    return value ? at + 8 + klen : at + 8;
  }

  /** The length of the key or value of the entry at {@code at}, whose key is {@code klen} bytes. */
  private int partLength(int at, int klen, boolean value) {
    return value ? valueLength(at, klen) : klen;
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
      if (state != NOT_VALID) {
        // Positioned on an entry: no error (the native iterator may have met one while fetching
        // ahead, which shows once the iterator moves past the entries fetched before it).
        return;
      }
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
    // The native side no longer references the buffer, and every method of this closed object
    // throws before reading it: the next iterator may reuse it.
    if (buffer.capacity() == INITIAL_BUFFER) {
      db.returnIteratorBuffer(buffer);
    }
  }

  private static native int nativeMove(long h, int op, int lag, int batch);

  private static native int nativeSeek(long h, boolean forPrev, byte[] key, int off, int len);

  private static native int nativeSeekDirect(long h, boolean forPrev, ByteBuffer key, int pos,
      int len);

  private static native int nativeSetBuffer(long h, ByteBuffer buffer);

  private static native byte[] nativeKey(long h);

  private static native byte[] nativeValue(long h);

  private static native void nativeStatus(long h) throws TalusException;

  private static native void nativeDispose(long h) throws TalusException;
}
