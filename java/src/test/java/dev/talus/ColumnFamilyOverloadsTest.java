package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every RocksJava overload that takes a {@link ColumnFamilyHandle} (byte[], offset/length and
 * ByteBuffer forms of the writes and reads, multi-get, iterators, properties, flush, compaction,
 * keyMayExist, WriteBatch), each on the default family and on another one: the entry lands in the
 * family named and nowhere else. Then the per-family properties ({@code num-files-at-level0},
 * {@code estimate-num-keys}, {@code rocksdb.stats}), their aggregate over families, and the
 * database-wide statistics counting writes of every family.
 */
class ColumnFamilyOverloadsTest {
  private Path dir;
  private Statistics stats;
  private TalusDB db;
  private final List<ColumnFamilyHandle> hs = new ArrayList<>();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  /** "xx" + s + "yy": the range [2, 2 + len) is s. */
  private static byte[] padded(String s) {
    return b("xx" + s + "yy");
  }

  private static ByteBuffer direct(String s) {
    byte[] a = b(s);
    return ByteBuffer.allocateDirect(a.length).put(a).flip();
  }

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("cf-overloads");
    stats = new Statistics();
    DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setStatsDumpPeriodSec(0).setStatistics(stats);
    List<ColumnFamilyDescriptor> ds = new ArrayList<>();
    ds.add(new ColumnFamilyDescriptor(TalusDB.DEFAULT_COLUMN_FAMILY,
        new ColumnFamilyOptions().setMergeOperator(new StringAppendOperator())));
    ds.add(new ColumnFamilyDescriptor(b("other"),
        new ColumnFamilyOptions().setMergeOperator(new StringAppendOperator())));
    db = TalusDB.open(o, dir.toString(), ds, hs);
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
    stats.close();
    TestDirs.delete(dir);
  }

  /** Runs the checks on family {@code i}; the other family must stay empty of these keys. */
  private void writesAndReadsLandInTheFamilyNamed(int i) throws Exception {
    ColumnFamilyHandle cf = hs.get(i);
    ColumnFamilyHandle other = hs.get(1 - i);
    try (WriteOptions wo = new WriteOptions(); ReadOptions ro = new ReadOptions()) {
      db.put(cf, padded("p1"), 2, 2, padded("v1"), 2, 2);
      db.put(cf, wo, padded("p2"), 2, 2, padded("v2"), 2, 2);
      ByteBuffer k3 = direct("p3");
      ByteBuffer v3 = direct("v3");
      db.put(cf, wo, k3, v3);
      assertEquals(k3.limit(), k3.position(), "key buffer consumed");
      assertEquals(v3.limit(), v3.position(), "value buffer consumed");
      db.put(cf, wo, ByteBuffer.wrap(b("p4")), ByteBuffer.wrap(b("v4")));
      db.merge(cf, padded("m"), 2, 1, padded("a"), 2, 1);
      db.merge(cf, wo, padded("m"), 2, 1, padded("b"), 2, 1);
      db.merge(cf, wo, direct("m"), direct("c"));
      assertEquals("v1", s(db.get(cf, b("p1"))));
      assertEquals("v2", s(db.get(cf, padded("p2"), 2, 2)));
      assertEquals("v3", s(db.get(cf, ro, padded("p3"), 2, 2)));
      assertEquals("a,b,c", s(db.get(cf, b("m"))));
      byte[] out = new byte[1];
      assertEquals(2, db.get(cf, b("p4"), out), "full length returned");
      assertEquals('v', out[0], "as much as fits copied");
      byte[] big = new byte[6];
      assertEquals(2, db.get(cf, ro, padded("p4"), 2, 2, big, 3, 3));
      assertEquals("v4", new String(big, 3, 2, StandardCharsets.UTF_8));
      assertEquals(TalusDB.NOT_FOUND, db.get(cf, b("nope"), big));
      assertEquals(TalusDB.NOT_FOUND, db.get(cf, ro, b("nope"), big));
      ByteBuffer key = direct("p1");
      ByteBuffer val = ByteBuffer.allocateDirect(8);
      assertEquals(2, db.get(cf, ro, key, val));
      assertEquals(key.limit(), key.position());
      assertEquals(2, val.remaining());
      assertEquals(TalusDB.NOT_FOUND, db.get(cf, ro, direct("nope"), ByteBuffer.allocate(4)));
      assertTrue(db.keyExists(cf, padded("p1"), 2, 2));
      assertTrue(db.keyExists(cf, ro, padded("p2"), 2, 2));
      assertTrue(db.keyExists(cf, direct("p3")));
      assertFalse(db.keyExists(cf, ro, direct("nope")));
      assertTrue(db.keyMayExist(cf, padded("p1"), 2, 2, null));
      assertTrue(db.keyMayExist(cf, ro, padded("p1"), 2, 2, new Holder<>()));
      assertTrue(db.keyMayExist(cf, direct("p1")));
      assertTrue(db.keyMayExist(cf, ro, direct("p2")));
      KeyMayExist kme = db.keyMayExist(cf, direct("p1"), ByteBuffer.allocateDirect(8));
      assertTrue(kme.exists != KeyMayExist.KeyMayExistEnum.kNotExist, kme.toString());
      assertEquals(KeyMayExist.KeyMayExistEnum.kNotExist,
          db.keyMayExist(cf, ro, direct("nope"), ByteBuffer.allocateDirect(8)).exists);
      // Nothing of it in the other family.
      for (String k : new String[] {"p1", "p2", "p3", "p4", "m"}) {
        assertNull(db.get(other, b(k)), k + " leaked into the other family");
      }
      db.delete(cf, padded("p1"), 2, 2);
      db.delete(cf, wo, padded("p2"), 2, 2);
      db.delete(cf, wo, direct("p3"));
      assertNull(db.get(cf, b("p1")));
      assertNull(db.get(cf, b("p2")));
      assertNull(db.get(cf, b("p3")));
      assertEquals("v4", s(db.get(cf, b("p4"))));
      assertThrows(IndexOutOfBoundsException.class, () -> db.put(cf, b("k"), 0, 2, b("v"), 0, 1));
      assertThrows(IndexOutOfBoundsException.class, () -> db.get(cf, b("k"), -1, 1));
      // WriteBatch per family, ByteBuffer forms too.
      try (WriteBatch wb = new WriteBatch()) {
        wb.put(cf, ByteBuffer.wrap(b("w1")), direct("x1"));
        wb.put(cf, b("w2"), b("x2"));
        wb.delete(cf, direct("p4"));
        db.write(wo, wb);
      }
      assertEquals("x1", s(db.get(cf, b("w1"))));
      assertEquals("x2", s(db.get(cf, b("w2"))));
      assertNull(db.get(cf, b("p4")));
      assertNull(db.get(other, b("w1")));
      // Iterators over several families with read options.
      List<TalusIterator> its = db.newIterators(hs, ro);
      try {
        TalusIterator it = its.get(i);
        it.seekToFirst();
        assertEquals("m", s(it.key()));
        its.get(1 - i).seek(b("w1"));
        assertFalse(its.get(1 - i).isValid() && s(its.get(1 - i).key()).equals("w1"));
      } finally {
        for (TalusIterator it : its) {
          it.close();
        }
      }
    }
  }

  @Test
  void everyOverloadOnAnotherFamilyWritesAndReadsThatFamily() throws Exception {
    writesAndReadsLandInTheFamilyNamed(1);
  }

  @Test
  void everyOverloadOnTheDefaultFamilyWritesAndReadsTheDefaultFamily() throws Exception {
    writesAndReadsLandInTheFamilyNamed(0);
  }

  @Test
  void propertiesArePerFamilyAndAggregateOverFamilies() throws Exception {
    ColumnFamilyHandle other = hs.get(1);
    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      for (int f = 0; f < 2; f++) {
        for (int i = 0; i < 10; i++) {
          db.put(other, b("k" + f + "-" + i), b("v"));
        }
        db.flush(fo, other);
      }
      db.put(b("d"), b("v"));
      assertEquals("2", db.getProperty(other, "rocksdb.num-files-at-level0"));
      assertEquals(2, db.getLongProperty(other, "rocksdb.num-files-at-level0"));
      assertEquals("0", db.getProperty(hs.get(0), "rocksdb.num-files-at-level0"));
      assertEquals("0", db.getProperty("rocksdb.num-files-at-level0"), "default family's");
      assertEquals(20, db.getLongProperty(other, "rocksdb.estimate-num-keys"));
      assertEquals(1, db.getLongProperty("rocksdb.estimate-num-keys"));
      assertEquals(21, db.getAggregatedLongProperty("rocksdb.estimate-num-keys"));
      assertEquals(2, db.getAggregatedLongProperty("rocksdb.num-files-at-level0"));
      String st = db.getProperty(other, "rocksdb.stats");
      assertTrue(st.contains("Compaction Stats [other]"), st);
      assertFalse(st.contains("Compaction Stats [default]"), st);
      assertTrue(db.getProperty("rocksdb.stats").contains("Compaction Stats [default]"));
      db.flush(fo, List.of(hs.get(0), other));
      assertEquals(1, db.getLongProperty(hs.get(0), "rocksdb.num-files-at-level0"));
      db.compactRange(other, null, null);
      assertEquals(0, db.getLongProperty(other, "rocksdb.num-files-at-level0"));
      assertEquals(20, db.getLongProperty(other, "rocksdb.estimate-num-keys"));
      assertEquals(1, db.getLongProperty(hs.get(0), "rocksdb.num-files-at-level0"),
          "a compaction of one family leaves the other's files");
    }
    // Statistics are the database's: writes of every family count.
    assertEquals(21, stats.getTickerCount(TickerType.NUMBER_KEYS_WRITTEN));
  }

  @Test
  void writeStallPropertiesAreTheDatabasesOverFamilies() throws Exception {
    // RocksDB reports is-write-stopped and the delayed rate for the one write path, whichever
    // family holds it; the same value through any family.
    assertEquals(db.getLongProperty("rocksdb.is-write-stopped"),
        db.getLongProperty(hs.get(1), "rocksdb.is-write-stopped"));
    assertEquals(0, db.getLongProperty(hs.get(1), "rocksdb.is-write-stopped"));
  }
  /**
   * A family may have its own prefix extractor (RocksJava's {@code ColumnFamilyOptions}): its
   * prefix iterators stop at the end of the family's prefix, in memtables and in tables, while
   * the default family (no extractor) iterates in total order. Regression: the open refused a
   * family whose extractor differed from the default family's.
   */
  @Test
  void regressionAFamilyHasItsOwnPrefixExtractor() throws Exception {
    ColumnFamilyHandle p;
    try (ColumnFamilyOptions o = new ColumnFamilyOptions().useFixedLengthPrefixExtractor(2)) {
      p = db.createColumnFamily(new ColumnFamilyDescriptor(b("prefixed"), o));
    }
    for (String k : new String[] {"aa1", "aa2", "ab1", "ac1"}) {
      db.put(p, b(k), b("v"));
      db.put(b(k), b("v"));
    }
    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      for (int round = 0; round < 2; round++) {
        try (ReadOptions ro = new ReadOptions().setPrefixSameAsStart(true)) {
          List<String> got = new ArrayList<>();
          try (TalusIterator it = db.newIterator(p, ro)) {
            for (it.seek(b("aa")); it.isValid(); it.next()) {
              got.add(s(it.key()));
            }
          }
          assertEquals(List.of("aa1", "aa2"), got, "round " + round);
          got.clear();
          try (TalusIterator it = db.newIterator(ro)) {
            for (it.seek(b("aa")); it.isValid(); it.next()) {
              got.add(s(it.key()));
            }
          }
          assertEquals(List.of("aa1", "aa2", "ab1", "ac1"), got, "default family, round " + round);
        }
        db.flush(fo, p);
        db.flush(fo);
      }
    }
    db.close();
    // Reopened with its descriptor, the family keeps its extractor.
    List<ColumnFamilyDescriptor> ds = new ArrayList<>();
    ds.add(new ColumnFamilyDescriptor(TalusDB.DEFAULT_COLUMN_FAMILY,
        new ColumnFamilyOptions().setMergeOperator(new StringAppendOperator())));
    ds.add(new ColumnFamilyDescriptor(b("other"),
        new ColumnFamilyOptions().setMergeOperator(new StringAppendOperator())));
    ds.add(new ColumnFamilyDescriptor(b("prefixed"),
        new ColumnFamilyOptions().useFixedLengthPrefixExtractor(2)));
    hs.clear();
    db = TalusDB.open(dir.toString(), ds, hs); // RocksJava's form with default DBOptions
    db.destroyColumnFamilyHandle(hs.get(1));
    assertThrows(IllegalStateException.class, () -> hs.get(1).getID());
    try (ReadOptions ro = new ReadOptions().setPrefixSameAsStart(true);
        TalusIterator it = db.newIterator(hs.get(2), ro)) {
      List<String> got = new ArrayList<>();
      for (it.seek(b("ab")); it.isValid(); it.next()) {
        got.add(s(it.key()));
      }
      assertEquals(List.of("ab1"), got);
    }
  }
}
