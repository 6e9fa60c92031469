package dev.talus;

import static dev.talus.Lsm.b;
import static dev.talus.Lsm.s;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.NavigableMap;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code keyMayExist} (never false for a key that exists; a value only when found in memory) and
 * {@code keyExists} (exact), in every overload, over data in the memtable, L0 and deeper levels.
 */
class KeyMayExistTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("keymayexist");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static ByteBuffer direct(byte[] b) {
    ByteBuffer buf = ByteBuffer.allocateDirect(b.length + 4);
    buf.position(2);
    buf.put(b);
    buf.flip();
    buf.position(2);
    return buf;
  }

  @Test
  void neverFalseForPresentKeysAndValuesOnlyWhenFound() throws Exception {
    try (Options o = Lsm.smallOptions()
        .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10)));
        TalusDB db = TalusDB.open(o, dir.toString());
        ReadOptions ro = new ReadOptions()) {
      NavigableMap<String, byte[]> model = Lsm.layered(db);
      Random r = new Random(5);
      Holder<byte[]> h = new Holder<>();
      int withValue = 0;
      for (String k : model.keySet()) {
        byte[] want = model.get(k);
        h.setValue(b("stale"));
        assertTrue(db.keyMayExist(b(k), h), k);
        if (h.getValue() != null) {
          assertArrayEquals(want, h.getValue(), k);
          withValue++;
        }
        assertTrue(db.keyMayExist(ro, b(k), null), k);
        byte[] padded = b("xx" + k + "yy");
        assertTrue(db.keyMayExist(padded, 2, k.length(), null), k);
        assertTrue(db.keyMayExist(ro, padded, 2, k.length(), h), k);
        assertTrue(db.keyExists(b(k)), k);
        assertTrue(db.keyExists(padded, 2, k.length()), k);
        assertTrue(db.keyExists(ro, b(k)), k);
        ByteBuffer key = direct(b(k));
        assertTrue(db.keyExists(key), k);
        assertEquals(2, key.position(), "keyExists leaves the position, as RocksJava");
        assertTrue(db.keyMayExist(key), k);
        assertEquals(key.limit(), key.position(), "keyMayExist moves it to the limit");
        ByteBuffer value = ByteBuffer.allocateDirect(8);
        KeyMayExist kme = db.keyMayExist(ro, direct(b(k)), value);
        assertTrue(kme.exists != KeyMayExist.KeyMayExistEnum.kNotExist, k);
        if (kme.exists == KeyMayExist.KeyMayExistEnum.kExistsWithValue) {
          assertEquals(want.length, kme.valueLength);
          assertEquals(Math.min(8, want.length), value.remaining());
          byte[] got = new byte[value.remaining()];
          value.get(got);
          assertArrayEquals(java.util.Arrays.copyOf(want, got.length), got);
        } else {
          assertEquals(0, value.remaining());
        }
        // Heap buffers take the copying path.
        assertTrue(db.keyMayExist(ByteBuffer.wrap(b(k))));
        assertTrue(db.keyExists(ByteBuffer.wrap(b(k))));
      }
      assertTrue(withValue > 0, "some values were found in memory");
      for (int i = 0; i < 2000; i++) {
        String k = "absent-" + r.nextInt(1_000_000);
        h.setValue(b("stale"));
        boolean may = db.keyMayExist(b(k), h);
        assertNull(h.getValue(), "no value for an absent key");
        assertFalse(db.keyExists(b(k)), k);
        KeyMayExist kme = db.keyMayExist(direct(b(k)), ByteBuffer.allocateDirect(4));
        assertTrue(kme.exists != KeyMayExist.KeyMayExistEnum.kExistsWithValue, k);
        assertEquals(may, db.keyMayExist(b(k), null), k);
      }
      // Deleted keys are certainly absent when the deletion is in memory.
      String gone = model.firstKey();
      db.delete(b(gone));
      assertFalse(db.keyMayExist(b(gone), h));
      assertNull(h.getValue());
      assertFalse(db.keyExists(b(gone)));
    }
  }

  @Test
  void snapshotsAndMisuse() throws Exception {
    try (Options o = Lsm.smallOptions(); TalusDB db = TalusDB.open(o, dir.toString())) {
      db.put(b("k"), b("old"));
      try (Snapshot snap = db.getSnapshot(); ReadOptions at = new ReadOptions().setSnapshot(snap)) {
        db.put(b("k"), b("new"));
        db.delete(b("k"));
        Holder<byte[]> h = new Holder<>();
        assertTrue(db.keyMayExist(at, b("k"), h));
        assertEquals("old", s(h.getValue()));
        assertTrue(db.keyExists(at, b("k")));
        assertFalse(db.keyExists(b("k")));
      }
      assertThrows(NullPointerException.class, () -> db.keyMayExist((byte[]) null, null));
      assertThrows(IndexOutOfBoundsException.class, () -> db.keyExists(b("k"), 1, 5));
      assertThrows(IllegalArgumentException.class,
          () -> db.keyMayExist(ByteBuffer.allocateDirect(1), ByteBuffer.allocate(4)
              .asReadOnlyBuffer()));
      db.close();
      assertThrows(IllegalStateException.class, () -> db.keyMayExist(b("k"), null));
      assertThrows(IllegalStateException.class, () -> db.keyExists(b("k")));
    }
  }
}
