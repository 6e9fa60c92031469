package dev.talus;

import static dev.talus.Lsm.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Checkpoints, backups, read-only and secondary opens (issue 35, files out). */
class FilesOutTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("files-out");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static Options options() {
    return Lsm.smallOptions().setCreateIfMissing(true);
  }

  private static Map<String, String> contents(TalusDB db) {
    Map<String, String> out = new TreeMap<>();
    try (TalusIterator it = db.newIterator()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        out.put(Lsm.s(it.key()), Lsm.s(it.value()));
      }
    }
    return out;
  }

  @Test
  void checkpointWhileTheSourceKeepsWritingOpensAtAPoint() throws Exception {
    String src = dir.resolve("db").toString();
    try (Options o = options(); TalusDB db = TalusDB.open(o, src)) {
      for (int i = 0; i < 2000; i++) {
        db.put(b(Lsm.key(i)), Lsm.value("a", i, 100));
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger written = new AtomicInteger();
      List<Throwable> errors = new ArrayList<>();
      Thread writer = new Thread(() -> {
        try {
          // Each key k-n holds n: a consistent point holds a prefix of the writer's keys.
          for (int n = 0; !stop.get(); n++) {
            db.put(b(String.format("w%08d", n)), b(Integer.toString(n)));
            written.set(n + 1);
          }
        } catch (Throwable t) {
          synchronized (errors) {
            errors.add(t);
          }
        }
      });
      writer.start();
      while (written.get() < 1000) {
        Thread.onSpinWait();
      }
      int before = written.get();
      String ckpt = dir.resolve("ckpt").toString();
      try (Checkpoint c = Checkpoint.create(db)) {
        c.createCheckpoint(ckpt);
      }
      int after = written.get();
      while (written.get() < after + 1000) {
        Thread.onSpinWait();
      }
      stop.set(true);
      writer.join();
      assertTrue(errors.isEmpty(), errors.toString());
      assertFalse(Files.exists(dir.resolve("ckpt.tmp")));
      try (Options co = new Options(); TalusDB c = TalusDB.open(co, ckpt)) {
        Map<String, String> got = contents(c);
        int w = 0;
        while (got.containsKey(String.format("w%08d", w))) {
          w++;
        }
        // Every write acknowledged before the checkpoint began is in it; none after it ended.
        assertTrue(w >= before && w <= after + 1, "prefix " + w + " not in [" + before + ", "
            + after + "]");
        long writerKeys = got.keySet().stream().filter(k -> k.startsWith("w")).count();
        assertEquals(w, writerKeys, "the writer's keys in the checkpoint are a prefix");
        for (int i = 0; i < 2000; i++) {
          assertArrayEquals(Lsm.value("a", i, 100), c.get(b(Lsm.key(i))));
        }
      }
      // An existing directory is refused.
      try (Checkpoint c = Checkpoint.create(db)) {
        TalusException e = assertThrows(TalusException.class, () -> c.createCheckpoint(ckpt));
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
        assertTrue(e.getMessage().contains("Directory exists"), e.getMessage());
      }
    }
  }

  @Test
  void liveFilesAndWalFilesAndDeletionHolds() throws Exception {
    String src = dir.resolve("db").toString();
    try (Options o = options(); TalusDB db = TalusDB.open(o, src)) {
      for (int i = 0; i < 1000; i++) {
        db.put(b(Lsm.key(i)), Lsm.value("a", i, 100));
      }
      db.disableFileDeletions();
      TalusDB.LiveFiles live = db.getLiveFiles();
      assertTrue(live.files.contains("/CURRENT"), live.files.toString());
      assertTrue(live.manifestFileSize > 0);
      assertTrue(live.files.stream().anyMatch(f -> f.endsWith(".sst")), live.files.toString());
      db.compactRange();
      for (String f : live.files) {
        assertTrue(Files.exists(Path.of(src, f.substring(1))), f + " deleted while held");
      }
      db.enableFileDeletions(false);
      db.put(b("tail"), b("v"));
      List<LogFile> wals = db.getSortedWalFiles();
      assertFalse(wals.isEmpty());
      LogFile last = wals.get(wals.size() - 1);
      assertEquals(WalFileType.kAliveLogFile, last.type());
      assertTrue(last.sizeFileBytes() > 0);
      assertEquals(String.format("/%06d.log", last.logNumber()), last.pathName());
    }
  }

  @Test
  void corruptBackupFileIsNamedAndAnotherBackupRestores() throws Exception {
    String src = dir.resolve("db").toString();
    String backups = dir.resolve("backups").toString();
    try (Options o = options(); TalusDB db = TalusDB.open(o, src);
        BackupEngineOptions bo = new BackupEngineOptions(backups).setShareTableFiles(false);
        BackupEngine be = BackupEngine.open(Env.getDefault(), bo)) {
      for (int i = 0; i < 1000; i++) {
        db.put(b(Lsm.key(i)), b("first"));
      }
      be.createNewBackupWithMetadata(db, "one", true);
      for (int i = 0; i < 1000; i++) {
        db.put(b(Lsm.key(i)), b("second"));
      }
      be.createNewBackup(db, true);
      List<BackupInfo> infos = be.getBackupInfo();
      assertEquals(2, infos.size());
      assertEquals("one", infos.get(0).appMetadata());
      assertEquals("", infos.get(1).appMetadata());
      assertTrue(infos.get(0).size() > 0 && infos.get(0).numberFiles() >= 4);
      int bad = infos.get(1).backupId();
      Path victim;
      try (Stream<Path> s = Files.list(Path.of(backups, "private", Integer.toString(bad)))) {
        victim = s.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
      }
      byte[] bytes = Files.readAllBytes(victim);
      bytes[bytes.length / 2] ^= 0x20;
      Files.write(victim, bytes);
      TalusException e = assertThrows(TalusException.class, () -> be.verifyBackup(bad));
      assertEquals(Status.Code.Corruption, e.getStatus().getCode());
      assertTrue(e.getMessage().contains(victim.toString()), e.getMessage());
      be.verifyBackup(infos.get(0).backupId());
      String restored = dir.resolve("restored").toString();
      try (RestoreOptions ro = new RestoreOptions(false)) {
        be.restoreDbFromBackup(infos.get(0).backupId(), restored, restored, ro);
      }
      try (Options ro = new Options(); TalusDB r = TalusDB.open(ro, restored)) {
        for (int i = 0; i < 1000; i++) {
          assertEquals("first", Lsm.s(r.get(b(Lsm.key(i)))));
        }
      }
      // Bad input: an unknown id.
      TalusException nf = assertThrows(TalusException.class, () -> be.verifyBackup(77));
      assertEquals(Status.Code.NotFound, nf.getStatus().getCode());
      assertTrue(nf.getMessage().contains("Backup not found"), nf.getMessage());
      be.purgeOldBackups(1);
      assertEquals(1, be.getBackupInfo().size());
    }
  }

  @Test
  void backupEngineBadInputAndClosedHandles() throws Exception {
    Path file = dir.resolve("a-file");
    Files.write(file, new byte[] {1});
    try (BackupEngineOptions bo = new BackupEngineOptions(file.toString())) {
      TalusException e =
          assertThrows(TalusException.class, () -> BackupEngine.open(Env.getDefault(), bo));
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
      assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
      UnsupportedOperationException u = assertThrows(UnsupportedOperationException.class,
          () -> bo.setBackupRateLimit(1 << 20));
      assertTrue(u.getMessage().contains("setBackupRateLimit"), u.getMessage());
      assertThrows(UnsupportedOperationException.class, () -> bo.setShareFilesWithChecksum(false));
    }
    BackupEngine be;
    try (BackupEngineOptions bo = new BackupEngineOptions(dir.resolve("b").toString())) {
      be = BackupEngine.open(Env.getDefault(), bo);
    }
    be.close();
    assertThrows(IllegalStateException.class, be::getBackupInfo);
    TalusDB db = TalusDB.open(options(), dir.resolve("db").toString());
    Checkpoint c = Checkpoint.create(db);
    db.close();
    assertThrows(IllegalStateException.class,
        () -> c.createCheckpoint(dir.resolve("c").toString()));
    c.close();
    assertThrows(IllegalStateException.class,
        () -> c.createCheckpoint(dir.resolve("c2").toString()));
  }

  @Test
  void readOnlyOpenOfALiveDatabaseSeesItsStateAndRefusesWrites() throws Exception {
    String src = dir.resolve("db").toString();
    try (Options o = options(); TalusDB db = TalusDB.open(o, src)) {
      for (int i = 0; i < 1000; i++) {
        db.put(b(Lsm.key(i)), b("v" + i));
      }
      db.flush(new FlushOptions());
      db.put(b("only-in-wal"), b("yes"));
      try (Options ro = new Options(); TalusDB r = TalusDB.openReadOnly(ro, src)) {
        assertEquals("v7", Lsm.s(r.get(b(Lsm.key(7)))));
        assertEquals("yes", Lsm.s(r.get(b("only-in-wal"))));
        TalusException e = assertThrows(TalusException.class, () -> r.put(b("x"), b("y")));
        assertEquals(Status.Code.NotSupported, e.getStatus().getCode());
        assertTrue(e.getMessage().contains("read only"), e.getMessage());
        assertThrows(TalusException.class, () -> r.flush(new FlushOptions()));
        // Later writes of the writer are not followed.
        db.put(b("later"), b("z"));
        assertNull(r.get(b("later")));
      }
      try (Options ro = new Options()) {
        TalusException e =
            assertThrows(TalusException.class, () -> TalusDB.openReadOnly(ro, src, true));
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
      }
      // The writer goes on.
      db.put(b("after"), b("ok"));
      assertEquals("ok", Lsm.s(db.get(b("after"))));
    }
  }

  @Test
  void secondaryCatchesUpWithThePrimary() throws Exception {
    String src = dir.resolve("db").toString();
    String sec = dir.resolve("secondary").toString();
    try (Options o = options(); TalusDB db = TalusDB.open(o, src)) {
      db.put(b("a"), b("1"));
      try (Options so = new Options(); TalusDB s = TalusDB.openAsSecondary(so, src, sec)) {
        assertEquals("1", Lsm.s(s.get(b("a"))));
        for (int i = 0; i < 3000; i++) {
          db.put(b(Lsm.key(i)), Lsm.value("s", i, 200));
        }
        db.put(b("a"), b("2"));
        assertEquals("1", Lsm.s(s.get(b("a"))));
        s.tryCatchUpWithPrimary();
        assertEquals("2", Lsm.s(s.get(b("a"))));
        for (int i = 0; i < 3000; i += 97) {
          assertArrayEquals(Lsm.value("s", i, 200), s.get(b(Lsm.key(i))));
        }
        assertThrows(TalusException.class, () -> s.put(b("x"), b("y")));
      }
      TalusException e = assertThrows(TalusException.class, db::tryCatchUpWithPrimary);
      assertEquals(Status.Code.NotSupported, e.getStatus().getCode());
    }
  }
}
