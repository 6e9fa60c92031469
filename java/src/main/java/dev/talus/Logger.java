package dev.talus;

import java.util.Objects;

/**
 * A user sink for the database's info log, as RocksJava's {@code Logger}: subclass it, override
 * {@link #log(InfoLogLevel, String)}, and pass it to {@link Options#setLogger(Logger)}. The
 * database then sends its info log lines (options at open, flushes, compactions, write stalls:
 * {@code "Stalling writes because ..."}, {@code "Stopping writes because ..."}, periodic stats)
 * here instead of to the {@code LOG} file.
 *
 * <p>{@code log} is called from database threads, background ones included, with a finished
 * message. It must be thread-safe, quick, and must not call back into the database (it may be
 * called while the database holds internal locks). Exceptions it throws are caught and dropped.
 * Each call crosses from native code into Java. A database keeps the logger alive while it uses
 * it, so closing the logger early is safe.
 */
public abstract class Logger extends SharedNativeHandle {
  /**
   * @param level the lowest level to receive
   */
  protected Logger(InfoLogLevel level) {
    super(create(level));
    long h = acquire();
    try {
      nativeBind(h, this);
    } finally {
      release();
    }
  }

  /**
   * Deprecated RocksJava form: takes the level from {@link Options#infoLogLevel()}.
   *
   * @param options options whose info log level is used
   */
  @Deprecated
  protected Logger(Options options) {
    this(Objects.requireNonNull(options, "options").infoLogLevel());
  }

  private static long create(InfoLogLevel level) {
    Objects.requireNonNull(level, "level");
    NativeLibrary.load();
    return nativeCreate(level.getValue());
  }

  /**
   * Receives one info log line.
   *
   * @param level the line's severity
   * @param message the message, without timestamp
   */
  protected abstract void log(InfoLogLevel level, String message);

  /**
   * Changes the lowest level this logger receives.
   *
   * @param level the new threshold
   */
  public void setInfoLogLevel(InfoLogLevel level) {
    Objects.requireNonNull(level, "level");
    long h = acquire();
    try {
      nativeSetLevel(h, level.getValue());
    } finally {
      release();
    }
  }

  /** @return the lowest level this logger receives */
  public InfoLogLevel infoLogLevel() {
    long h = acquire();
    try {
      return InfoLogLevel.getInfoLogLevel(nativeGetLevel(h));
    } finally {
      release();
    }
  }

  /** Called from native code. */
  @SuppressWarnings("unused")
  private void logFromNative(byte level, String message) {
    try {
      log(InfoLogLevel.getInfoLogLevel(level), message);
    } catch (RuntimeException e) {
      // A failing user logger must not break the database thread that logs.
    }
  }

  @Override
  protected void disposeInternal(long handle) {
    nativeDispose(handle);
  }

  private static native long nativeCreate(byte level);

  private static native void nativeBind(long handle, Logger logger);

  private static native void nativeSetLevel(long handle, byte level);

  private static native byte nativeGetLevel(long handle);

  private static native void nativeDispose(long handle);
}
