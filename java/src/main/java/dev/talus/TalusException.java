package dev.talus;

/**
 * A failed database operation: thrown by every Talus method that touches the native engine
 * and can fail (IO errors, corruption, invalid options, a busy lock, ...).
 *
 * <p>Checked, like RocksJava's {@code RocksDBException}. The {@link Status} says what kind of
 * failure it was. Bad Java arguments are not reported this way: they throw {@link
 * NullPointerException}, {@link IllegalArgumentException} or {@link IndexOutOfBoundsException},
 * and use of a closed object throws {@link IllegalStateException}.
 */
public class TalusException extends Exception {
  private static final long serialVersionUID = 1L;

  /** The status, or null when the exception was made from a message only. */
  private final Status status;

  /**
   * Creates an exception with a message and no status.
   *
   * @param message the detail message
   */
  public TalusException(final String message) {
    this(message, null);
  }

  /**
   * Creates an exception with a message and a status.
   *
   * @param message the detail message
   * @param status the status, or null
   */
  public TalusException(final String message, final Status status) {
    super(message);
    this.status = status;
  }

  /**
   * Creates an exception from a status; the message is the status' state, or its code string
   * when the state is null.
   *
   * @param status the status; must not be null
   */
  public TalusException(final Status status) {
    this(status.getState() != null ? status.getState() : status.getCodeString(), status);
  }

  /**
   * The constructor the native library calls (through JNI) for an engine error. The message is
   * {@code "<code string>: <state>"}, e.g. {@code "IOError(NoSpace): append /db/000001.log:
   * No space left on device (os error 28)"}. Unknown bytes become {@code Undefined}.
   *
   * @param code the {@link Status.Code} byte value
   * @param subCode the {@link Status.SubCode} byte value
   * @param state the engine's message without the code name
   */
  TalusException(final byte code, final byte subCode, final String state) {
    this(new Status(code, subCode, state), true);
  }

  /** Message {@code "<code string>: <state>"} ({@link Status#toString()}). */
  private TalusException(final Status status, final boolean fromNative) {
    super(status.toString());
    this.status = status;
  }

  /**
   * The status of the failed operation.
   *
   * @return the status, or null if this exception was created from a message only
   */
  public Status getStatus() {
    return status;
  }
}
