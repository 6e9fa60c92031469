package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Column families through the Java API: a model test across families (puts, deletes, range
 * deletes, merges, batches spanning families, flushes and compactions of one family, create,
 * drop, reopen) against a {@code TreeMap} per family; the rules of open, list, create and drop;
 * handles after drop and after close.
 */
class ColumnFamilyTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static final class Open implements AutoCloseable {
    final TalusDB db;
    final Map<String, ColumnFamilyHandle> handles = new LinkedHashMap<>();

    Open(TalusDB db, List<ColumnFamilyHandle> hs) {
      this.db = db;
      for (ColumnFamilyHandle h : hs) {
        handles.put(s(h.getName()), h);
      }
    }

    @Override
    public void close() {
      db.close();
    }
  }

  private static ColumnFamilyOptions cfOptions(String name) {
    ColumnFamilyOptions o = new ColumnFamilyOptions().setWriteBufferSize(64 << 10);
    if (name.startsWith("m")) {
      o.setMergeOperator(new StringAppendOperator());
    }
    return o;
  }

  private static Open open(Path dir, List<String> names) throws TalusException {
    DBOptions dbo = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setStatsDumpPeriodSec(0);
    List<ColumnFamilyDescriptor> ds = new ArrayList<>();
    for (String n : names) {
      ds.add(new ColumnFamilyDescriptor(b(n), cfOptions(n)));
    }
    List<ColumnFamilyHandle> hs = new ArrayList<>();
    TalusDB db = TalusDB.open(dbo, dir.toString(), ds, hs);
    assertEquals(names.size(), hs.size());
    return new Open(db, hs);
  }

  private static TreeMap<String, String> scan(TalusDB db, ColumnFamilyHandle h) {
    TreeMap<String, String> out = new TreeMap<>();
    try (TalusIterator it = db.newIterator(h)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        out.put(s(it.key()), s(it.value()));
      }
    }
    return out;
  }

  private static void checkAll(Open o, Map<String, TreeMap<String, String>> model, String at) {
    for (Map.Entry<String, TreeMap<String, String>> e : model.entrySet()) {
      assertEquals(e.getValue(), scan(o.db, o.handles.get(e.getKey())), e.getKey() + " at " + at);
    }
  }

  @Test
  void familiesAgreeWithAModelAcrossBatchesFlushesDropCreateAndReopen() throws Exception {
    Path dir = TestDirs.fresh("cf-model");
    try {
      List<String> names = new ArrayList<>(List.of("default", "users", "mlog", "idx"));
      Map<String, TreeMap<String, String>> model = new TreeMap<>();
      for (String n : names) {
        model.put(n, new TreeMap<>());
      }
      Random r = new Random(42);
      Open o = open(dir, names);
      int created = 0;
      try {
        for (int i = 0; i < 3000; i++) {
          String at = "op " + i;
          String fam = names.get(r.nextInt(names.size()));
          ColumnFamilyHandle h = o.handles.get(fam);
          String k = String.format("k%03d", r.nextInt(300));
          int op = r.nextInt(100);
          if (op < 35) {
            String v = "v" + i;
            o.db.put(h, b(k), b(v));
            model.get(fam).put(k, v);
          } else if (op < 45) {
            o.db.delete(h, new WriteOptions(), b(k));
            model.get(fam).remove(k);
          } else if (op < 48) {
            String k2 = String.format("k%03d", r.nextInt(300));
            String lo = k.compareTo(k2) <= 0 ? k : k2;
            String hi = k.compareTo(k2) <= 0 ? k2 : k;
            o.db.deleteRange(h, b(lo), b(hi));
            model.get(fam).subMap(lo, hi).clear();
          } else if (op < 53 && fam.startsWith("m")) {
            o.db.merge(h, b(k), b("x" + i));
            model.get(fam).merge(k, "x" + i, (a, c) -> a + "," + c);
          } else if (op < 65) {
            try (WriteBatch wb = new WriteBatch()) {
              Map<String, TreeMap<String, String>> after = new TreeMap<>();
              for (Map.Entry<String, TreeMap<String, String>> e : model.entrySet()) {
                after.put(e.getKey(), new TreeMap<>(e.getValue()));
              }
              for (int j = r.nextInt(6) + 1; j > 0; j--) {
                String f = names.get(r.nextInt(names.size()));
                String kk = String.format("k%03d", r.nextInt(300));
                if (r.nextInt(4) == 0) {
                  wb.delete(o.handles.get(f), b(kk));
                  after.get(f).remove(kk);
                } else {
                  wb.put(o.handles.get(f), b(kk), b("b" + i));
                  after.get(f).put(kk, "b" + i);
                }
              }
              o.db.write(new WriteOptions(), wb);
              model = after;
            }
          } else if (op < 80) {
            byte[] got = o.db.get(h, b(k));
            String want = model.get(fam).get(k);
            assertEquals(want, got == null ? null : s(got), fam + " " + k + " at " + at);
            assertEquals(want != null, o.db.keyExists(h, b(k)), at);
            if (want != null) {
              assertTrue(o.db.keyMayExist(h, b(k), null), at);
            }
          } else if (op < 84) {
            o.db.flush(new FlushOptions(), h);
          } else if (op < 86) {
            o.db.compactRange(h);
          } else if (op < 88) {
            List<ColumnFamilyHandle> hs = new ArrayList<>();
            List<byte[]> ks = new ArrayList<>();
            for (String n : names) {
              hs.add(o.handles.get(n));
              ks.add(b(k));
            }
            List<byte[]> got = o.db.multiGetAsList(hs, ks);
            for (int j = 0; j < names.size(); j++) {
              String want = model.get(names.get(j)).get(k);
              assertEquals(want, got.get(j) == null ? null : s(got.get(j)), at);
            }
          } else if (op < 90 && names.size() < 6) {
            String n = "new" + (++created);
            ColumnFamilyHandle nh =
                o.db.createColumnFamily(new ColumnFamilyDescriptor(b(n), cfOptions(n)));
            o.handles.put(n, nh);
            names.add(n);
            model.put(n, new TreeMap<>());
          } else if (op < 92 && names.size() > 2 && !fam.equals("default")) {
            o.db.dropColumnFamily(h);
            TalusDB cur = o.db;
            TalusException e = assertThrows(TalusException.class, () -> cur.get(h, b("k")));
            assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.getMessage());
            o.handles.remove(fam);
            names.remove(fam);
            model.remove(fam);
          } else if (op < 94) {
            o.close();
            o = open(dir, names);
            checkAll(o, model, at);
          } else {
            checkAll(o, model, at);
          }
        }
        checkAll(o, model, "end");
        List<String> listed = new ArrayList<>();
        for (byte[] n : TalusDB.listColumnFamilies(new Options(), dir.toString())) {
          listed.add(s(n));
        }
        List<String> want = new ArrayList<>(names);
        listed.sort(null);
        want.sort(null);
        assertEquals(want, listed);
      } finally {
        o.close();
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void openWithoutAFamilyOnDiskFailsNamingIt() throws Exception {
    Path dir = TestDirs.fresh("cf-missing");
    try {
      try (Open o = open(dir, List.of("default", "sessions"))) {
        o.db.put(o.handles.get("sessions"), b("k"), b("v"));
      }
      try (Options opts = new Options()) {
        TalusException e =
            assertThrows(TalusException.class, () -> TalusDB.open(opts, dir.toString()));
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.getMessage());
        assertTrue(e.getMessage().contains("sessions"), e.getMessage());
      }
      DBOptions strict = new DBOptions();
      List<ColumnFamilyHandle> hs = new ArrayList<>();
      TalusException e = assertThrows(TalusException.class,
          () -> TalusDB.open(strict, dir.toString(),
              List.of(new ColumnFamilyDescriptor(b("default")),
                  new ColumnFamilyDescriptor(b("sessions")),
                  new ColumnFamilyDescriptor(b("absent"))),
              hs));
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.getMessage());
      assertTrue(e.getMessage().contains("absent"), e.getMessage());
      assertTrue(hs.isEmpty());
      // Nothing was lost by the refusals.
      try (Open o = open(dir, List.of("default", "sessions"))) {
        assertArrayEquals(b("v"), o.db.get(o.handles.get("sessions"), b("k")));
        assertNull(o.db.get(b("k")), "families are separate key spaces");
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  @Test
  void handlesAfterDropAndAfterCloseThrowClearly() throws Exception {
    Path dir = TestDirs.fresh("cf-handles");
    try {
      Open o = open(dir, List.of("default", "gone"));
      ColumnFamilyHandle gone = o.handles.get("gone");
      ColumnFamilyHandle def = o.db.getDefaultColumnFamily();
      assertEquals(0, def.getID());
      assertArrayEquals(b("default"), def.getName());
      assertTrue(gone.getID() > 0);
      o.db.put(gone, b("k"), b("v"));
      o.db.flush(new FlushOptions(), gone);
      assertEquals(1, o.db.getLongProperty(gone, "rocksdb.num-files-at-level0"));
      assertEquals(0, o.db.getLongProperty(def, "rocksdb.num-files-at-level0"));
      assertEquals(1, o.db.getAggregatedLongProperty("rocksdb.num-files-at-level0"));
      o.db.dropColumnFamily(gone);
      assertArrayEquals(b("gone"), gone.getName(), "name and id still answer after a drop");
      for (Runnable call : List.<Runnable>of(
          () -> rethrow(() -> o.db.put(gone, b("k"), b("v"))),
          () -> rethrow(() -> o.db.get(gone, b("k"))),
          () -> rethrow(() -> o.db.flush(new FlushOptions(), gone)),
          () -> rethrow(() -> o.db.dropColumnFamily(gone)))) {
        IllegalStateException wrapped = assertThrows(IllegalStateException.class, call::run);
        TalusException e = (TalusException) wrapped.getCause();
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.getMessage());
        assertTrue(e.getMessage().contains("gone") || e.getMessage().contains("dropped"),
            e.getMessage());
      }
      assertThrows(IllegalStateException.class, () -> o.db.newIterator(gone));
      TalusException e = assertThrows(TalusException.class, () -> o.db.dropColumnFamily(def));
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.getMessage());
      // A batch naming the dropped family is refused whole.
      try (WriteBatch wb = new WriteBatch()) {
        wb.put(b("d"), b("1"));
        wb.put(gone, b("k"), b("v"));
        assertThrows(TalusException.class, () -> o.db.write(new WriteOptions(), wb));
      }
      assertNull(o.db.get(b("d")));
      ColumnFamilyHandle again =
          o.db.createColumnFamily(new ColumnFamilyDescriptor(b("gone"), cfOptions("gone")));
      assertFalse(again.getID() == gone.getID(), "ids are never reused");
      assertNull(o.db.get(again, b("k")));
      o.close();
      assertThrows(IllegalStateException.class, again::getName);
      assertThrows(IllegalStateException.class, def::getID);
      assertThrows(IllegalStateException.class, () -> o.db.get(again, b("k")));
      List<byte[]> listed = TalusDB.listColumnFamilies(new Options(), dir.toString());
      assertEquals(List.of("default", "gone"),
          Arrays.asList(s(listed.get(0)), s(listed.get(1))));
      // A handle of one database is refused by another.
      try (Open other = open(TestDirs.fresh("cf-handles-other"), List.of("default"))) {
        try (Open o2 = open(dir, List.of("default", "gone"))) {
          assertThrows(IllegalArgumentException.class,
              () -> other.db.get(o2.handles.get("gone"), b("k")));
        }
      }
    } finally {
      TestDirs.delete(dir);
    }
  }

  interface Call {
    void run() throws TalusException;
  }

  private static void rethrow(Call c) {
    try {
      c.run();
    } catch (TalusException e) {
      throw new IllegalStateException(e);
    }
  }
}
