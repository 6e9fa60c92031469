package dev.talus.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The one base class of every Java object that owns native memory: it holds the native handle
 * (a {@code long} address made by the Rust side) and frees it exactly once, never while a native
 * call is using it.
 *
 * <h2>How subclasses use it</h2>
 *
 * <pre>{@code
 * public byte[] get(byte[] key) throws TalusException {
 *   final long handle = acquire();         // throws IllegalStateException once closed
 *   try {
 *     return get(handle, key);             // private native method
 *   } finally {
 *     release();                           // same thread, always
 *   }
 * }
 * protected void disposeInternal(long handle) { disposeInternal0(handle); } // native, frees it
 * }</pre>
 *
 * A method that passes another object's handle to native code acquires that object too, with
 * the static {@link #acquire(NativeHandle)} and {@link #release(NativeHandle)}. Children
 * (iterators, snapshots) keep a reference to their parent and are closed by the parent's
 * {@link #beforeDispose()}.
 *
 * <h2>Thread-safety contract</h2>
 *
 * <ol>
 *   <li>{@link #close()} may be called any number of times from any threads; {@link
 *       #disposeInternal(long)} runs exactly once, for an owning handle, and every {@code
 *       close()} returns only after it has run.
 *   <li>{@link #acquire()} succeeds only before {@code close()} starts; afterwards it throws
 *       {@link IllegalStateException} {@code "<SimpleClassName> is closed"}.
 *   <li>{@code close()} waits until every successful {@code acquire()} has been matched by its
 *       {@code release()} before it frees anything, so a concurrent close never frees memory
 *       under a running native call. It waits as long as the longest such call.
 *   <li>{@code release()} must be called by the thread that called {@code acquire()}, and
 *       {@code close()} must not be called by a thread holding an acquire of the same object
 *       (it would wait for itself forever; a {@link IllegalStateException} from {@code
 *       release()} flags an unpaired call).
 * </ol>
 *
 * <h2>Why striped counters</h2>
 *
 * Every native call increments and decrements an in-flight count. One shared atomic would make
 * all writer threads fight over one cache line, so the count is split into stripes, each on its
 * own 128-byte region of an {@link AtomicLongArray}, and a thread always uses the stripe chosen
 * by its identity hash. The in-flight count is the sum of the stripes.
 *
 * <p>Ordering (Dekker style; all accesses below are volatile, so they are totally ordered):
 * {@code acquire()} increments its stripe, <em>then</em> reads the state; {@code close()} writes
 * the state, <em>then</em> reads every stripe. For any acquire and close, either the increment
 * comes before close reads that stripe, so close sees it and waits for the matching decrement, or
 * close's state write comes before acquire reads the state, so acquire sees "closing", undoes its
 * increment and throws. Both cannot miss each other. A stripe never goes below zero (each thread
 * decrements the stripe it incremented), so reading a stripe as zero proves that every call
 * counted there that started before close has finished; a late call seen as +1 only makes close
 * look again.
 *
 * <p>No finalizer or cleaner frees a forgotten object: close every object (try-with-resources).
 */
public abstract class NativeHandle implements AutoCloseable {
  private static final int OPEN = 0;
  private static final int CLOSING = 1;
  private static final int CLOSED = 2;

  /** Longs per stripe: 16 × 8 = 128 bytes, two cache lines (adjacent-line prefetch). */
  private static final int PAD_SHIFT = 4;

  /** Most stripes an object may have. */
  public static final int MAX_STRIPES = 64;

  /**
   * Stripes of objects shared by many threads (databases, column families): the power of two at
   * or above twice the number of processors and at least 16, at most {@link #MAX_STRIPES}. About
   * 128 bytes each. The floor: threads pick stripes by identity hash, so with few stripes two
   * threads running at once often share one, a cache line moving between their cores on every
   * call (measured in docs/results/reads.md, point lookups without shared counts).
   */
  public static final int DEFAULT_STRIPES =
      roundUpToPowerOfTwo(Math.max(16, 2 * Runtime.getRuntime().availableProcessors()));

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(NativeHandle.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long handle;

  /** Stripe {@code i} lives at index {@code (i + 1) << PAD_SHIFT}, or at 0 when unstriped. */
  private final AtomicLongArray inFlight;

  /** Stripes minus one; 0 means a single unpadded counter. */
  private final int stripeMask;

  /** OPEN, CLOSING or CLOSED; changed through {@link #STATE}. */
  private volatile int state;

  /** Whether {@link #close()} must free the handle. */
  private volatile boolean owning;

  /** The thread running the winning {@link #close()}, so a nested close() can return at once. */
  private volatile Thread closingThread;

  /**
   * Wraps an owning handle of an object that many threads may use at once, with {@link
   * #DEFAULT_STRIPES} stripes.
   *
   * @param handle the native handle; not 0
   * @throws IllegalArgumentException if {@code handle} is 0
   */
  protected NativeHandle(final long handle) {
    this(handle, true, DEFAULT_STRIPES);
  }

  /**
   * Wraps a handle.
   *
   * @param handle the native handle; not 0
   * @param owning whether {@link #close()} frees it (false for a view of memory owned elsewhere)
   * @param stripes in-flight counter stripes: 1 for objects normally used by one thread at a
   *     time (options, batches, iterators: 8 bytes), {@link #DEFAULT_STRIPES} for shared objects;
   *     rounded up to a power of two, at most {@link #MAX_STRIPES}
   * @throws IllegalArgumentException if {@code handle} is 0 or {@code stripes} is below 1
   */
  protected NativeHandle(final long handle, final boolean owning, final int stripes) {
    if (handle == 0) {
      throw new IllegalArgumentException("native handle must not be 0");
    }
    if (stripes < 1) {
      throw new IllegalArgumentException("stripes must be at least 1, got " + stripes);
    }
    final int n = roundUpToPowerOfTwo(stripes);
    this.handle = handle;
    this.owning = owning;
    this.stripeMask = n - 1;
    // Striped: slots 1..n, each 128 bytes apart, with 128 bytes of padding before the first
    // (next to the array header) and 120 after the last (next to the following heap object).
    this.inFlight = new AtomicLongArray(n == 1 ? 1 : (n + 1) << PAD_SHIFT);
    this.state = OPEN;
  }

  /**
   * Marks the start of a native call on this object's handle and returns the handle. Must be
   * paired with {@link #release()} in a {@code finally} block on the same thread.
   *
   * @return the native handle, valid until the matching {@link #release()}
   * @throws IllegalStateException {@code "<SimpleClassName> is closed"} once {@link #close()}
   *     has started
   */
  protected final long acquire() {
    final int slot = slot();
    inFlight.getAndIncrement(slot); // 1: publish "in flight" ...
    if (state != OPEN) { //           2: ... then look for a close (see the class comment)
      inFlight.getAndDecrement(slot);
      throw new IllegalStateException(name() + " is closed");
    }
    return handle;
  }

  /**
   * Marks the end of a native call started by {@link #acquire()} on this thread.
   *
   * @throws IllegalStateException if this thread holds no acquire of this object
   */
  protected final void release() {
    final int slot = slot();
    if (inFlight.getAndDecrement(slot) <= 0) {
      inFlight.getAndIncrement(slot);
      throw new IllegalStateException(
          name() + ": release() without acquire() on this thread");
    }
  }

  /**
   * {@link #acquire()} for another object, e.g. the options passed to a database method.
   *
   * @param other the object whose handle is passed to native code; not null
   * @return its native handle, valid until {@link #release(NativeHandle)}
   * @throws IllegalStateException if {@code other} is closed
   */
  protected static long acquire(final NativeHandle other) {
    return other.acquire();
  }

  /**
   * {@link #release()} for another object acquired with {@link #acquire(NativeHandle)}.
   *
   * @param other the object acquired before; not null
   */
  protected static void release(final NativeHandle other) {
    other.release();
  }

  /**
   * Begins an optimistic read: throws once {@link #close()} has started, without counting a
   * call in flight. For a method that reads only Java memory this object owns (an iterator's
   * entry buffer) and makes no native call: one plain load, no atomic read-modify-write.
   *
   * <p>A concurrent {@code close()} may hand that memory to another object while the method
   * reads it, so such a method reads as {@link java.util.concurrent.locks.StampedLock}'s
   * optimistic reads do: this check, then the reads, then {@link #endOptimisticRead()}, and it
   * returns what it read only if the latter did not throw.
   *
   * @throws IllegalStateException {@code "<SimpleClassName> is closed"} once {@link #close()}
   *     has started
   */
  protected final void beginOptimisticRead() {
    if (state != OPEN) {
      throw new IllegalStateException(name() + " is closed");
    }
  }

  /**
   * Ends an optimistic read begun with {@link #beginOptimisticRead()}: the fence keeps the reads
   * before it from moving after the state load, so if this returns, {@code close()} had not
   * started when they were done and they saw this object's memory, not a later owner's.
   *
   * @throws IllegalStateException {@code "<SimpleClassName> is closed"} once {@link #close()}
   *     has started
   */
  protected final void endOptimisticRead() {
    VarHandle.acquireFence();
    beginOptimisticRead();
  }

  /**
   * The raw native handle, without any liveness check. Internal: for code that already holds an
   * acquire, or that passes the handle to native code which only stores it.
   *
   * @return the native handle; never 0
   */
  protected final long nativeHandle() {
    return handle;
  }

  /**
   * Whether this object still owns its native memory, i.e. it is owning and not closed.
   *
   * @return true until {@link #close()} starts, for an owning handle
   */
  public final boolean isOwningHandle() {
    return owning && state == OPEN;
  }

  /**
   * Whether {@link #close()} has started; a closed object rejects every method call.
   *
   * @return true once {@link #close()} has been called
   */
  public final boolean isClosed() {
    return state != OPEN;
  }

  /**
   * Gives up ownership: {@link #close()} will not call {@link #disposeInternal(long)}. For a
   * handle whose memory native code has taken over.
   */
  protected final void disownHandle() {
    owning = false;
  }

  /**
   * Closes this object: new calls are rejected at once, calls in flight are waited for, then
   * {@link #beforeDispose()} and {@link #disposeInternal(long)} run, once. Idempotent and
   * thread-safe: every caller returns after the memory is freed (except a nested call from
   * {@code beforeDispose} or {@code disposeInternal} itself, which returns at once).
   */
  @Override
  public final void close() {
    if (!STATE.compareAndSet(this, OPEN, CLOSING)) {
      if (closingThread != Thread.currentThread()) {
        awaitClosed();
      } // else: close() from this object's own beforeDispose/disposeInternal; nothing to wait for
      return;
    }
    closingThread = Thread.currentThread();
    try {
      onClosing();
    } finally {
      // On every path, even when onClosing() threw (an OutOfMemoryError from its native call):
      // freeing the handle while another thread is still in a native call on it would be a
      // use-after-free in native code, so the wait comes before beforeDispose and dispose. (A
      // call that only onClosing() would have woken is waited for: a hang, never a crash.)
      try {
        awaitNoCallsInFlight();
        beforeDispose();
      } finally {
        try {
          if (owning) {
            owning = false;
            disposeInternal(handle);
          }
        } finally {
          state = CLOSED;
          closingThread = null;
        }
      }
    }
  }

  /**
   * Runs once at the start of {@link #close()}, after new calls are rejected and BEFORE waiting
   * for calls in flight, so a subclass can wake calls that would otherwise wait forever (a
   * database wakes writers held in a write stall). The handle is still valid here. Does nothing
   * by default. If it throws, {@code close()} still waits for the calls in flight, runs {@link
   * #beforeDispose()} and frees the handle, then rethrows.
   */
  protected void onClosing() {}

  /**
   * Runs once in {@link #close()}, after the last in-flight call on this object finished and
   * before {@link #disposeInternal(long)}; new calls are already rejected. Subclasses close their
   * children here (a database closes its open iterators). Does nothing by default.
   */
  protected void beforeDispose() {}

  /**
   * Frees the native memory. Called exactly once, by {@link #close()}, when no native call on
   * the handle is in flight, and only for an owning handle.
   *
   * @param handle the native handle to free
   */
  protected abstract void disposeInternal(long handle);

  private int slot() {
    if (stripeMask == 0) {
      return 0;
    }
    int h = System.identityHashCode(Thread.currentThread());
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    return ((h & stripeMask) + 1) << PAD_SHIFT;
  }

  private void awaitNoCallsInFlight() {
    for (int round = 0; ; round++) {
      if (noCallsInFlight()) {
        return;
      }
      backOff(round);
    }
  }

  private boolean noCallsInFlight() {
    if (stripeMask == 0) {
      return inFlight.get(0) == 0;
    }
    for (int i = 1; i <= stripeMask + 1; i++) {
      if (inFlight.get(i << PAD_SHIFT) != 0) {
        return false;
      }
    }
    return true;
  }

  private void awaitClosed() {
    for (int round = 0; state != CLOSED; round++) {
      backOff(round);
    }
  }

  /** Spin briefly, then yield, then sleep up to 1 ms: native calls are usually short. */
  private static void backOff(final int round) {
    if (round < 100) {
      Thread.onSpinWait();
    } else if (round < 200) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(Math.min(1_000_000L, 1_000L << Math.min(10, round - 200)));
    }
  }

  private String name() {
    final String simple = getClass().getSimpleName();
    return simple.isEmpty() ? getClass().getName() : simple;
  }

  private static int roundUpToPowerOfTwo(final int n) {
    final int capped = Math.max(1, Math.min(MAX_STRIPES, n));
    return capped == 1 ? 1 : Integer.highestOneBit(capped - 1) << 1;
  }
}
