package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Small-buffer options and a database whose data is spread over the memtable, L0 and two deeper
 * levels, with a {@link TreeMap} model of what it holds. Keys are ASCII, so the model's string
 * order is the engine's byte order.
 */
final class Lsm {
  private Lsm() {}

  static final int BASE_KEYS = 4000;

  /** Options that make a few hundred KB of writes flush and compact through several levels. */
  static Options smallOptions() {
    return new Options()
        .setCreateIfMissing(true)
        .setWriteBufferSize(64 << 10)
        .setTargetFileSizeBase(64 << 10)
        .setMaxBytesForLevelBase(256 << 10)
        .setMaxBytesForLevelMultiplier(4)
        .setLevel0FileNumCompactionTrigger(2);
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  static String key(int i) {
    return String.format("key%06d", i);
  }

  /**
   * A value naming its key and the phase that wrote it, padded to {@code len} bytes with
   * pseudo-random letters (which LZ4 cannot shrink much, so table sizes track the data written).
   */
  static byte[] value(String phase, int i, int len) {
    byte[] v = new byte[len];
    byte[] head = b(phase + ":" + i + ":");
    long x = phase.hashCode() * 0x9E3779B97F4A7C15L + i;
    for (int j = 0; j < len; j++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      v[j] = j < head.length ? head[j] : (byte) ('a' + (int) ((x >>> 33) % 26));
    }
    return v;
  }

  /** Number of files at {@code level}, from {@code rocksdb.num-files-at-level<N>}. */
  static long files(TalusDB db, int level) throws TalusException {
    return db.getLongProperty("rocksdb.num-files-at-level" + level);
  }

  /** Levels below L0 that hold files. */
  static int deepLevels(TalusDB db) throws TalusException {
    int n = 0;
    for (int level = 1; level < db.numberLevels(); level++) {
      if (files(db, level) > 0) {
        n++;
      }
    }
    return n;
  }

  /**
   * Writes four generations of data, leaving (as checked here) the oldest in two levels below
   * L0, an overwriting generation in L0 and the newest in the memtable; auto compactions are off
   * when this returns. Every generation overwrites and deletes some keys of the older ones, so
   * reads must merge all the layers.
   */
  static NavigableMap<String, byte[]> layered(TalusDB db) throws TalusException {
    NavigableMap<String, byte[]> model = new TreeMap<>();
    try (WriteOptions wo = new WriteOptions()) {
      // Generation 1: every key, compacted into the last level.
      for (int i = 0; i < BASE_KEYS; i++) {
        put(db, wo, model, key(i), value("g1", i, 200));
      }
      db.compactRange();
      // Generation 2: a third of the keys again, compacted automatically into the base level,
      // which sits above the last level once that one outgrows the base size.
      for (int i = 0; i < BASE_KEYS; i += 3) {
        put(db, wo, model, key(i), value("g2", i, 200));
      }
      for (int i = 1; i < BASE_KEYS; i += 13) {
        db.delete(wo, b(key(i)));
        model.remove(key(i));
      }
      try (FlushOptions fo = new FlushOptions()) {
        db.flush(fo);
      }
      db.waitForCompactions();
      db.disableAutoCompaction();
      // Generation 3: one L0 table.
      for (int i = 0; i < BASE_KEYS; i += 7) {
        put(db, wo, model, key(i), value("g3", i, 120));
      }
      for (int i = 2; i < BASE_KEYS; i += 17) {
        db.delete(wo, b(key(i)));
        model.remove(key(i));
      }
      try (FlushOptions fo = new FlushOptions()) {
        db.flush(fo);
      }
      // Generation 4: the memtable, including a range deletion and keys beyond the old ones.
      for (int i = 0; i < BASE_KEYS; i += 11) {
        put(db, wo, model, key(i), value("g4", i, 50));
      }
      db.deleteRange(wo, b(key(1000)), b(key(1100)));
      model.subMap(key(1000), key(1100)).clear();
      for (int i = BASE_KEYS; i < BASE_KEYS + 100; i++) {
        put(db, wo, model, key(i), value("g4", i, 50));
      }
    }
    // Generation 4 may fill a memtable, whose flush then runs in the background: let it land so
    // that callers see one settled shape (PropertiesTest compared levelstats with a per-level
    // count read just after and saw the flush land between the two).
    db.waitForCompactions();
    assertTrue(files(db, 0) >= 1, "an L0 table: " + db.getProperty("rocksdb.levelstats"));
    assertTrue(deepLevels(db) >= 2, "two deeper levels: " + db.getProperty("rocksdb.levelstats"));
    assertTrue(db.getLongProperty("rocksdb.num-entries-active-mem-table") > 0, "memtable");
    return model;
  }

  private static void put(TalusDB db, WriteOptions wo, Map<String, byte[]> model, String k,
      byte[] v) throws TalusException {
    db.put(wo, b(k), v);
    model.put(k, v);
  }

  /** Scans forward and backward and compares with {@code model}. */
  static void assertScansMatch(TalusDB db, ReadOptions ro, NavigableMap<String, byte[]> model) {
    try (TalusIterator it = db.newIterator(ro)) {
      it.seekToFirst();
      for (Map.Entry<String, byte[]> e : model.entrySet()) {
        assertTrue(it.isValid(), "forward scan ends before " + e.getKey());
        assertEquals(e.getKey(), s(it.key()));
        assertArrayEquals(e.getValue(), it.value(), e.getKey());
        it.next();
      }
      assertFalse(it.isValid(), () -> "forward scan goes on at " + s(it.key()));
      it.seekToLast();
      for (Map.Entry<String, byte[]> e : model.descendingMap().entrySet()) {
        assertTrue(it.isValid(), "backward scan ends before " + e.getKey());
        assertEquals(e.getKey(), s(it.key()));
        assertArrayEquals(e.getValue(), it.value(), e.getKey());
        it.prev();
      }
      assertFalse(it.isValid(), () -> "backward scan goes on at " + s(it.key()));
    }
  }

  /** Reads every key of {@code model} and a few absent ones with get. */
  static void assertGetsMatch(TalusDB db, ReadOptions ro, NavigableMap<String, byte[]> model,
      int maxKey) throws TalusException {
    for (int i = 0; i < maxKey; i++) {
      byte[] want = model.get(key(i));
      byte[] got = db.get(ro, b(key(i)));
      if (!Arrays.equals(want, got)) {
        assertEquals(want == null ? null : s(want), got == null ? null : s(got), key(i));
      }
    }
  }
}
