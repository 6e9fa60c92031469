package dev.talus;

import dev.talus.internal.NativeHandle;

/**
 * A native object a database takes its own reference to at open ({@link Cache}, {@link
 * RateLimiter}, {@link Statistics}, {@link Logger}): {@link Options} holds it open for the open
 * call through {@link #acquireShared()} and {@link #releaseShared()}, the package's view of
 * {@link NativeHandle}'s protected acquire and release. Package-private: not public API.
 */
abstract class SharedNativeHandle extends NativeHandle {
  SharedNativeHandle(final long handle) {
    super(handle);
  }

  /**
   * Acquires this object for a native call that passes its handle (a database open, which takes
   * its own reference). Pair with {@link #releaseShared()} on the same thread.
   *
   * @return the native handle, valid until {@link #releaseShared()}
   * @throws IllegalStateException if this object is closed
   */
  final long acquireShared() {
    return acquire();
  }

  /** Ends an {@link #acquireShared()}. */
  final void releaseShared() {
    release();
  }
}
