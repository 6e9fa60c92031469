package dev.talus;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.talus.Status.Code;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SstFileWriter and ingestExternalFile through the real native library. */
class IngestTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("ingest");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static byte[] k(int i) {
    return String.format("k%06d", i).getBytes(UTF_8);
  }

  private String sst(String name, int from, int to, String tag) throws TalusException {
    String path = dir.resolve(name).toString();
    try (EnvOptions e = new EnvOptions();
        Options o = new Options();
        SstFileWriter w = new SstFileWriter(e, o)) {
      w.open(path);
      for (int i = from; i < to; i++) {
        w.put(k(i), (tag + i).getBytes(UTF_8));
      }
      ExternalSstFileInfo info = w.finish();
      assertEquals(path, info.filePath());
      assertArrayEquals(k(from), info.smallestKey());
      assertArrayEquals(k(to - 1), info.largestKey());
      assertEquals(to - from, info.numEntries());
      assertEquals(0, info.sequenceNumber());
      assertTrue(info.fileSize() > 0);
    }
    return path;
  }

  @Test
  void ingestIntoAnEmptyDatabase() throws Exception {
    String a = sst("a.sst", 0, 1000, "a");
    String b = sst("b.sst", 1000, 2000, "b");
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, dir.resolve("db").toString());
        IngestExternalFileOptions io = new IngestExternalFileOptions()) {
      db.ingestExternalFile(List.of(b, a), io);
      assertEquals(0, db.getLatestSequenceNumber());
      assertArrayEquals("a5".getBytes(UTF_8), db.get(k(5)));
      assertArrayEquals("b1999".getBytes(UTF_8), db.get(k(1999)));
      assertNull(db.get(k(2000)));
      assertTrue(Files.exists(Path.of(a)), "copied, not moved");
    }
  }

  @Test
  void overlappingMemtableAndLevelsGetAGlobalSeqnoHiddenFromOlderSnapshots() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, dir.resolve("db").toString());
        IngestExternalFileOptions io = new IngestExternalFileOptions().setMoveFiles(true)) {
      for (int i = 0; i < 100; i++) {
        db.put(k(i), "old".getBytes(UTF_8));
      }
      db.compactRange();
      for (int i = 50; i < 150; i++) {
        db.put(k(i), "mem".getBytes(UTF_8));
      }
      Snapshot before = db.getSnapshot();
      long seq = db.getLatestSequenceNumber();
      String f = sst("f.sst", 0, 200, "f");
      db.ingestExternalFile(List.of(f), io);
      assertFalse(Files.exists(Path.of(f)), "moved");
      assertEquals(seq + 1, db.getLatestSequenceNumber(), "one global sequence number");
      assertArrayEquals("f10".getBytes(UTF_8), db.get(k(10)));
      assertArrayEquals("f60".getBytes(UTF_8), db.get(k(60)));
      assertArrayEquals("f170".getBytes(UTF_8), db.get(k(170)));
      try (ReadOptions ro = new ReadOptions().setSnapshot(before)) {
        assertArrayEquals("old".getBytes(UTF_8), db.get(ro, k(10)));
        assertArrayEquals("mem".getBytes(UTF_8), db.get(ro, k(60)));
        assertNull(db.get(ro, k(170)));
        int n = 0;
        try (TalusIterator it = db.newIterator(ro)) {
          for (it.seekToFirst(); it.isValid(); it.next()) {
            assertFalse(new String(it.value(), UTF_8).startsWith("f"));
            n++;
          }
        }
        assertEquals(150, n);
      }
      db.releaseSnapshot(before);
    }
  }

  @Test
  void ingestBehindKeepsExistingVersions() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true).setAllowIngestBehind(true);
        TalusDB db = TalusDB.open(o, dir.resolve("db").toString());
        IngestExternalFileOptions io = new IngestExternalFileOptions().setIngestBehind(true)) {
      db.put(k(1), "newer".getBytes(UTF_8));
      db.delete(k(2));
      String f = sst("f.sst", 0, 4, "f");
      db.ingestExternalFile(List.of(f), io);
      assertArrayEquals("newer".getBytes(UTF_8), db.get(k(1)));
      assertNull(db.get(k(2)));
      assertArrayEquals("f3".getBytes(UTF_8), db.get(k(3)));
    }
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, dir.resolve("db2").toString());
        IngestExternalFileOptions io = new IngestExternalFileOptions().setIngestBehind(true)) {
      String g = sst("g.sst", 0, 4, "g");
      TalusException e =
          assertThrows(TalusException.class, () -> db.ingestExternalFile(List.of(g), io));
      assertEquals(Code.InvalidArgument, e.getStatus().getCode());
      assertTrue(e.getMessage().contains("allow_ingest_behind"), e.getMessage());
    }
  }

  @Test
  void badInputIsAClearErrorAndIngestsNothing() throws Exception {
    String path = dir.resolve("w.sst").toString();
    try (EnvOptions e = new EnvOptions();
        Options o = new Options();
        SstFileWriter w = new SstFileWriter(e, o)) {
      w.open(path);
      w.put(k(2), "v".getBytes(UTF_8));
      TalusException dup =
          assertThrows(TalusException.class, () -> w.put(k(2), "v".getBytes(UTF_8)));
      assertEquals(Code.InvalidArgument, dup.getStatus().getCode());
      assertTrue(dup.getMessage().contains("duplicate key"), dup.getMessage());
      TalusException order =
          assertThrows(TalusException.class, () -> w.put(k(1), "v".getBytes(UTF_8)));
      assertTrue(order.getMessage().contains("out of order"), order.getMessage());
      w.finish();
      w.open(dir.resolve("empty.sst").toString());
      assertThrows(TalusException.class, w::finish);
    }
    String a = sst("a.sst", 0, 10, "a");
    String b = sst("b.sst", 5, 15, "b");
    Path junk = dir.resolve("junk.sst");
    Files.write(junk, new byte[4096]);
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, dir.resolve("db").toString());
        IngestExternalFileOptions io = new IngestExternalFileOptions()) {
      TalusException overlap =
          assertThrows(TalusException.class, () -> db.ingestExternalFile(List.of(a, b), io));
      assertEquals(Code.InvalidArgument, overlap.getStatus().getCode());
      assertTrue(overlap.getMessage().contains("overlap"), overlap.getMessage());
      TalusException corrupt =
          assertThrows(
              TalusException.class, () -> db.ingestExternalFile(List.of(junk.toString()), io));
      assertEquals(Code.Corruption, corrupt.getStatus().getCode());
      db.put(k(3), "mem".getBytes(UTF_8));
      try (IngestExternalFileOptions noFlush =
          new IngestExternalFileOptions().setAllowBlockingFlush(false)) {
        TalusException flush =
            assertThrows(TalusException.class, () -> db.ingestExternalFile(List.of(a), noFlush));
        assertTrue(flush.getMessage().contains("allow_blocking_flush"), flush.getMessage());
      }
      assertArrayEquals("mem".getBytes(UTF_8), db.get(k(3)));
      assertNull(db.get(k(4)));
      assertThrows(NullPointerException.class, () -> db.ingestExternalFile(null, io));
    }
  }

  @Test
  void prepareForBulkLoadSetsRocksDbValues() throws Exception {
    try (Options o = new Options().prepareForBulkLoad()) {
      assertTrue(o.disableAutoCompactions());
      assertEquals(1 << 30, o.level0FileNumCompactionTrigger());
      assertEquals(1 << 30, o.level0SlowdownWritesTrigger());
      assertEquals(1 << 30, o.level0StopWritesTrigger());
      assertEquals(0, o.softPendingCompactionBytesLimit());
      assertEquals(0, o.hardPendingCompactionBytesLimit());
      assertEquals(2, o.numLevels());
      assertEquals(6, o.maxWriteBufferNumber());
      assertEquals(1, o.minWriteBufferNumberToMerge());
      assertEquals(256L << 20, o.targetFileSizeBase());
      o.setCreateIfMissing(true);
      try (TalusDB db = TalusDB.open(o, dir.resolve("db").toString())) {
        for (int i = 0; i < 1000; i++) {
          db.put(k(i), "v".getBytes(UTF_8));
        }
        db.compactRange();
        assertArrayEquals("v".getBytes(UTF_8), db.get(k(999)));
      }
    }
  }
}
