package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Merge operators and single deletes through the Java API: {@link StringAppendOperator} with its
 * delimiters, {@link UInt64AddOperator} with malformed operands, operator names, merges in
 * batches, through iterators, after flushes, compactions and reopen, and RocksDB's errors without
 * an operator.
 */
class MergeTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("merge");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  static byte[] u64(long n) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(n).array();
  }

  static long u64(byte[] b) {
    assertEquals(8, b.length);
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }

  private TalusDB open(MergeOperator op) throws TalusException {
    Options o = new Options().setCreateIfMissing(true);
    if (op != null) {
      o.setMergeOperator(op);
    }
    return TalusDB.open(o, dir.toString());
  }

  /** Key/value pairs of a full forward scan, checked against a backward scan. */
  private static List<String> scan(TalusDB db, ReadOptions ro) throws TalusException {
    List<String> fwd = new ArrayList<>();
    List<String> back = new ArrayList<>();
    try (TalusIterator it = db.newIterator(ro)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        fwd.add(s(it.key()) + "=" + s(it.value()));
      }
      it.status();
      for (it.seekToLast(); it.isValid(); it.prev()) {
        back.add(0, s(it.key()) + "=" + s(it.value()));
      }
      it.status();
    }
    assertEquals(fwd, back);
    return fwd;
  }

  @Test
  void stringAppendJoinsWithTheDefaultDelimiterAcrossFlushesCompactionsAndReopen()
      throws Exception {
    try (StringAppendOperator op = new StringAppendOperator()) {
      try (TalusDB db = open(op)) {
        db.put(b("k"), b("a"));
        db.merge(b("k"), b("b"));
        try (FlushOptions fo = new FlushOptions()) {
          db.flush(fo);
        }
        db.merge(b("k"), b("c"));
        db.merge(b("fresh"), b("x"));
        assertEquals("a,b,c", s(db.get(b("k"))));
        assertEquals("x", s(db.get(b("fresh"))));
        db.compactRange();
        db.merge(b("k"), b("d"));
        assertEquals(List.of("fresh=x", "k=a,b,c,d"), scan(db, new ReadOptions()));
      }
      try (TalusDB db = open(op)) {
        assertEquals("a,b,c,d", s(db.get(b("k"))));
        assertEquals(List.of("fresh=x", "k=a,b,c,d"), scan(db, new ReadOptions()));
      }
    }
  }

  @Test
  void stringAppendTakesCharAndStringDelimiters() throws Exception {
    Object[][] cases = {
      {new StringAppendOperator('|'), "a|b|c"},
      {new StringAppendOperator("--"), "a--b--c"},
      {new StringAppendOperator(""), "abc"},
      {new StringAppendOperator("\u00e9"), "a\u00e9b\u00e9c"},
    };
    for (Object[] c : cases) {
      TestDirs.delete(dir);
      try (MergeOperator op = (MergeOperator) c[0];
          TalusDB db = open(op)) {
        db.merge(b("k"), b("a"));
        db.merge(b("k"), b("b"));
        db.merge(b("k"), b("c"));
        assertEquals(c[1], s(db.get(b("k"))));
      }
    }
    assertThrows(NullPointerException.class, () -> new StringAppendOperator((String) null));
  }

  @Test
  void uint64AddSumsLittleEndianAndCountsMalformedOperandsAsZero() throws Exception {
    try (UInt64AddOperator op = new UInt64AddOperator();
        TalusDB db = open(op)) {
      db.merge(b("n"), u64(5));
      db.merge(b("n"), u64(37));
      assertEquals(42, u64(db.get(b("n"))));
      db.merge(b("n"), b("bad"));
      db.merge(b("n"), new byte[0]);
      assertEquals(42, u64(db.get(b("n"))), "operands not of 8 bytes count as 0");
      db.put(b("m"), b("not eight"));
      db.merge(b("m"), u64(3));
      assertEquals(3, u64(db.get(b("m"))), "a malformed value counts as 0");
      db.merge(b("w"), u64(-1L));
      db.merge(b("w"), u64(2));
      assertEquals(1, u64(db.get(b("w"))), "wraps at 2^64");
      db.compactRange();
      assertEquals(42, u64(db.get(b("n"))));
      assertEquals(3, u64(db.get(b("m"))));
    }
  }

  @Test
  void operatorsSetByNameAreRocksDbsBuiltIns() throws Exception {
    Object[][] cases = {
      {"stringappend", "a,b"},
      {"StringAppendOperator", "a,b"},
      {"put", "b"},
      {"put_v1", "b"},
      {"max", "b"},
    };
    for (Object[] c : cases) {
      TestDirs.delete(dir);
      Options o = new Options().setCreateIfMissing(true).setMergeOperatorName((String) c[0]);
      try (TalusDB db = TalusDB.open(o, dir.toString())) {
        db.merge(b("k"), b("a"));
        db.merge(b("k"), b("b"));
        assertEquals(c[1], s(db.get(b("k"))), (String) c[0]);
      }
    }
    TestDirs.delete(dir);
    Options o = new Options().setCreateIfMissing(true).setMergeOperatorName("uint64add");
    try (TalusDB db = TalusDB.open(o, dir.toString())) {
      db.merge(b("k"), u64(2));
      db.merge(b("k"), u64(3));
      assertEquals(5, u64(db.get(b("k"))));
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> o.setMergeOperatorName("bytesxor"));
    assertTrue(e.getMessage().contains("bytesxor") && e.getMessage().contains("uint64add"),
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> o.setMergeOperatorName(null));
    assertThrows(NullPointerException.class, () -> o.setMergeOperator(null));
  }

  @Test
  void mergeWithoutAnOperatorFailsLikeRocksDb() throws Exception {
    try (TalusDB db = open(null)) {
      TalusException e = assertThrows(TalusException.class, () -> db.merge(b("k"), b("v")));
      assertEquals(Status.Code.NotSupported, e.getStatus().getCode());
      assertTrue(e.getMessage().contains("merge_operator"), e.getMessage());
      try (WriteOptions wo = new WriteOptions()) {
        e = assertThrows(TalusException.class,
            () -> db.merge(wo, ByteBuffer.allocateDirect(1), ByteBuffer.allocateDirect(1)));
        assertEquals(Status.Code.NotSupported, e.getStatus().getCode());
        try (WriteBatch wb = new WriteBatch()) {
          wb.put(b("p"), b("1"));
          wb.merge(b("k"), b("v"));
          e = assertThrows(TalusException.class, () -> db.write(wo, wb));
          assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
        }
      }
      assertNull(db.get(b("p")), "nothing of the refused batch was written");
    }
  }

  @Test
  void aDatabaseWithOperandsOpenedWithoutItsOperatorFailsTheirReadsAndLosesNothing()
      throws Exception {
    try (StringAppendOperator op = new StringAppendOperator()) {
      try (TalusDB db = open(op)) {
        db.put(b("a"), b("1"));
        db.merge(b("a"), b("2"));
        db.put(b("p"), b("plain"));
      }
      try (TalusDB db = open(null)) {
        assertEquals("plain", s(db.get(b("p"))));
        TalusException e = assertThrows(TalusException.class, () -> db.get(b("a")));
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
        assertTrue(e.getMessage().contains("merge_operator is not properly initialized"),
            e.getMessage());
        try (TalusIterator it = db.newIterator()) {
          it.seekToFirst();
          assertFalse(it.isValid());
          e = assertThrows(TalusException.class, it::status);
          assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
        }
        db.compactRange();
      }
      try (TalusDB db = open(op)) {
        assertEquals("1,2", s(db.get(b("a"))));
      }
    }
  }

  @Test
  void everyMergeOverloadAndBatchWritesOperands() throws Exception {
    try (StringAppendOperator op = new StringAppendOperator();
        TalusDB db = open(op);
        WriteOptions wo = new WriteOptions()) {
      db.merge(b("k"), b("1"));
      db.merge(wo, b("k"), b("2"));
      db.merge(b("xxkxx"), 2, 1, b("--3--"), 2, 1);
      db.merge(wo, b("xxkxx"), 2, 1, b("--4--"), 2, 1);
      ByteBuffer dk = ByteBuffer.allocateDirect(1).put(b("k")).flip();
      ByteBuffer dv = ByteBuffer.allocateDirect(1).put(b("5")).flip();
      db.merge(wo, dk, dv);
      assertEquals(dk.limit(), dk.position());
      assertEquals(dv.limit(), dv.position());
      ByteBuffer hk = ByteBuffer.wrap(b("k"));
      ByteBuffer hv = ByteBuffer.wrap(b("6"));
      db.merge(wo, hk, hv);
      assertEquals(1, hv.position());
      TalusException mixed = assertThrows(TalusException.class,
          () -> db.merge(wo, ByteBuffer.wrap(b("k")), ByteBuffer.allocateDirect(1)));
      assertEquals(Status.Code.InvalidArgument, mixed.getStatus().getCode());
      assertThrows(IndexOutOfBoundsException.class, () -> db.merge(b("k"), 0, 2, b("v"), 0, 1));
      try (WriteBatch wb = new WriteBatch()) {
        wb.merge(b("k"), b("7"));
        wb.put(b("j"), b("a"));
        wb.merge(b("j"), b("b"));
        wb.singleDelete(b("gone"));
        assertTrue(wb.hasMerge());
        assertTrue(wb.hasSingleDelete());
        assertEquals(4, wb.count());
        // The serialized batch keeps its merges and single deletes.
        try (WriteBatch copy = new WriteBatch(wb.data())) {
          assertTrue(copy.hasMerge());
          assertTrue(copy.hasSingleDelete());
          assertEquals(4, copy.count());
          db.write(wo, copy);
        }
      }
      assertEquals("1,2,3,4,5,6,7", s(db.get(b("k"))));
      assertEquals("a,b", s(db.get(b("j"))));
      List<byte[]> got = db.multiGetAsList(Arrays.asList(b("j"), b("gone"), b("k")));
      assertEquals("a,b", s(got.get(0)));
      assertNull(got.get(1));
      assertEquals("1,2,3,4,5,6,7", s(got.get(2)));
    }
  }

  @Test
  void iteratorsAndSnapshotsSeeTheOperandsTheyShould() throws Exception {
    try (StringAppendOperator op = new StringAppendOperator();
        TalusDB db = open(op)) {
      db.put(b("a"), b("0"));
      db.merge(b("b"), b("1"));
      db.merge(b("c"), b("x"));
      Snapshot snap = db.getSnapshot();
      db.merge(b("b"), b("2"));
      db.delete(b("c"));
      db.merge(b("c"), b("y"));
      try (FlushOptions fo = new FlushOptions()) {
        db.flush(fo);
      }
      db.merge(b("b"), b("3"));
      try (ReadOptions ro = new ReadOptions().setSnapshot(snap)) {
        assertEquals(List.of("a=0", "b=1", "c=x"), scan(db, ro));
        assertEquals("1", s(db.get(ro, b("b"))));
      }
      assertEquals(List.of("a=0", "b=1,2,3", "c=y"), scan(db, new ReadOptions()));
      try (TalusIterator it = db.newIterator()) {
        it.seekForPrev(b("bz"));
        assertEquals("b", s(it.key()));
        assertEquals("1,2,3", s(it.value()));
        it.next();
        assertEquals("c", s(it.key()));
        it.prev();
        it.prev();
        assertEquals("a", s(it.key()));
        it.seek(b("b"));
        assertEquals("1,2,3", s(it.value()));
        it.prev();
        assertEquals("a", s(it.key()));
      }
      db.compactRange();
      try (ReadOptions ro = new ReadOptions().setSnapshot(snap)) {
        assertEquals(List.of("a=0", "b=1", "c=x"), scan(db, ro));
      }
      db.releaseSnapshot(snap);
      assertEquals(List.of("a=0", "b=1,2,3", "c=y"), scan(db, new ReadOptions()));
    }
  }

  @Test
  void singleDeleteDeletesThePutAndOverTwoPutsStaysADelete() throws Exception {
    try (TalusDB db = open(null);
        WriteOptions wo = new WriteOptions()) {
      db.put(b("once"), b("v"));
      db.singleDelete(b("once"));
      assertNull(db.get(b("once")));
      db.put(b("twice"), b("old"));
      try (FlushOptions fo = new FlushOptions()) {
        db.flush(fo);
      }
      db.put(b("twice"), b("new"));
      db.singleDelete(wo, b("twice"));
      assertNull(db.get(b("twice")));
      db.compactRange();
      assertNull(db.get(b("twice")), "RocksDB leaves this undefined; Talus keeps it deleted");
      assertEquals(List.of(), scan(db, new ReadOptions()));
      assertThrows(NullPointerException.class, () -> db.singleDelete(null));
    }
  }

  @Test
  void statisticsCountMergeOperandsReadAndNoFailures() throws Exception {
    try (Statistics stats = new Statistics();
        StringAppendOperator op = new StringAppendOperator()) {
      Options o = new Options().setCreateIfMissing(true).setMergeOperator(op)
          .setStatistics(stats);
      try (TalusDB db = TalusDB.open(o, dir.toString())) {
        db.merge(b("k"), b("a"));
        db.merge(b("k"), b("b"));
        db.merge(b("k"), b("c"));
        assertEquals("a,b,c", s(db.get(b("k"))));
        HistogramData h = stats.getHistogramData(HistogramType.READ_NUM_MERGE_OPERANDS);
        assertEquals(1, h.getCount());
        assertEquals(3, h.getSum());
        assertEquals(0, stats.getTickerCount(TickerType.NUMBER_MERGE_FAILURES));
      }
    }
  }

  @Test
  void closingTheOperatorWhileADatabaseUsesItIsSafe() throws Exception {
    StringAppendOperator op = new StringAppendOperator(';');
    try (TalusDB db = open(op)) {
      op.close();
      db.merge(b("k"), b("a"));
      db.merge(b("k"), b("b"));
      assertArrayEquals(b("a;b"), db.get(b("k")));
    }
    Options reuse = new Options().setCreateIfMissing(true).setMergeOperator(op);
    assertThrows(IllegalStateException.class, () -> TalusDB.open(reuse, dir.toString()));
  }
}
