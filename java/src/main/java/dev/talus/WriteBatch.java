package dev.talus;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Objects;

/**
 * An atomic group of updates, as RocksJava's {@code WriteBatch}, applied with {@link
 * TalusDB#write(WriteOptions, WriteBatch)}: all updates become visible together, with
 * consecutive sequence numbers.
 *
 * <p>The batch is built in Java memory, in Talus's own batch encoding (the payload of a WAL
 * record, specified in the engine's {@code write_batch} module), and crosses into native code
 * once, when written. So {@link #data()} and {@link #WriteBatch(byte[])} use Talus's encoding,
 * not RocksDB's: {@link #data()} marks its bytes as Talus's (in the header field where a written
 * batch has its sequence number), and {@link #WriteBatch(byte[])} refuses bytes without the
 * mark, so that a RocksDB batch, whose record tags mean other things (RocksDB's merge tag is
 * Talus's range deletion), fails loudly instead of being applied. Not thread-safe.
 */
public class WriteBatch extends PlainCloseable {
  private static final int HEADER = 12;
  private static final byte VALUE = 1;
  private static final byte DELETION = 0;
  private static final byte RANGE_DELETION = 2;
  private static final byte MERGE = 3;
  private static final byte SINGLE_DELETION = 4;

  /**
   * The first 8 bytes of {@link #data()}: "TalusWB1". As a little-endian sequence number it is
   * above RocksDB's largest (2^56 - 1), so no RocksDB batch carries it.
   */
  private static final byte[] MARK = {'T', 'a', 'l', 'u', 's', 'W', 'B', '1'};

  private byte[] buf;
  private int size = HEADER;
  private int count;
  private int kinds; // bit per kind present
  private final Deque<int[]> savePoints = new ArrayDeque<>();

  /** An empty batch. */
  public WriteBatch() {
    this(256);
  }

  /**
   * An empty batch with room for about {@code reservedBytes} of updates.
   *
   * @param reservedBytes initial capacity in bytes
   * @throws IllegalArgumentException if {@code reservedBytes} is negative or leaves no room for
   *     the header under 2 GiB
   */
  public WriteBatch(int reservedBytes) {
    if (reservedBytes < 0 || reservedBytes > Integer.MAX_VALUE - 16 - HEADER) {
      throw new IllegalArgumentException(
          "reservedBytes must be in [0, " + (Integer.MAX_VALUE - 16 - HEADER) + "], got "
              + reservedBytes);
    }
    buf = new byte[HEADER + reservedBytes];
  }

  /**
   * A batch from bytes returned by {@link #data()} (Talus's encoding, with its mark). Every record
   * is checked here: its tag (put, delete, range delete, merge or single delete), its lengths, and
   * the count in the header.
   *
   * @param serialized the encoded batch
   * @throws NullPointerException if {@code serialized} is null
   * @throws IllegalArgumentException if the bytes are not a batch {@link #data()} returned (no
   *     mark, as in RocksDB's encoding), or a record is malformed, or the count is wrong
   */
  public WriteBatch(byte[] serialized) {
    Objects.requireNonNull(serialized, "serialized");
    if (serialized.length < HEADER) {
      throw new IllegalArgumentException(
          "a serialized WriteBatch has at least 12 bytes, got " + serialized.length);
    }
    if (!Arrays.equals(serialized, 0, MARK.length, MARK, 0, MARK.length)) {
      throw new IllegalArgumentException(
          "not a Talus WriteBatch encoding (bytes from WriteBatch.data()); RocksDB's encoding is"
              + " not accepted");
    }
    buf = serialized.clone();
    Arrays.fill(buf, 0, MARK.length, (byte) 0);
    size = buf.length;
    int declared =
        (buf[8] & 0xff) | (buf[9] & 0xff) << 8 | (buf[10] & 0xff) << 16 | (buf[11] & 0xff) << 24;
    int at = HEADER;
    while (at < size) {
      byte tag = buf[at++];
      int fields;
      if (tag == VALUE || tag == RANGE_DELETION || tag == MERGE) {
        fields = 2;
      } else if (tag == DELETION || tag == SINGLE_DELETION) {
        fields = 1;
      } else {
        throw new IllegalArgumentException(
            "serialized WriteBatch: unknown record tag " + tag + " at byte " + (at - 1));
      }
      for (int f = 0; f < fields; f++) {
        at = skipLengthPrefixed(at);
      }
      record(tag);
    }
    if (count != declared) {
      throw new IllegalArgumentException(
          "serialized WriteBatch says " + declared + " records but holds " + count);
    }
  }

