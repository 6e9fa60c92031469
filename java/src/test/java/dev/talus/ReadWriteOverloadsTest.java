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
   * Values are copied into Java one at a time (the native side keeps one value buffer), and the
   * keys into one native buffer: many keys and values of several MiB come back whole and in order.
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
}
