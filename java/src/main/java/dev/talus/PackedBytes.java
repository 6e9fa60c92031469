package dev.talus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Many byte arrays passed to and from native code in a few: the keys and values of a multi-get.
 * The native library's {@code packed} module is the other half of this layout.
 *
 * <p>A list of {@code n} entries is a {@code byte[][] chunks} and an {@code int[] lengths} of
 * {@code n} elements, {@code -1} for a null entry (absent values). Entries lie end to end in chunk
 * 0, in order; an entry that does not fit in what is left of the chunk limit starts the next
 * chunk. Unpacking, an entry that does not fit in what is left of the current chunk's length is
 * the first of the next chunk; as no entry exceeds the limit, the two rules agree. There is always
 * at least one chunk.
 *
 * <p>Why: each array passed or made one at a time is a few calls into the JVM, each a
 * thread-state transition with a full memory fence; packed, a multi-get makes a fixed handful of
 * such calls whatever its size, and the copies in and out run as compiled Java code.
 */
final class PackedBytes {
  /** The most bytes of one chunk: about the largest array a JVM allocates. */
  static final int MAX_CHUNK = Integer.MAX_VALUE - 8;

  final byte[][] chunks;
  final int[] lengths;

  private PackedBytes(byte[][] chunks, int[] lengths) {
    this.chunks = chunks;
    this.lengths = lengths;
  }

  /**
   * Packs {@code entries} into chunks of at most {@code chunkLimit} bytes.
   *
   * @param entries the entries, none null
   * @param chunkLimit the most bytes of a chunk; no entry may be longer
   * @param what what the entries are, for the messages ({@code "keys"})
   * @throws NullPointerException naming {@code what} for a null entry
   * @throws IllegalArgumentException if an entry is longer than {@code chunkLimit}
   */
  static PackedBytes pack(List<byte[]> entries, int chunkLimit, String what) {
    byte[][] arr = entries.toArray(new byte[0][]);
    int n = arr.length;
    int[] lengths = new int[n];
    List<Integer> chunkSizes = new ArrayList<>(1);
    int used = 0;
    for (int i = 0; i < n; i++) {
      byte[] e = Objects.requireNonNull(arr[i], what + " element");
      int len = e.length;
      if (len > chunkLimit) {
        throw new IllegalArgumentException(
            what + " element " + i + " has " + len + " bytes, more than " + chunkLimit);
      }
      if (len > chunkLimit - used) {
        chunkSizes.add(used);
        used = 0;
      }
      used += len;
      lengths[i] = len;
    }
    chunkSizes.add(used);
    byte[][] chunks = new byte[chunkSizes.size()][];
    int c = 0;
    int pos = 0;
    chunks[0] = new byte[chunkSizes.get(0)];
    for (int i = 0; i < n; i++) {
      int len = lengths[i];
      if (len > chunks[c].length - pos) {
        c++;
        chunks[c] = new byte[chunkSizes.get(c)];
        pos = 0;
      }
      System.arraycopy(arr[i], 0, chunks[c], pos, len);
      pos += len;
    }
    return new PackedBytes(chunks, lengths);
  }

  /**
   * The entries of a packed list, {@code null} where {@code lengths} has {@code -1}.
   *
   * @param chunks the chunks, at least one
   * @param lengths one length per entry
   * @return a new list of new arrays
   */
  static List<byte[]> unpack(byte[][] chunks, int[] lengths) {
    List<byte[]> out = new ArrayList<>(lengths.length);
    int c = 0;
    int pos = 0;
    for (int len : lengths) {
      if (len < 0) {
        out.add(null);
        continue;
      }
      if (len > chunks[c].length - pos) {
        c++;
        pos = 0;
      }
      out.add(Arrays.copyOfRange(chunks[c], pos, pos + len));
      pos += len;
    }
    return out;
  }
}
