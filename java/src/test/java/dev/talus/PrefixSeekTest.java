package dev.talus;

import static dev.talus.Lsm.b;
import static dev.talus.Lsm.s;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Prefix extractors, prefix Bloom filters and prefix seek against a {@link TreeMap} model, with
 * random keys over a small alphabet (so that many share prefixes), through flushes, compactions
 * and a reopen; the other {@code ReadOptions} a service sets (read tier, tailing, range deletions
 * ignored).
 *
 * <p>What the model checks of a seek to {@code t} with prefix {@code p}: with {@code
 * totalOrderSeek} or {@code autoPrefixMode}, the model's keys from {@code t}; with {@code
 * prefixSameAsStart}, those with prefix {@code p}; in plain prefix mode, the model's keys from
 * {@code t}, ending either exactly at the end of {@code p} or where the model does.
 */
class PrefixSeekTest {
  private static final int STEPS = 30;
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("prefix");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  /** A key of 0 to 6 letters from {@code abcd}: ASCII, so string order is byte order. */
  private static String randomKey(Random r) {
    StringBuilder sb = new StringBuilder();
    int len = r.nextInt(7);
    for (int i = 0; i < len; i++) {
      sb.append("abcd".charAt(r.nextInt(4)));
    }
    return sb.toString();
  }

  /** The prefix of {@code k}, or null outside the extractor's domain. */
  private static String prefix(boolean fixed, int n, String k) {
    if (fixed) {
      return k.length() >= n ? k.substring(0, n) : null;
    }
    return k.substring(0, Math.min(n, k.length()));
  }

  private static Options options(boolean fixed, int n, boolean wholeKeys) {
    Options o = Lsm.smallOptions().setMaxBytesForLevelMultiplier(4);
    if (fixed) {
      o.useFixedLengthPrefixExtractor(n);
    } else {
      o.useCappedPrefixExtractor(n);
    }
    o.setTableFormatConfig(new BlockBasedTableConfig().setBlockSize(512)
        .setFilterPolicy(new BloomFilter(10)).setWholeKeyFiltering(wholeKeys));
    return o;
  }

  private static List<String> forward(TalusDB db, ReadOptions ro, String target) {
    List<String> out = new ArrayList<>();
    try (TalusIterator it = db.newIterator(ro)) {
      it.seek(b(target));
      while (it.isValid() && out.size() < STEPS) {
        out.add(s(it.key()));
        it.next();
      }
    }
    return out;
  }

  private static List<String> backward(TalusDB db, ReadOptions ro, String target) {
    List<String> out = new ArrayList<>();
    try (TalusIterator it = db.newIterator(ro)) {
      it.seekForPrev(b(target));
      while (it.isValid() && out.size() < STEPS) {
        out.add(s(it.key()));
        it.prev();
      }
    }
    return out;
  }

  private static List<String> first(Iterable<String> keys) {
    List<String> out = new ArrayList<>();
    for (String k : keys) {
      if (out.size() == STEPS) {
        break;
      }
      out.add(k);
    }
    return out;
  }

  private static List<String> withPrefix(List<String> keys, boolean fixed, int n, String p) {
    List<String> out = new ArrayList<>();
    for (String k : keys) {
      if (!p.equals(prefix(fixed, n, k))) {
        break;
      }
      out.add(k);
    }
    return out;
  }

  private static void checkSeeks(TalusDB db, TreeMap<String, String> m, boolean fixed, int n,
      String t, String ctx) {
    List<String> fwd = first(m.tailMap(t, true).keySet());
    List<String> back = first(m.headMap(t, true).descendingKeySet());
    try (ReadOptions total = new ReadOptions().setTotalOrderSeek(true);
        ReadOptions same = new ReadOptions().setPrefixSameAsStart(true);
        ReadOptions plain = new ReadOptions();
        ReadOptions auto = new ReadOptions().setAutoPrefixMode(true)) {
      assertEquals(fwd, forward(db, total, t), ctx + " total-order seek " + t);
      assertEquals(back, backward(db, total, t), ctx + " total-order seekForPrev " + t);
      assertEquals(fwd, forward(db, auto, t), ctx + " auto-prefix seek " + t);
      String p = prefix(fixed, n, t);
      if (p == null) {
        assertEquals(fwd, forward(db, same, t), ctx + " out-of-domain seek " + t);
        assertEquals(fwd, forward(db, plain, t), ctx + " out-of-domain seek " + t);
        return;
      }
      List<String> fwdP = withPrefix(fwd, fixed, n, p);
      List<String> backP = withPrefix(back, fixed, n, p);
      assertEquals(fwdP, forward(db, same, t), ctx + " prefixSameAsStart seek " + t);
      assertEquals(backP, backward(db, same, t), ctx + " prefixSameAsStart seekForPrev " + t);
      List<String> got = forward(db, plain, t);
      assertTrue(got.equals(fwdP) || got.equals(fwd),
          ctx + " prefix-mode seek " + t + ": " + got + ", want " + fwdP + " or " + fwd);
      got = backward(db, plain, t);
      assertTrue(got.equals(backP) || got.equals(back),
          ctx + " prefix-mode seekForPrev " + t + ": " + got + ", want " + backP + " or " + back);
      // Auto mode with an upper bound in the prefix: the filters may be used, the results are
      // the total-order ones below the bound.
      String upper = p + "c";
      try (ReadOptions bounded = new ReadOptions().setAutoPrefixMode(true)
          .setIterateUpperBound(b(upper))) {
        List<String> want = new ArrayList<>();
        for (String k : fwd) {
          if (k.compareTo(upper) < 0) {
            want.add(k);
          }
        }
        assertEquals(want, forward(db, bounded, t), ctx + " bounded auto seek " + t);
      }
    }
  }

