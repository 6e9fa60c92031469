package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.talus.internal.NativeHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NativeHandleTest {
  private static final long HANDLE = 0x7a1115L;

  /** A stand-in for a native object: "freed" plays the native memory. */
  static final class Resource extends NativeHandle {
    final AtomicInteger disposed = new AtomicInteger();
    final AtomicInteger beforeDisposeCalls = new AtomicInteger();
    final List<String> events;
    final String name;
    final List<Resource> children = new CopyOnWriteArrayList<>();
    volatile boolean freed;
    volatile Runnable onBeforeDispose = () -> {};
    volatile Runnable onClosing = () -> {};

    Resource(final boolean owning, final int stripes) {
      this("resource", owning, stripes, new CopyOnWriteArrayList<>());
    }

    Resource(
        final String name, final boolean owning, final int stripes, final List<String> events) {
      super(HANDLE, owning, stripes);
      this.name = name;
      this.events = events;
    }

    Resource() {
      this(true, NativeHandle.DEFAULT_STRIPES);
    }

    /** A "native call" on the handle; fails if the memory is freed before it ends. */
    <T> T call(final Supplier<T> body) {
      final long h = acquire();
      try {
        assertEquals(HANDLE, h);
        if (freed) {
          throw new AssertionError("call started on freed memory");
        }
        final T result = body.get();
        if (freed) {
          throw new AssertionError("memory freed under a running call");
        }
        return result;
      } finally {
        release();
      }
    }

    void unbalancedRelease() {
      release();
    }

    @Override
    protected void onClosing() {
      onClosing.run();
    }

    @Override
    protected void beforeDispose() {
      beforeDisposeCalls.incrementAndGet();
      events.add(name + ".beforeDispose");
      for (final Resource child : children) {
        child.close();
      }
      onBeforeDispose.run();
    }

    @Override
    protected void disposeInternal(final long handle) {
      assertEquals(HANDLE, handle);
      events.add(name + ".dispose");
      disposed.incrementAndGet();
      freed = true;
    }
  }

  @Test
  void closeFromEightThreadsDisposesExactlyOnce() throws Exception {
    final int threads = 8;
    for (int round = 0; round < 200; round++) {
      final Resource r = new Resource();
      final CyclicBarrier start = new CyclicBarrier(threads);
      final AtomicInteger returnedEarly = new AtomicInteger();
      final List<Thread> closers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        final Thread closer =
            new Thread(
                () -> {
                  await(start);
                  r.close();
                  // Every close() returns only after the memory is freed.
                  if (r.disposed.get() != 1) {
                    returnedEarly.incrementAndGet();
                  }
                });
        closer.start();
        closers.add(closer);
      }
      for (final Thread closer : closers) {
        closer.join();
      }
      assertEquals(1, r.disposed.get(), "round " + round);
      assertEquals(1, r.beforeDisposeCalls.get(), "round " + round);
      assertEquals(0, returnedEarly.get(), "round " + round);
      assertTrue(r.isClosed());
      assertFalse(r.isOwningHandle());
    }
  }

  @Test
  void acquireAfterCloseThrowsNamingTheClass() {
    final Resource r = new Resource();
    assertTrue(r.isOwningHandle());
    assertEquals(7, r.call(() -> 7));
    r.close();
    r.close(); // idempotent
    final IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> r.call(() -> 0));
    assertEquals("Resource is closed", e.getMessage());
    assertEquals(1, r.disposed.get());
  }

  @Test
  void closeWaitsForTheCallInFlight() throws Exception {
    final Resource r = new Resource();
    final CountDownLatch proceed = new CountDownLatch(1);
    final AtomicReference<Throwable> callerFailure = new AtomicReference<>();
    final Thread caller = callInFlight(r, proceed, callerFailure);

    final Thread closer = new Thread(r::close);
    closer.start();
    while (!r.isClosed()) {
      Thread.onSpinWait();
    }
    // New calls are rejected at once, while close() still waits for the one in flight.
    assertThrows(IllegalStateException.class, () -> r.call(() -> 0));
    closer.join(100); // gives a broken close() the chance to free early
    assertTrue(closer.isAlive(), "close() returned while a call was in flight");
    assertEquals(0, r.disposed.get(), "memory freed while a call was in flight");

    proceed.countDown();
    closer.join();
    caller.join();
    assertNull(callerFailure.get());
    assertEquals(1, r.disposed.get());
  }

  /**
   * Regression: when onClosing() threw (an OutOfMemoryError from the database's native
   * prepare-close), close() skipped the wait for calls in flight and freed the memory under them.
   */
  @Test
  void anErrorFromOnClosingStillWaitsForTheCallInFlightBeforeFreeing() throws Exception {
    final Resource r = new Resource();
    r.onClosing =
        () -> {
          throw new OutOfMemoryError("from onClosing");
        };
    final CountDownLatch proceed = new CountDownLatch(1);
    final AtomicReference<Throwable> callerFailure = new AtomicReference<>();
    final Thread caller = callInFlight(r, proceed, callerFailure);

    final AtomicReference<Throwable> closeFailure = new AtomicReference<>();
    final Thread closer =
        new Thread(
            () -> {
              try {
                r.close();
              } catch (Throwable t) {
                closeFailure.set(t);
              }
            });
    closer.start();
    while (!r.isClosed()) {
      Thread.onSpinWait();
    }
    closer.join(100); // gives a broken close() the chance to free early
    assertTrue(closer.isAlive(), "close() returned while a call was in flight");
    assertEquals(0, r.disposed.get(), "memory freed while a call was in flight");

    proceed.countDown();
    closer.join();
    caller.join();
    assertNull(callerFailure.get(), "the call in flight saw its memory freed");
    assertTrue(closeFailure.get() instanceof OutOfMemoryError, "close() rethrows the error");
    assertEquals(1, r.disposed.get());
    assertEquals(1, r.beforeDisposeCalls.get(), "children are still closed");
    assertEquals(List.of("resource.beforeDispose", "resource.dispose"), r.events);
    r.close(); // closed exactly once: a later close() returns at once and frees nothing
    assertEquals(1, r.disposed.get());
    assertThrows(IllegalStateException.class, () -> r.call(() -> 0));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 64})
  void concurrentCallsNeverRunOnFreedMemory(final int stripes) throws Exception {
    final Resource r = new Resource(true, stripes);
    final AtomicLong calls = new AtomicLong();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      final Thread worker =
          new Thread(
              () -> {
                try {
                  while (true) {
                    r.call(calls::incrementAndGet);
                  }
                } catch (IllegalStateException closed) {
                  // expected: the resource was closed
                } catch (Throwable t2) {
                  failure.set(t2);
                }
              });
      worker.start();
      workers.add(worker);
    }
    while (calls.get() < 20_000 && failure.get() == null) {
      Thread.onSpinWait();
    }
    r.close();
    for (final Thread worker : workers) {
      worker.join();
    }
    assertNull(failure.get());
    assertEquals(1, r.disposed.get());
  }

  @Test
  void nestedCallsOnOneThreadAndExceptionsStillRelease() {
    final Resource r = new Resource(true, 1);
    assertEquals(3, r.call(() -> r.call(() -> 3)));
    assertThrows(
        ArithmeticException.class,
        () ->
            r.call(
                () -> {
                  throw new ArithmeticException("from the native call");
                }));
    r.close(); // would wait forever if a call leaked its acquire
    assertEquals(1, r.disposed.get());
  }

  @Test
  void releaseWithoutAcquireIsRejectedAndHarmless() {
    final Resource r = new Resource();
    final IllegalStateException e =
        assertThrows(IllegalStateException.class, r::unbalancedRelease);
    assertTrue(e.getMessage().startsWith("Resource: release() without acquire()"));
    r.close();
    assertEquals(1, r.disposed.get());
  }

  @Test
  void nonOwningHandleIsNeverDisposed() {
    final Resource r = new Resource(false, 1);
    assertFalse(r.isOwningHandle());
    assertFalse(r.isClosed());
    r.close();
    assertTrue(r.isClosed());
    assertEquals(0, r.disposed.get());
    assertEquals(1, r.beforeDisposeCalls.get());
  }

  @Test
  void beforeDisposeClosesChildrenBeforeTheParentIsFreed() {
    final List<String> events = new CopyOnWriteArrayList<>();
    final Resource parent = new Resource("db", true, 4, events);
    final Resource child = new Resource("iterator", true, 1, events);
    parent.children.add(child);
    parent.close();
    assertTrue(child.isClosed());
    assertEquals(
        List.of("db.beforeDispose", "iterator.beforeDispose", "iterator.dispose", "db.dispose"),
        events);
  }

  @Test
  void closeFromItsOwnBeforeDisposeReturnsInsteadOfWaitingForItself() {
    final Resource r = new Resource();
    r.onBeforeDispose = r::close;
    r.close();
    assertEquals(1, r.disposed.get());
    assertEquals(1, r.beforeDisposeCalls.get());
  }

  @Test
  void zeroHandleAndBadStripesAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new ZeroHandle());
    assertThrows(IllegalArgumentException.class, () -> new Resource(true, 0));
  }

  static final class ZeroHandle extends NativeHandle {
    ZeroHandle() {
      super(0);
    }

    @Override
    protected void disposeInternal(final long handle) {}
  }

  /**
   * Starts a thread whose call on {@code r} stays in flight until {@code proceed} opens, and
   * returns once the call has entered; whatever the call throws goes to {@code failure}.
   */
  private static Thread callInFlight(
      final Resource r, final CountDownLatch proceed, final AtomicReference<Throwable> failure)
      throws InterruptedException {
    final CountDownLatch entered = new CountDownLatch(1);
    final Thread caller =
        new Thread(
            () -> {
              try {
                r.call(
                    () -> {
                      entered.countDown();
                      await(proceed);
                      return null;
                    });
              } catch (Throwable t) {
                failure.set(t);
              }
            });
    caller.start();
    entered.await();
    return caller;
  }

  private static void await(final CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void await(final CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
