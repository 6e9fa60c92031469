package dev.talus;

/**
 * RocksDB's {@code uint64add} merge operator, as RocksJava's {@code UInt64AddOperator}: values
 * and operands are unsigned 64-bit integers in 8 little-endian bytes, and a merge adds them
 * (wrapping around at 2^64). As in RocksDB, a value or operand that is not exactly 8 bytes counts
 * as 0 rather than failing the read, and the result is always 8 bytes. Write operands with, e.g.,
 * {@code ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(n).array()}.
 */
public class UInt64AddOperator extends MergeOperator {
  /** The operator. */
  public UInt64AddOperator() {
    super(create());
  }

  private static long create() {
    NativeLibrary.load();
    return nativeNew();
  }

  private static native long nativeNew();
}
