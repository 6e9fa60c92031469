package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The packed layout of multi-get keys and values, on the Java side alone. */
class PackedBytesTest {
  /**
   * Random lists (empty entries included, so some fall exactly at a chunk's end) packed at random
   * limits unpack to equal lists; every chunk stays within the limit and is full enough that the
   * next chunk's first entry would not have fitted.
   */
  @Test
  void packThenUnpackIsTheIdentityAtEveryLimit() {
    Random rnd = new Random(11);
    for (int round = 0; round < 500; round++) {
      int n = rnd.nextInt(40);
      List<byte[]> entries = new ArrayList<>();
      int longest = 1;
      for (int i = 0; i < n; i++) {
        byte[] e = new byte[rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(30)];
        rnd.nextBytes(e);
        entries.add(e);
        longest = Math.max(longest, e.length);
      }
      int limit = longest + rnd.nextInt(3 * longest);
      PackedBytes p = PackedBytes.pack(entries, limit, "keys");
      assertTrue(p.chunks.length >= 1);
      int total = 0;
      for (byte[] c : p.chunks) {
        assertTrue(c.length <= limit, "chunk within the limit");
        total += c.length;
      }
      assertEquals(entries.stream().mapToInt(e -> e.length).sum(), total);
      List<byte[]> back = PackedBytes.unpack(p.chunks, p.lengths);
      assertEquals(n, back.size());
      for (int i = 0; i < n; i++) {
        assertArrayEquals(entries.get(i), back.get(i), "round " + round + " entry " + i);
      }
    }
  }

  /** A length of -1 is a null entry and takes no bytes, wherever it falls. */
  @Test
  void minusOneUnpacksAsNull() {
    byte[][] chunks = {{1, 2, 3}, {4, 5}};
    List<byte[]> got = PackedBytes.unpack(chunks, new int[] {-1, 2, 0, -1, 1, 0, 2, -1});
    assertNull(got.get(0));
    assertArrayEquals(new byte[] {1, 2}, got.get(1));
    assertArrayEquals(new byte[0], got.get(2));
    assertNull(got.get(3));
    assertArrayEquals(new byte[] {3}, got.get(4));
    assertArrayEquals(new byte[0], got.get(5));
    assertArrayEquals(new byte[] {4, 5}, got.get(6));
    assertNull(got.get(7));
    assertEquals(8, got.size());
  }

  @Test
  void nullEntriesAndEntriesOverTheLimitAreRefusedByName() {
    NullPointerException npe = assertThrows(NullPointerException.class,
        () -> PackedBytes.pack(Arrays.asList(new byte[1], null), 10, "keys"));
    assertEquals("keys element", npe.getMessage());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PackedBytes.pack(List.of(new byte[3], new byte[11]), 10, "keys"));
    assertEquals("keys element 1 has 11 bytes, more than 10", e.getMessage());
    PackedBytes empty = PackedBytes.pack(List.of(), 10, "keys");
    assertEquals(1, empty.chunks.length);
    assertEquals(0, empty.lengths.length);
  }
}