  private static void checkKeyMayExist(TalusDB db, TreeMap<String, String> m, Random r,
      String ctx) {
    Holder<byte[]> h = new Holder<>();
    for (Map.Entry<String, String> e : m.entrySet()) {
      h.setValue(b("stale"));
      assertTrue(db.keyMayExist(b(e.getKey()), h), ctx + " keyMayExist false for " + e.getKey());
      if (h.getValue() != null) {
        assertEquals(e.getValue(), s(h.getValue()), ctx + " keyMayExist value of " + e.getKey());
      }
      assertTrue(db.keyMayExist(b(e.getKey()), null));
      assertTrue(db.keyExists(b(e.getKey())), ctx + " keyExists " + e.getKey());
    }
    for (int i = 0; i < 100; i++) {
      String k = randomKey(r);
      boolean present = m.containsKey(k);
      assertEquals(present, db.keyExists(b(k)), ctx + " keyExists " + k);
      boolean may = db.keyMayExist(b(k), h);
      assertTrue(may || !present, ctx + " keyMayExist " + k);
      if (h.getValue() != null) {
        assertTrue(may && present, ctx + " a value for absent " + k);
        assertEquals(m.get(k), s(h.getValue()));
      }
    }
  }

  private void run(long seed) throws Exception {
    Random r = new Random(seed);
    boolean fixed = r.nextBoolean();
    int n = 1 + r.nextInt(4);
    boolean wholeKeys = r.nextBoolean();
    String ctx = "seed " + seed + " " + (fixed ? "fixed" : "capped") + "(" + n + ") whole keys "
        + wholeKeys;
    Path path = dir.resolve("db-" + seed);
    TreeMap<String, String> m = new TreeMap<>();
    TalusDB db = TalusDB.open(options(fixed, n, wholeKeys), path.toString());
    try {
      for (int step = 0; step < 1200; step++) {
        int op = r.nextInt(100);
        String c = ctx + " step " + step;
        if (op < 60) {
          String k = randomKey(r);
          String v = "v" + step;
          db.put(b(k), b(v));
          m.put(k, v);
        } else if (op < 75) {
          String k = randomKey(r);
          db.delete(b(k));
          m.remove(k);
        } else if (op < 79) {
          db.flush(new FlushOptions());
        } else if (op < 80) {
          db.compactRange();
        } else if (op < 81) {
          db.close();
          db = TalusDB.open(options(fixed, n, wholeKeys), path.toString());
        } else if (op < 95) {
          checkSeeks(db, m, fixed, n, randomKey(r), c);
        } else {
          checkKeyMayExist(db, m, r, c);
        }
      }
    } finally {
      db.close();
    }
  }

  @Test
  void prefixSeekMatchesATreeMapAcrossFlushesCompactionsAndReopens() throws Exception {
    for (long seed = 1; seed <= 4; seed++) {
      run(seed);
    }
  }

