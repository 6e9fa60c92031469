package dev.talus;

/**
 * How a database combines the operands written by {@link TalusDB#merge(byte[], byte[])} with a
 * key's value, as RocksJava's {@code MergeOperator}: the base class of the built-in operators
 * {@link StringAppendOperator} and {@link UInt64AddOperator}, set with {@link
 * Options#setMergeOperator(MergeOperator)}. (RocksDB's other built-ins are set by name with
 * {@link Options#setMergeOperatorName(String)}.)
 *
 * <p>The object holds a native operator. A database opened with it takes its own reference, so
 * closing this object while databases use the operator is safe; close it when no more databases
 * will be opened with it. Operators written in Java are not supported (as in RocksJava), so the
 * constructor is not public API.
 *
 * <p>A database holding merge operands must be opened with the operator that wrote them: opened
 * without one, reads that need the operands fail with {@code InvalidArgument} ("merge_operator is
 * not properly initialized."), and flushes and compactions keep the operands as they are.
 */
public abstract class MergeOperator extends SharedNativeHandle {
  /**
   * Takes ownership of a native merge operator handle made by a subclass's native constructor.
   *
   * @param nativeHandle the handle, not 0
   */
  MergeOperator(final long nativeHandle) {
    super(nativeHandle);
  }

  @Override
  protected final void disposeInternal(final long handle) {
    nativeDispose(handle);
  }

  private static native void nativeDispose(long handle);
}
