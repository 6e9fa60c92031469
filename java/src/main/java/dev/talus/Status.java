package dev.talus;

import java.io.Serializable;
import java.util.Objects;

/**
 * The outcome of a failed native operation, carried by {@link TalusException}: a {@link Code},
 * an optional {@link SubCode} and the engine's message.
 *
 * <p>The byte values of both enums are those of RocksJava's {@code Status}, so code that
 * inspects statuses ports unchanged. Instances are immutable and thread-safe.
 */
public final class Status implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The status code; never null. Part of the serialized form. */
  private final Code code;

  /** The sub-code, or null when there is none. Part of the serialized form. */
  private final SubCode subCode;

  /** The engine's message without the code name, or null. Part of the serialized form. */
  private final String state;

  /**
   * Creates a status.
   *
   * @param code the status code; must not be null
   * @param subCode the sub-code, or null when there is none
   * @param state the engine's message without the code name, or null
   */
  public Status(final Code code, final SubCode subCode, final String state) {
    this.code = Objects.requireNonNull(code, "code must not be null");
    this.subCode = subCode;
    this.state = state;
  }

  /**
   * Builds a status from the bytes the native library sends. An unknown byte becomes
   * {@code Undefined} instead of failing, so a newer native library cannot turn an
   * exception into a different one.
   */
  Status(final byte code, final byte subCode, final String state) {
    this(Code.fromByteOrUndefined(code), SubCode.fromByteOrUndefined(subCode), state);
  }

  /**
   * The status code.
   *
   * @return the code; never null
   */
  public Code getCode() {
    return code;
  }

  /**
   * The sub-code, such as {@link SubCode#NoSpace} for a full disk.
   *
   * @return the sub-code, or null when none was given
   */
  public SubCode getSubCode() {
    return subCode;
  }

  /**
   * The engine's message without the code name, e.g. {@code "append /db/000001.log: No space
   * left on device (os error 28)"}.
   *
   * @return the message, or null when none was given
   */
  public String getState() {
    return state;
  }

  /**
   * The code name followed by the sub-code name in parentheses when there is a sub-code other
   * than {@code None}: {@code "IOError(NoSpace)"}, {@code "Busy"}.
   *
   * @return the code string; never null
   */
  public String getCodeString() {
    if (subCode == null || subCode == SubCode.None) {
      return code.name();
    }
    return code.name() + "(" + subCode.name() + ")";
  }

  /**
   * Equal when code, sub-code and state are equal.
   *
   * @param o the other object
   * @return whether {@code o} is an equal status
   */
  @Override
  public boolean equals(final Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Status)) {
      return false;
    }
    final Status other = (Status) o;
    return code == other.code && subCode == other.subCode && Objects.equals(state, other.state);
  }

  /**
   * A hash of code, sub-code and state.
   *
   * @return the hash code
   */
  @Override
  public int hashCode() {
    return Objects.hash(code, subCode, state);
  }

  /**
   * The code string and, if present, the state: {@code "IOError(NoSpace): append ..."}.
   *
   * @return a readable form of this status
   */
  @Override
  public String toString() {
    return state == null ? getCodeString() : getCodeString() + ": " + state;
  }

  /** Status codes, with RocksJava's byte values. */
  public enum Code {
    /** Success; never carried by an exception. */
    Ok((byte) 0x0),
    /** The named thing (file, property, snapshot) does not exist. */
    NotFound((byte) 0x1),
    /** Data read back does not match what was written. */
    Corruption((byte) 0x2),
    /** A feature or option value the engine does not implement. */
    NotSupported((byte) 0x3),
    /** The caller passed something out of range or malformed. */
    InvalidArgument((byte) 0x4),
    /** An operating-system IO call failed. */
    IOError((byte) 0x5),
    /** A merge is in progress (kept for RocksJava compatibility). */
    MergeInProgress((byte) 0x6),
    /** The operation could not complete without waiting, and the caller asked not to wait. */
    Incomplete((byte) 0x7),
    /** The database is closing. */
    ShutdownInProgress((byte) 0x8),
    /** The operation timed out. */
    TimedOut((byte) 0x9),
    /** The operation was stopped, e.g. a manual compaction cancelled by pausing background work. */
    Aborted((byte) 0xA),
    /** A resource is held by someone else, e.g. the database lock. */
    Busy((byte) 0xB),
    /** An entry expired (kept for RocksJava compatibility). */
    Expired((byte) 0xC),
    /** A transient failure; the operation may succeed if retried. */
    TryAgain((byte) 0xD),
    /** A code this version of the Java API does not know. */
    Undefined((byte) 0x7F);

    private final byte value;

    Code(final byte value) {
      this.value = value;
    }

    /**
     * The byte value shared with the native library and RocksJava.
     *
     * @return the byte value
     */
    public byte getValue() {
      return value;
    }

    /**
     * Looks up a code by its byte value.
     *
     * @param value the byte value
     * @return the code with that value
     * @throws IllegalArgumentException if no code has that value
     */
    public static Code getCode(final byte value) {
      final Code c = fromByteOrUndefined(value);
      if (c == Undefined && value != Undefined.value) {
        throw new IllegalArgumentException("unknown Status.Code byte value: " + value);
      }
      return c;
    }

    static Code fromByteOrUndefined(final byte value) {
      for (final Code c : values()) {
        if (c.value == value) {
          return c;
        }
      }
      return Undefined;
    }
  }

  /** Status sub-codes, with RocksJava's byte values. */
  public enum SubCode {
    /** No sub-code. */
    None((byte) 0x0),
    /** A mutex could not be taken in time. */
    MutexTimeout((byte) 0x1),
    /** A lock could not be taken in time. */
    LockTimeout((byte) 0x2),
    /** Too many locks are held. */
    LockLimit((byte) 0x3),
    /** The disk or quota is full (ENOSPC, EDQUOT). */
    NoSpace((byte) 0x4),
    /** A deadlock was detected. */
    Deadlock((byte) 0x5),
    /** A file the operation needed was removed or replaced. */
    StaleFile((byte) 0x6),
    /** A memory limit was reached. */
    MemoryLimit((byte) 0x7),
    /** A sub-code this version of the Java API does not know. */
    Undefined((byte) 0x7F);

    private final byte value;

    SubCode(final byte value) {
      this.value = value;
    }

    /**
     * The byte value shared with the native library and RocksJava.
     *
     * @return the byte value
     */
    public byte getValue() {
      return value;
    }

    /**
     * Looks up a sub-code by its byte value.
     *
     * @param value the byte value
     * @return the sub-code with that value
     * @throws IllegalArgumentException if no sub-code has that value
     */
    public static SubCode getSubCode(final byte value) {
      final SubCode s = fromByteOrUndefined(value);
      if (s == Undefined && value != Undefined.value) {
        throw new IllegalArgumentException("unknown Status.SubCode byte value: " + value);
      }
      return s;
    }

    static SubCode fromByteOrUndefined(final byte value) {
      for (final SubCode s : values()) {
        if (s.value == value) {
          return s;
        }
      }
      return Undefined;
    }
  }
}