  @Test
  void readOptionsSettersRoundTripAndUnsupportedTiersThrow() {
    try (ReadOptions ro = new ReadOptions()) {
      assertEquals(ReadTier.READ_ALL_TIER, ro.readTier());
      assertFalse(ro.totalOrderSeek() || ro.prefixSameAsStart() || ro.autoPrefixMode()
          || ro.tailing() || ro.ignoreRangeDeletions() || ro.asyncIo() || ro.pinData()
          || ro.backgroundPurgeOnIteratorCleanup());
      assertEquals(ro, ro.setReadTier(ReadTier.BLOCK_CACHE_TIER).setTotalOrderSeek(true)
          .setPrefixSameAsStart(true).setAutoPrefixMode(true).setTailing(true)
          .setIgnoreRangeDeletions(true).setAsyncIo(true).setPinData(true)
          .setBackgroundPurgeOnIteratorCleanup(true));
      try (ReadOptions copy = new ReadOptions(ro)) {
        assertEquals(ReadTier.BLOCK_CACHE_TIER, copy.readTier());
        assertTrue(copy.totalOrderSeek() && copy.prefixSameAsStart() && copy.autoPrefixMode()
            && copy.tailing() && copy.ignoreRangeDeletions() && copy.asyncIo()
            && copy.pinData() && copy.backgroundPurgeOnIteratorCleanup());
      }
      for (ReadTier t : new ReadTier[] {ReadTier.PERSISTED_TIER, ReadTier.MEMTABLE_TIER}) {
        UnsupportedOperationException e =
            assertThrows(UnsupportedOperationException.class, () -> ro.setReadTier(t));
        assertTrue(e.getMessage().contains(t.name()), e.getMessage());
      }
      assertEquals(ReadTier.BLOCK_CACHE_TIER, ro.readTier(), "unchanged by the refused calls");
      assertEquals(ReadTier.MEMTABLE_TIER, ReadTier.getReadTier((byte) 3));
    }
  }

  @Test
  void blockCacheTierReadsNeverGoToDisk() throws Exception {
    Path path = dir.resolve("db");
    try (Options o = Lsm.smallOptions()) {
      try (TalusDB db = TalusDB.open(o, path.toString())) {
        for (int i = 0; i < 3000; i++) {
          db.put(b(Lsm.key(i)), Lsm.value("p", i, 100));
        }
        db.flush(new FlushOptions());
      }
      try (TalusDB db = TalusDB.open(o, path.toString());
          ReadOptions cached = new ReadOptions().setReadTier(ReadTier.BLOCK_CACHE_TIER)) {
        db.put(b("fresh"), b("in the memtable"));
        assertEquals("in the memtable", s(db.get(cached, b("fresh"))));
        TalusException e = assertThrows(TalusException.class, () -> db.get(cached, b(Lsm.key(7))));
        assertEquals(Status.Code.Incomplete, e.getStatus().getCode(), e.getMessage());
        Holder<byte[]> h = new Holder<>();
        assertTrue(db.keyMayExist(b(Lsm.key(7)), h), "needs a disk read: may exist");
        assertNull(h.getValue());
        assertArrayEquals(Lsm.value("p", 7, 100), db.get(b(Lsm.key(7))));
        assertArrayEquals(Lsm.value("p", 7, 100), db.get(cached, b(Lsm.key(7))), "now cached");
        assertTrue(db.keyMayExist(b(Lsm.key(7)), h));
        assertArrayEquals(Lsm.value("p", 7, 100), h.getValue());
        try (TalusIterator it = db.newIterator(cached)) {
          it.seekToFirst();
          while (it.isValid()) {
            it.next();
          }
          TalusException st = assertThrows(TalusException.class, it::status);
          assertEquals(Status.Code.Incomplete, st.getStatus().getCode());
        }
      }
    }
  }

  @Test
  void tailingIteratorsSeeLaterWritesAndMoveForwardOnly() throws Exception {
    try (Options o = Lsm.smallOptions();
        TalusDB db = TalusDB.open(o, dir.resolve("db").toString());
        ReadOptions ro = new ReadOptions().setTailing(true)) {
      db.put(b("a"), b("1"));
      try (TalusIterator it = db.newIterator(ro); TalusIterator plain = db.newIterator()) {
        db.put(b("b"), b("2"));
        db.flush(new FlushOptions());
        db.put(b("c"), b("3"));
        it.seek(b("b"));
        assertEquals("b", s(it.key()));
        it.next();
        assertEquals("c", s(it.key()));
        plain.seek(b("b"));
        assertFalse(plain.isValid(), "a plain iterator sees its creation's state");
        it.prev();
        assertFalse(it.isValid());
        TalusException e = assertThrows(TalusException.class, it::status);
        assertEquals(Status.Code.NotSupported, e.getStatus().getCode());
        it.seekToFirst();
        assertEquals("a", s(it.key()));
        it.status();
      }
    }
  }

  @Test
  void ignoreRangeDeletionsShowsCoveredKeys() throws Exception {
    try (Options o = Lsm.smallOptions();
        TalusDB db = TalusDB.open(o, dir.resolve("db").toString());
        ReadOptions ignoring = new ReadOptions().setIgnoreRangeDeletions(true)) {
      db.put(b("k1"), b("1"));
      db.deleteRange(b("k0"), b("k9"));
      assertNull(db.get(b("k1")));
      assertEquals("1", s(db.get(ignoring, b("k1"))));
      try (TalusIterator it = db.newIterator(ignoring)) {
        it.seekToFirst();
        assertEquals("k1", s(it.key()));
      }
      assertFalse(db.keyExists(b("k1")));
      assertTrue(db.keyExists(ignoring, b("k1")));
    }
  }
}
