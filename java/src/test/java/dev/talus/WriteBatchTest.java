package dev.talus;

import static dev.talus.Lsm.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** WriteBatch applied with TalusDB.write. */
class WriteBatchTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("batch");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private TalusDB open() throws TalusException {
    try (Options o = new Options().setCreateIfMissing(true)) {
      return TalusDB.open(o, dir.toString());
    }
  }

  @Test
  void putDeleteAndDeleteRangeApplyInBatchOrder() throws Exception {
    try (TalusDB db = open(); WriteOptions wo = new WriteOptions();
        WriteBatch batch = new WriteBatch()) {
      db.put(b("b1"), b("old"));
      db.put(b("b2"), b("old"));
      db.put(b("c"), b("old"));
      long seq = db.getLatestSequenceNumber();
      batch.put(b("a"), b("1"));
      batch.put(b("b3"), b("3"));
      batch.deleteRange(b("b"), b("c")); // deletes b1, b2 and the b3 just put
      batch.put(b("b2"), b("new")); // after the range deletion: visible
      batch.delete(b("c"));
      batch.put(ByteBuffer.wrap(b("d")), ByteBuffer.wrap(b("4")));
      ByteBuffer dk = ByteBuffer.allocateDirect(4);
      dk.put(b("e")).flip();
      batch.put(b("e"), b("5"));
      batch.delete(dk);
      assertEquals(0, dk.remaining(), "delete(ByteBuffer) consumes the key");
      assertEquals(8, batch.count());
      assertTrue(batch.hasPut());
      assertTrue(batch.hasDelete());
      assertTrue(batch.hasDeleteRange());
      db.write(wo, batch);

      assertEquals(seq + 8, db.getLatestSequenceNumber(), "one sequence number per record");
      assertArrayEquals(b("1"), db.get(b("a")));
      assertNull(db.get(b("b1")));
      assertArrayEquals(b("new"), db.get(b("b2")));
      assertNull(db.get(b("b3")));
      assertNull(db.get(b("c")));
      assertArrayEquals(b("4"), db.get(b("d")));
      assertNull(db.get(b("e")));
      // The batch is unchanged by write and can be written again.
      assertEquals(8, batch.count());
    }
    // And it was logged: it survives a reopen.
    try (TalusDB db = open()) {
      assertArrayEquals(b("new"), db.get(b("b2")));
      assertNull(db.get(b("b1")));
      assertNull(db.get(b("e")));
    }
  }

  @Test
  void clearEmptiesTheBatch() throws Exception {
    try (TalusDB db = open(); WriteOptions wo = new WriteOptions();
        WriteBatch batch = new WriteBatch()) {
      batch.put(b("x"), b("1"));
      batch.deleteRange(b("a"), b("z"));
      long before = batch.getDataSize();
      batch.clear();
      assertEquals(0, batch.count());
      assertEquals(12, batch.getDataSize());
      assertTrue(before > 12);
      assertFalse(batch.hasPut());
      assertFalse(batch.hasDeleteRange());
      long seq = db.getLatestSequenceNumber();
      db.write(wo, batch);
      assertEquals(seq, db.getLatestSequenceNumber(), "an empty batch writes nothing");
      batch.put(b("y"), b("2"));
      db.write(wo, batch);
      assertNull(db.get(b("x")));
      assertArrayEquals(b("2"), db.get(b("y")));
    }
  }

  @Test
  void savePointsRollBackAndPop() throws Exception {
    try (TalusDB db = open(); WriteOptions wo = new WriteOptions();
        WriteBatch batch = new WriteBatch()) {
      batch.put(b("k1"), b("1"));
      batch.setSavePoint();
      batch.put(b("k2"), b("2"));
      batch.delete(b("k1"));
      batch.setSavePoint();
      batch.deleteRange(b("a"), b("z"));
      assertEquals(4, batch.count());
      batch.rollbackToSavePoint(); // drops the range deletion
      assertEquals(3, batch.count());
      assertFalse(batch.hasDeleteRange());
      batch.rollbackToSavePoint(); // drops k2 and the delete of k1
      assertEquals(1, batch.count());
      assertFalse(batch.hasDelete());
      TalusException e = assertThrows(TalusException.class, batch::rollbackToSavePoint);
      assertEquals(Status.Code.NotFound, e.getStatus().getCode());

      batch.setSavePoint();
      batch.put(b("k3"), b("3"));
      batch.popSavePoint(); // forgets the save point, keeps k3
      assertEquals(2, batch.count());
      assertThrows(TalusException.class, batch::popSavePoint);
      assertThrows(TalusException.class, batch::rollbackToSavePoint);

      db.write(wo, batch);
      assertArrayEquals(b("1"), db.get(b("k1")));
      assertNull(db.get(b("k2")));
      assertArrayEquals(b("3"), db.get(b("k3")));

      // clear drops save points too.
      batch.setSavePoint();
      batch.clear();
      assertThrows(TalusException.class, batch::rollbackToSavePoint);
    }
  }

  @Test
  void serializedBatchesRoundTripAndLargeBatchesApplyAtomically() throws Exception {
    try (TalusDB db = open(); WriteOptions wo = new WriteOptions();
        WriteBatch batch = new WriteBatch(16)) {
      for (int i = 0; i < 20_000; i++) {
        batch.put(b(Lsm.key(i)), Lsm.value("batch", i, 100));
      }
      batch.deleteRange(b(Lsm.key(100)), b(Lsm.key(200)));
      try (WriteBatch copy = new WriteBatch(batch.data())) {
        assertEquals(batch.count(), copy.count());
        assertEquals(batch.getDataSize(), copy.getDataSize());
        // The kinds are read from the records, not assumed.
        assertTrue(copy.hasPut());
        assertTrue(copy.hasDeleteRange());
        assertFalse(copy.hasDelete());
        db.write(wo, copy);
      }
      for (int i = 0; i < 20_000; i += 97) {
        byte[] want = i >= 100 && i < 200 ? null : Lsm.value("batch", i, 100);
        assertArrayEquals(want, db.get(b(Lsm.key(i))), Lsm.key(i));
      }
      assertNull(db.get(b(Lsm.key(150))));
    }
  }

  @Test
  void aClosedBatchRejectsUse() {
    WriteBatch batch = new WriteBatch();
    batch.close();
    assertThrows(IllegalStateException.class, () -> batch.put(b("k"), b("v")));
    assertThrows(IllegalStateException.class, () -> batch.merge(b("k"), b("v")));
    assertThrows(IllegalStateException.class, () -> batch.singleDelete(b("k")));
    assertThrows(IllegalStateException.class, batch::count);
  }

  @Test
  void mergeAndSingleDeleteRecordsUseTheDocumentedTags() throws Exception {
    try (WriteBatch wb = new WriteBatch()) {
      wb.merge(b("k"), b("+1"));
      wb.singleDelete(b("s"));
      byte[] data = wb.data();
      // After the 12-byte header: merge tag 3, key, operand; single delete tag 4, key (the
      // engine's write_batch golden bytes).
      assertArrayEquals(
          new byte[] {3, 1, 'k', 2, '+', '1', 4, 1, 's'},
          Arrays.copyOfRange(data, 12, data.length));
      assertFalse(wb.hasPut());
      assertTrue(wb.hasMerge());
      assertTrue(wb.hasSingleDelete());
    }
    try (WriteBatch decoded = new WriteBatch(encoded(true, 2, 4, 1, 'a', 3, 1, 'b', 1, 'v'))) {
      assertTrue(decoded.hasSingleDelete());
      assertTrue(decoded.hasMerge());
      assertFalse(decoded.hasDelete());
    }
  }

  /** A header of 8 sequence bytes (the mark, or RocksDB's zero sequence) and a count. */
  private static byte[] encoded(boolean marked, int count, int... body) {
    byte[] b = new byte[12 + body.length];
    if (marked) {
      System.arraycopy("TalusWB1".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, b, 0, 8);
    }
    b[8] = (byte) count;
    for (int i = 0; i < body.length; i++) {
      b[12 + i] = (byte) body[i];
    }
    return b;
  }

  @Test
  void regressionRocksDbEncodedMergeIsRefusedNotAppliedAsARangeDelete() throws Exception {
    // RocksDB's encoding of one merge of "a" with "z": its tag 2 is Talus's range deletion, so
    // before the mark this batch deleted [a, z).
    byte[] rocksMerge = encoded(false, 1, 2, 1, 'a', 1, 'z');
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new WriteBatch(rocksMerge));
    assertTrue(e.getMessage().contains("not a Talus WriteBatch"), e.getMessage());
    // The same records marked as Talus's are a range delete, as the mark says.
    try (WriteBatch wb = new WriteBatch(encoded(true, 1, 2, 1, 'a', 1, 'z'))) {
      assertTrue(wb.hasDeleteRange());
      assertFalse(wb.hasPut());
    }
  }

  @Test
  void malformedSerializedBatchesAreRefusedByName() {
    Object[][] cases = {
      {encoded(true, 1, 5, 1, 'a'), "unknown record tag 5"},
      {encoded(true, 2, 0, 1, 'a'), "says 2 records but holds 1"},
      {encoded(true, 0, 0, 1, 'a'), "says 0 records but holds 1"},
      {encoded(true, 1, 1, 1, 'a', 4, 'z'), "runs past the end"},
      {encoded(true, 1, 1, 1, 'a', 0x80), "bad length"},
      {new byte[11], "at least 12 bytes"},
    };
    for (Object[] c : cases) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new WriteBatch((byte[]) c[0]));
      assertTrue(e.getMessage().contains((String) c[1]), e.getMessage());
    }
    assertThrows(NullPointerException.class, () -> new WriteBatch((byte[]) null));
    IllegalArgumentException huge =
        assertThrows(IllegalArgumentException.class, () -> new WriteBatch(Integer.MAX_VALUE));
    assertTrue(huge.getMessage().contains("reservedBytes"), huge.getMessage());
  }
}
