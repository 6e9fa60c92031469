package dev.talus;

import static dev.talus.Lsm.b;
import static dev.talus.Lsm.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** multiGetAsList and the ByteBuffer (direct and heap) forms of put, get and delete. */
class ReadWriteOverloadsTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("overloads");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  @Test
  void multiGetAsListOverEveryLayer() throws Exception {
    try (Options o = Lsm.smallOptions(); TalusDB db = TalusDB.open(o, dir.toString())) {
      NavigableMap<String, byte[]> model = Lsm.layered(db);
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < Lsm.BASE_KEYS + 150; i += 7) {
        keys.add(b(key(i)));
      }
      keys.add(b("absent"));
      keys.add(b(key(7))); // a repeated key
      keys.add(new byte[0]);
      List<byte[]> got = db.multiGetAsList(keys);
      assertEquals(keys.size(), got.size());
      for (int i = 0; i < keys.size(); i++) {
        String k = Lsm.s(keys.get(i));
        assertArrayEquals(model.get(k), got.get(i), k);
      }
      try (ReadOptions ro = new ReadOptions()) {
        assertEquals(0, db.multiGetAsList(ro, new ArrayList<>()).size());
      }
      List<byte[]> withNull = new ArrayList<>(keys);
      withNull.add(null);
      assertThrows(NullPointerException.class, () -> db.multiGetAsList(withNull));
    }
  }

  /**
   * Keys and values cross to and from native code packed ({@link PackedBytes}): many keys and
   * values of several MiB come back whole and in order.
   */
  @Test
  void multiGetAsListOfManyKeysAndLargeValues() throws Exception {
    try (Options o = Lsm.smallOptions(); TalusDB db = TalusDB.open(o, dir.toString())) {
      int big = 4 << 20;
      for (int i = 0; i < 4; i++) {
        byte[] v = new byte[big + i];
        Arrays.fill(v, (byte) ('a' + i));
        db.put(b("big" + i), v);
      }
      for (int i = 0; i < 20_000; i++) {
        db.put(b(key(i)), b("v" + i));
      }
      db.flush(new FlushOptions().setWaitForFlush(true));
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < 40_000; i += 2) { // every other key is absent past 20,000
        keys.add(b(key(i)));
        if (i % 10_000 == 0) {
          keys.add(b("big" + (i / 10_000)));
        }
      }
      List<byte[]> got = db.multiGetAsList(keys);
      assertEquals(keys.size(), got.size());
      for (int j = 0; j < keys.size(); j++) {
        String k = Lsm.s(keys.get(j));
        if (k.startsWith("big")) {
          int i = k.charAt(3) - '0';
          assertEquals(big + i, got.get(j).length, k);
          assertEquals('a' + i, got.get(j)[big + i - 1], k);
        } else {
          int i = Integer.parseInt(k.replaceAll("\\D", ""));
          if (i < 20_000) {
            assertArrayEquals(b("v" + i), got.get(j), k);
          } else {
            assertNull(got.get(j), k);
          }
        }
      }
    }
  }

  /**
   * Packed across several chunks, a multi-get still returns each key's value in the caller's
   * order: chunk limits from the longest entry (a chunk per value or so) up, over every layer of
   * the tree, with absent, repeated and empty keys and an empty value, each checked against the
   * model; on the default and on a second column family.
   */
  @Test
  void multiGetAsListAcrossManyChunksMatchesTheModel() throws Exception {
    try (Options o = Lsm.smallOptions(); TalusDB db = TalusDB.open(o, dir.toString());
        ColumnFamilyOptions cfo = new ColumnFamilyOptions()) {
      NavigableMap<String, byte[]> model = Lsm.layered(db);
      db.put(b("empty-value"), new byte[0]);
      model.put("empty-value", new byte[0]);
      ColumnFamilyHandle cf = db.createColumnFamily(new ColumnFamilyDescriptor(b("cf1"), cfo));
      List<byte[]> keys = new ArrayList<>();
      List<ColumnFamilyHandle> families = new ArrayList<>();
      java.util.Random rnd = new java.util.Random(7);
      for (int i = 0; i < 600; i++) {
        int k = rnd.nextInt(Lsm.BASE_KEYS + 300);
        keys.add(b(key(k)));
        keys.add(b("empty-value"));
        if (i % 50 == 0) {
          keys.add(new byte[0]);
          keys.add(b("absent" + i));
        }
      }
      int longest = 0;
      for (byte[] k : keys) {
        longest = Math.max(longest, k.length);
        byte[] v = model.get(Lsm.s(k));
        longest = Math.max(longest, v == null ? 0 : v.length);
        // Family cf1 holds each key reversed as its value.
        byte[] rev = b(new StringBuilder(Lsm.s(k)).reverse().toString());
        db.put(cf, k, rev);
        families.add(cf);
      }
      ColumnFamilyHandle dflt = db.getDefaultColumnFamily();
      for (int limit : new int[] {longest, longest + 1, 3 * longest, PackedBytes.MAX_CHUNK}) {
        List<byte[]> got = db.multiGetAsList(null, keys, limit);
        List<byte[]> gotCf = db.multiGetAsList(null, families, keys, limit);
        assertEquals(keys.size(), got.size());
        assertEquals(keys.size(), gotCf.size());
        for (int i = 0; i < keys.size(); i++) {
          String k = Lsm.s(keys.get(i));
          assertArrayEquals(model.get(k), got.get(i), limit + ": " + k);
          assertArrayEquals(b(new StringBuilder(k).reverse().toString()), gotCf.get(i),
              limit + ": cf1 " + k);
        }
        List<byte[]> viaDefault =
            db.multiGetAsList(null, java.util.Collections.nCopies(keys.size(), dflt), keys, limit);
        for (int i = 0; i < keys.size(); i++) {
          assertArrayEquals(model.get(Lsm.s(keys.get(i))), viaDefault.get(i));
        }
      }
      // A found value longer than the chunk limit is refused by name, as is such a key.
      String present = model.keySet().stream()
          .filter(k -> model.get(k).length > k.length()).findFirst().orElseThrow();
      int keyLength = present.length();
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> db.multiGetAsList(null, List.of(b(present)), keyLength));
      assertEquals("a value of " + model.get(present).length
          + " bytes exceeds the chunk limit of " + keyLength + " bytes", e.getMessage());
      IllegalArgumentException k = assertThrows(IllegalArgumentException.class,
          () -> db.multiGetAsList(null, List.of(b("abcdef")), 4));
      assertEquals("keys element 0 has 6 bytes, more than 4", k.getMessage());
      cf.close();
    }
  }

  private static ByteBuffer buf(boolean direct, int capacity) {
    return direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
  }

  /** A buffer holding {@code s} between position 2 and the limit, with junk around it. */
  private static ByteBuffer holding(boolean direct, String s) {
    ByteBuffer bb = buf(direct, s.length() + 8);
    bb.put(b("##")).put(b(s)).put(b("@@@")).flip();
    bb.position(2).limit(2 + s.length());
    return bb;
  }

  @Test
  void byteBufferPutGetDeleteDirectAndHeap() throws Exception {
    try (Options o = Lsm.smallOptions(); TalusDB db = TalusDB.open(o, dir.toString());
        WriteOptions wo = new WriteOptions(); ReadOptions ro = new ReadOptions()) {
      for (boolean direct : new boolean[] {true, false}) {
        String tag = direct ? "direct" : "heap";
        for (int i = 0; i < 2000; i++) {
          ByteBuffer k = holding(direct, tag + key(i));
          ByteBuffer v = holding(direct, Lsm.s(Lsm.value(tag, i, 100 + i % 50)));
          db.put(wo, k, v);
          assertEquals(k.limit(), k.position(), "put consumes the key");
          assertEquals(v.limit(), v.position(), "put consumes the value");
        }
        // Some in tables, some in the memtable.
        try (FlushOptions fo = new FlushOptions()) {
          db.flush(fo);
        }
        for (int i = 2000; i < 2100; i++) {
          db.put(wo, holding(direct, tag + key(i)), holding(direct, "late" + i));
        }
        for (int i = 0; i < 2100; i += 3) {
          byte[] want = i < 2000 ? Lsm.value(tag, i, 100 + i % 50) : b("late" + i);
          // Room for the value, after a 4-byte offset.
          ByteBuffer out = buf(direct, 300);
          out.position(4);
          ByteBuffer k = holding(direct, tag + key(i));
          int n = db.get(ro, k, out);
          assertEquals(want.length, n, tag + key(i));
          assertEquals(k.limit(), k.position(), "get consumes the key");
          assertEquals(4, out.position());
          assertEquals(4 + n, out.limit());
          byte[] got = new byte[n];
          out.get(got);
          assertArrayEquals(want, got, tag + key(i));
        }
        // A value buffer too small gets a prefix and the full length.
        ByteBuffer small = buf(direct, 10);
        assertEquals(100, db.get(ro, holding(direct, tag + key(0)), small));
        assertEquals(10, small.limit());
        byte[] prefix = new byte[10];
        small.get(prefix);
        assertArrayEquals(Arrays.copyOf(Lsm.value(tag, 0, 100), 10), prefix);
        assertEquals(TalusDB.NOT_FOUND, db.get(ro, holding(direct, "absent"), buf(direct, 8)));

        for (int i = 0; i < 2100; i += 2) {
          ByteBuffer k = holding(direct, tag + key(i));
          db.delete(wo, k);
          assertEquals(k.limit(), k.position(), "delete consumes the key");
        }
        for (int i = 0; i < 2100; i += 5) {
          byte[] got = db.get(b(tag + key(i)));
          if (i % 2 == 0) {
            assertNull(got, tag + key(i));
          } else {
            assertArrayEquals(i < 2000 ? Lsm.value(tag, i, 100 + i % 50) : b("late" + i), got);
          }
        }
      }
      // Mixed buffer kinds are refused.
      TalusException e = assertThrows(TalusException.class,
          () -> db.put(wo, holding(true, "k"), holding(false, "v")));
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
    }
  }

  /** The bytes of {@code bb} from 0 to its capacity, whatever its position and limit. */
  private static String all(ByteBuffer bb) {
    byte[] out = new byte[bb.capacity()];
    bb.duplicate().clear().get(out);
    return Lsm.s(out);
  }

  private static String state(ByteBuffer bb) {
    return bb.position() + ".." + bb.limit();
  }

  /**
   * Puts and gets whose buffers are views of one buffer (slices, duplicates, the same object):
   * every region of a call is read in full before its output is written, as the heap-buffer paths
   * do by copying first. Run on direct buffers (the native side reads and writes the buffer's
   * memory in place, where overlapping views are the case that needs care) and on heap buffers
   * (whose path copies); both must end in the same bytes, positions and limits. Returns the trace.
   */
  private static List<String> overlappingViews(TalusDB db, WriteOptions wo, ReadOptions ro,
      boolean direct) throws TalusException {
    List<String> trace = new ArrayList<>();
    String p = direct ? "d:" : "h:";
    // put: key [0, 6) and value [3, 10) of one buffer share "def".
    ByteBuffer one = buf(direct, 12).put(b(p + "abcdefghij"));
    ByteBuffer key = one.duplicate().position(0).limit(6);
    ByteBuffer value = one.slice(3, 7);
    db.put(wo, key, value);
    trace.add(state(key) + " " + state(value));
    assertArrayEquals(b("bcdefgh"), db.get(b(p + "abcd")));

    // put: the same buffer object as key and value.
    ByteBuffer same = buf(direct, 9).put(b(p + "samekv")).flip();
    db.put(wo, same, same);
    trace.add(state(same));
    assertArrayEquals(b(p + "samekv"), db.get(b(p + "samekv")));

    // get: the output starts inside the key, and is longer than the value.
    db.put(b(p + "k1"), b("VALUE-1"));
    ByteBuffer shared = buf(direct, 16).put(b(p + "k1")).put(b("#########"));
    ByteBuffer getKey = shared.duplicate().position(0).limit(4);
    ByteBuffer out = shared.duplicate().clear().position(2);
    assertEquals(7, db.get(ro, getKey, out));
    trace.add(state(getKey) + " " + state(out) + " " + all(shared));
    assertEquals(p + "VALUE-1" + "####\0\0\0", all(shared));
    assertEquals("4..4", state(getKey));
    assertEquals("2..9", state(out));

    // get: the output is the key's own region (a duplicate), shorter than the value.
    ByteBuffer exact = buf(direct, 4).put(b(p + "k1")).flip();
    assertEquals(7, db.get(ro, exact, exact.duplicate()));
    trace.add(state(exact) + " " + all(exact));
    assertEquals("VALU", all(exact));

    // get: the same object as key and output. Its limit is the key's end, so only that many
    // bytes of the value fit; the key moves to its limit, which stays.
    ByteBuffer both = buf(direct, 8).put(b(p + "k1")).flip();
    assertEquals(7, db.get(ro, both, both));
    trace.add(state(both) + " " + all(both));
    assertEquals("4..4", state(both));
    assertEquals("VALU" + "\0\0\0\0", all(both));

    // get: an output ending inside the key, the value longer than both; and an absent key whose
    // output overlaps it, which must stay as it was.
    ByteBuffer tail = buf(direct, 8).put(b("##" + p + "k1")).flip();
    ByteBuffer tailKey = tail.duplicate().position(2);
    assertEquals(7, db.get(ro, tailKey, tail.duplicate().position(0).limit(5)));
    trace.add(all(tail));
    assertEquals("VALUE1\0\0", all(tail));
    ByteBuffer absent = buf(direct, 8).put(b(p + "zz")).flip();
    assertEquals(TalusDB.NOT_FOUND, db.get(ro, absent, absent.duplicate().clear()));
    trace.add(all(absent));
    assertEquals(p + "zz\0\0\0\0", all(absent));
    return trace;
  }

  @Test
  void overlappingViewsOfOneBufferAreReadBeforeTheOutputIsWritten() throws Exception {
    try (Options o = Lsm.smallOptions(); TalusDB db = TalusDB.open(o, dir.toString());
        WriteOptions wo = new WriteOptions(); ReadOptions ro = new ReadOptions()) {
      List<String> direct = overlappingViews(db, wo, ro, true);
      List<String> heap = overlappingViews(db, wo, ro, false);
      List<String> heapAsDirect = new ArrayList<>();
      for (String t : heap) {
        heapAsDirect.add(t.replace("h:", "d:"));
      }
      assertEquals(heapAsDirect, direct);
    }
  }
}