  /** The offset after the length-prefixed field at {@code at} of {@code buf[0, size)}. */
  private int skipLengthPrefixed(int at) {
    long len = 0;
    for (int shift = 0; ; shift += 7) {
      if (at >= size || shift > 28) {
        throw new IllegalArgumentException("serialized WriteBatch: bad length at byte " + at);
      }
      byte b = buf[at++];
      len |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        break;
      }
    }
    if (len > size - at) {
      throw new IllegalArgumentException(
          "serialized WriteBatch: a field of " + len + " bytes runs past the end at byte " + at);
    }
    return at + (int) len;
  }

  private void ensure(long extra) {
    long need = size + extra;
    if (need > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("WriteBatch would exceed 2 GiB");
    }
    if (need > buf.length) {
      buf = Arrays.copyOf(buf, (int) Math.max(need, Math.min(Integer.MAX_VALUE - 16L, buf.length * 2L)));
    }
  }

  private void varint(int v) {
    while ((v & ~0x7f) != 0) {
      buf[size++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
  }

  private void bytes(byte[] b, int off, int len) {
    varint(len);
    System.arraycopy(b, off, buf, size, len);
    size += len;
  }

  private void bytes(ByteBuffer b) {
    int len = b.remaining();
    varint(len);
    b.get(buf, size, len);
    size += len;
  }

  /**
   * Starts a record of {@code kind} in family {@code columnFamily}: the default family's records
   * are the plain ones; another family's kind byte has bit 7 set and its id follows as a varint
   * (the engine's {@code write_batch} format).
   */
  private void kindOf(byte kind, ColumnFamilyHandle columnFamily) {
    int id = columnFamily == null ? 0 : columnFamily.idForBatch();
    if (id == 0) {
      buf[size++] = kind;
    } else {
      buf[size++] = (byte) (0x80 | kind);
      varint(id);
    }
  }

  private void record(byte kind) {
    count++;
    kinds |= 1 << kind;
  }

  /**
   * Adds a put of {@code key} to {@code value} in column family {@code columnFamily}.
   *
   * @param columnFamily the family (null: the default one)
   * @param key the key
   * @param value the value
   * @throws TalusException never; declared for RocksJava compatibility
   * @throws IllegalStateException if the handle is closed
   */
  public void put(ColumnFamilyHandle columnFamily, byte[] key, byte[] value)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    ensure(16L + key.length + value.length);
    kindOf(VALUE, columnFamily);
    bytes(key, 0, key.length);
    bytes(value, 0, value.length);
    record(VALUE);
  }

  /**
   * Adds a delete of {@code key} in column family {@code columnFamily}.
   *
   * @param columnFamily the family (null: the default one)
   * @param key the key
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void delete(ColumnFamilyHandle columnFamily, byte[] key) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    ensure(11L + key.length);
    kindOf(DELETION, columnFamily);
    bytes(key, 0, key.length);
    record(DELETION);
  }

  /**
   * Adds a single delete of {@code key} in column family {@code columnFamily}.
   *
   * @param columnFamily the family (null: the default one)
   * @param key the key
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void singleDelete(ColumnFamilyHandle columnFamily, byte[] key) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    ensure(11L + key.length);
    kindOf(SINGLE_DELETION, columnFamily);
    bytes(key, 0, key.length);
    record(SINGLE_DELETION);
  }

  /**
   * Adds a delete of every key in {@code [beginKey, endKey)} of column family {@code
   * columnFamily}.
   *
   * @param columnFamily the family (null: the default one)
   * @param beginKey first key deleted
   * @param endKey first key kept
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void deleteRange(ColumnFamilyHandle columnFamily, byte[] beginKey, byte[] endKey)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(beginKey, "beginKey");
    Objects.requireNonNull(endKey, "endKey");
    ensure(16L + beginKey.length + endKey.length);
    kindOf(RANGE_DELETION, columnFamily);
    bytes(beginKey, 0, beginKey.length);
    bytes(endKey, 0, endKey.length);
    record(RANGE_DELETION);
  }

  /**
   * Adds a merge of the operand {@code value} into {@code key}'s value in column family {@code
   * columnFamily}, resolved by that family's merge operator.
   *
   * @param columnFamily the family (null: the default one)
   * @param key the key
   * @param value the merge operand
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void merge(ColumnFamilyHandle columnFamily, byte[] key, byte[] value)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    ensure(16L + key.length + value.length);
    kindOf(MERGE, columnFamily);
    bytes(key, 0, key.length);
    bytes(value, 0, value.length);
    record(MERGE);
  }

  /**
   * Adds a put, in column family {@code columnFamily}, of the key in {@code key} to the value in
   * {@code value} (position to limit; both positions move to their limits).
   *
   * @param columnFamily the family (null: the default one)
   * @param key the key buffer
   * @param value the value buffer
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void put(ColumnFamilyHandle columnFamily, ByteBuffer key, ByteBuffer value)
      throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    ensure(16L + key.remaining() + value.remaining());
    kindOf(VALUE, columnFamily);
    bytes(key);
    bytes(value);
    record(VALUE);
  }

  /**
   * Adds a delete, in column family {@code columnFamily}, of the key in {@code key} (position to
   * limit; the position moves to the limit).
   *
   * @param columnFamily the family (null: the default one)
   * @param key the key buffer
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void delete(ColumnFamilyHandle columnFamily, ByteBuffer key) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    ensure(11L + key.remaining());
    kindOf(DELETION, columnFamily);
    bytes(key);
    record(DELETION);
  }

  /**
   * Adds a put of {@code key} to {@code value}.
   *
   * @param key the key
   * @param value the value
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void put(byte[] key, byte[] value) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    ensure(11L + key.length + value.length);
    buf[size++] = VALUE;
    bytes(key, 0, key.length);
    bytes(value, 0, value.length);
    record(VALUE);
  }

  /**
   * Adds a put of the key in {@code key} to the value in {@code value} (position to limit; both
   * positions move to their limits).
   *
   * @param key the key buffer
   * @param value the value buffer
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void put(ByteBuffer key, ByteBuffer value) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    ensure(11L + key.remaining() + value.remaining());
    buf[size++] = VALUE;
    bytes(key);
    bytes(value);
    record(VALUE);
  }

  /**
   * Adds a delete of {@code key}.
   *
   * @param key the key
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void delete(byte[] key) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    ensure(6L + key.length);
    buf[size++] = DELETION;
    bytes(key, 0, key.length);
    record(DELETION);
  }

  /**
   * Adds a delete of the key in {@code key} (position to limit; the position moves to the
   * limit).
   *
   * @param key the key buffer
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void delete(ByteBuffer key) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    ensure(6L + key.remaining());
    buf[size++] = DELETION;
    bytes(key);
    record(DELETION);
  }

  /**
   * Adds a delete of every key in {@code [beginKey, endKey)}.
   *
   * @param beginKey first key deleted
   * @param endKey first key kept
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void deleteRange(byte[] beginKey, byte[] endKey) throws TalusException {
    checkOpen();
    Objects.requireNonNull(beginKey, "beginKey");
    Objects.requireNonNull(endKey, "endKey");
    ensure(11L + beginKey.length + endKey.length);
    buf[size++] = RANGE_DELETION;
    bytes(beginKey, 0, beginKey.length);
    bytes(endKey, 0, endKey.length);
    record(RANGE_DELETION);
  }

  /**
   * Adds a merge of the operand {@code value} into {@code key}'s value (see {@link
   * TalusDB#merge(byte[], byte[])}). Writing the batch to a database without a merge operator
   * fails with {@code InvalidArgument}, as in RocksDB, and writes nothing of the batch.
   *
   * @param key the key
   * @param value the merge operand
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void merge(byte[] key, byte[] value) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    ensure(11L + key.length + value.length);
    buf[size++] = MERGE;
    bytes(key, 0, key.length);
    bytes(value, 0, value.length);
    record(MERGE);
  }

  /**
   * Adds a single delete of {@code key}: it deletes the key's most recent put (see {@link
   * TalusDB#singleDelete(byte[])} for the contract and what Talus does when it is broken).
   *
   * @param key the key
   * @throws TalusException never; declared for RocksJava compatibility
   */
  public void singleDelete(byte[] key) throws TalusException {
    checkOpen();
    Objects.requireNonNull(key, "key");
    ensure(6L + key.length);
    buf[size++] = SINGLE_DELETION;
    bytes(key, 0, key.length);
    record(SINGLE_DELETION);
  }

  /** Removes every update. */
  public void clear() {
    checkOpen();
    size = HEADER;
    count = 0;
    kinds = 0;
    savePoints.clear();
  }

  /** @return the number of updates */
  public int count() {
    checkOpen();
    return count;
  }

  /** @return the encoded size in bytes */
  public long getDataSize() {
    checkOpen();
    return size;
  }

  /** @return true when the batch holds a put */
  public boolean hasPut() {
    checkOpen();
    return (kinds & (1 << VALUE)) != 0;
  }

  /** @return true when the batch holds a delete */
  public boolean hasDelete() {
    checkOpen();
    return (kinds & (1 << DELETION)) != 0;
  }

  /** @return true when the batch holds a range delete */
  public boolean hasDeleteRange() {
    checkOpen();
    return (kinds & (1 << RANGE_DELETION)) != 0;
  }

  /** @return true when the batch holds a merge */
  public boolean hasMerge() {
    checkOpen();
    return (kinds & (1 << MERGE)) != 0;
  }

  /** @return true when the batch holds a single delete */
  public boolean hasSingleDelete() {
    checkOpen();
    return (kinds & (1 << SINGLE_DELETION)) != 0;
  }

  /** Remembers the current end of the batch for {@link #rollbackToSavePoint()}. */
  public void setSavePoint() {
    checkOpen();
    savePoints.push(new int[] {size, count, kinds});
  }

  /**
   * Drops every update added since the last {@link #setSavePoint()}, and that save point.
   *
   * @throws TalusException with {@code NotFound} when there is no save point
   */
  public void rollbackToSavePoint() throws TalusException {
    checkOpen();
    int[] sp = savePoints.poll();
    if (sp == null) {
      throw new TalusException(new Status(Status.Code.NotFound, Status.SubCode.None,
          "rollbackToSavePoint: no save point"));
    }
    size = sp[0];
    count = sp[1];
    kinds = sp[2];
  }

  /**
   * Forgets the last save point without rolling back.
   *
   * @throws TalusException with {@code NotFound} when there is no save point
   */
  public void popSavePoint() throws TalusException {
    checkOpen();
    if (savePoints.poll() == null) {
      throw new TalusException(new Status(Status.Code.NotFound, Status.SubCode.None,
          "popSavePoint: no save point"));
    }
  }

  /**
   * @return a copy of the encoded batch (Talus's encoding, its first 8 bytes the mark {@link
   *     #WriteBatch(byte[])} looks for)
   */
  public byte[] data() {
    checkOpen();
    byte[] out = Arrays.copyOf(buffer(), size);
    System.arraycopy(MARK, 0, out, 0, MARK.length);
    return out;
  }

  /** The encoding buffer with the count in the header; valid up to {@link #size()}. */
  byte[] buffer() {
    checkOpen();
    buf[8] = (byte) count;
    buf[9] = (byte) (count >>> 8);
    buf[10] = (byte) (count >>> 16);
    buf[11] = (byte) (count >>> 24);
    return buf;
  }

  int size() {
    return size;
  }

  /**
   * Marks the batch closed and drops its buffer; later use throws {@link IllegalStateException}.
   * Idempotent.
   */
  @Override
  public void close() {
    super.close();
    buf = new byte[0];
  }
}
