package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Misuse of the Java API: calls after close, closing with open children and busy threads, double
 * close, null and empty keys, a 100 MB value, options out of range, a file or a held directory as
 * the database path. The JVM must never crash, and a hundred open/use/close rounds must not grow
 * the process's resident memory (a native-memory leak check, not a timing assertion).
 */
class TalusDBMisuseTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("misuse");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static byte[] b(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private TalusDB open() throws TalusException {
    try (Options o = new Options().setCreateIfMissing(true)) {
      return TalusDB.open(o, dir.toString());
    }
  }

  /** A harmless argument of type {@code t} for a reflective call. */
  private static Object dummy(Class<?> t, TalusDB other, ColumnFamilyHandle cf) {
    if (t == byte[].class) {
      return b("k");
    }
    if (t == int.class) {
      return 0;
    }
    if (t == long.class) {
      return 0L;
    }
    if (t == boolean.class) {
      return false;
    }
    if (t == String.class) {
      return "rocksdb.num-files-at-level0";
    }
    if (t == ByteBuffer.class) {
      return ByteBuffer.allocateDirect(8);
    }
    if (t == WriteOptions.class) {
      return new WriteOptions();
    }
    if (t == ReadOptions.class) {
      return new ReadOptions();
    }
    if (t == FlushOptions.class) {
      return new FlushOptions();
    }
    if (t == WriteBatch.class) {
      return new WriteBatch();
    }
    if (t == List.class) {
      return List.of(b("k"));
    }
    if (t == Snapshot.class) {
      return other.getSnapshot();
    }
    if (t == ColumnFamilyHandle.class) {
      return cf;
    }
    if (t == PerfLevel.class) {
      return PerfLevel.ENABLE_COUNT;
    }
    if (t == ColumnFamilyDescriptor.class) {
      return new ColumnFamilyDescriptor(b("cf"));
    }
    if (t == ColumnFamilyOptions.class) {
      return new ColumnFamilyOptions();
    }
    if (t == Holder.class) {
      return new Holder<byte[]>();
    }
    if (t == CompactRangeOptions.class) {
      return new CompactRangeOptions();
    }
    if (t == IngestExternalFileOptions.class) {
      return new IngestExternalFileOptions();
    }
    throw new AssertionError("no dummy for " + t);
  }

  /**
   * Methods that may be called after close: closing again, asking whether it is closed, and
   * Object's toString/equals/hashCode (loggers and debuggers call them on anything).
   */
  private static final Set<String> ALLOWED_AFTER_CLOSE =
      Set.of("close", "closeE", "isClosed", "isOwningHandle", "toString", "equals", "hashCode");

  @Test
  void everyPublicMethodOfAClosedDatabaseThrowsIllegalState() throws Exception {
    TalusDB db = open();
    ColumnFamilyHandle cf = db.getDefaultColumnFamily();
    Path otherDir = TestDirs.fresh("misuse-other");
    List<String> checked = new ArrayList<>();
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB other = TalusDB.open(o, otherDir.toString())) {
      db.close();
      for (Method m : TalusDB.class.getMethods()) {
        if (Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class
            || ALLOWED_AFTER_CLOSE.contains(m.getName())) {
          continue;
        }
        Object[] args = Arrays.stream(m.getParameterTypes()).map(t -> dummy(t, other, cf))
            .toArray();
        try {
          m.invoke(db, args);
          fail(m + " returned normally on a closed database");
        } catch (InvocationTargetException e) {
          if (!(e.getCause() instanceof IllegalStateException)) {
            throw new AssertionError(m + " threw " + e.getCause(), e.getCause());
          }
        }
        checked.add(m.getName());
      }
    } finally {
      TestDirs.delete(otherDir);
    }
    assertTrue(checked.size() > 40, "checked " + checked);
    db.close(); // twice: a no-op
    db.close();
  }

  /** A harmless argument of any type, or null when there is none to make. */
  private static Object anyDummy(Class<?> t) {
    if (t.isEnum()) {
      return t.getEnumConstants()[t.getEnumConstants().length > 1 ? 1 : 0];
    }
    if (t == double.class) {
      return 2.0;
    }
    if (t == int.class) {
      return 1;
    }
    if (t == long.class) {
      return 1L << 20;
    }
    if (t == boolean.class) {
      return true;
    }
    if (t == byte[].class) {
      return b("k");
    }
    if (t == String.class) {
      return "x";
    }
    if (t == ByteBuffer.class) {
      return ByteBuffer.allocateDirect(8);
    }
    try {
      return t.getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  private static List<String> callAllAfterClose(Object closed, Class<?> type) throws Exception {
    List<String> checked = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    for (Method m : type.getMethods()) {
      if (Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class
          || ALLOWED_AFTER_CLOSE.contains(m.getName())) {
        continue;
      }
      Object[] args = Arrays.stream(m.getParameterTypes()).map(TalusDBMisuseTest::anyDummy)
          .toArray();
      if (Arrays.asList(args).contains(null)) {
        continue; // no harmless argument to make (e.g. an abstract Logger)
      }
      try {
        m.invoke(closed, args);
        wrong.add(m + " returned normally after close");
      } catch (InvocationTargetException e) {
        // Unsupported operations say so whatever the state.
        if (!(e.getCause() instanceof IllegalStateException)
            && !(e.getCause() instanceof UnsupportedOperationException)) {
          wrong.add(m + " threw " + e.getCause());
        }
      }
      checked.add(m.getName());
    }
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    return checked;
  }

  @Test
  void everyPublicMethodOfClosedIteratorsBatchesAndOptionsThrowsIllegalState() throws Exception {
    try (TalusDB db = open()) {
      db.put(b("a"), b("1"));
      TalusIterator it = db.newIterator();
      it.close();
      assertTrue(callAllAfterClose(it, TalusIterator.class).size() > 10);
    }
    int n = 0;
    for (Class<?> c : List.of(WriteBatch.class, ReadOptions.class, WriteOptions.class,
        FlushOptions.class, Options.class)) {
      AutoCloseable o = (AutoCloseable) c.getConstructor().newInstance();
      o.close();
      n += callAllAfterClose(o, c).size();
    }
    assertTrue(n > 100, "checked " + n);
  }

  @Test
  void closingTheDatabaseClosesItsIteratorsAndSnapshotsAndBatchesStayUsable() throws Exception {
    TalusDB db = open();
    db.put(b("a"), b("1"));
    TalusIterator it = db.newIterator();
    it.seekToFirst();
    Snapshot s = db.getSnapshot();
    WriteBatch batch = new WriteBatch();
    batch.put(b("b"), b("2"));
    db.close();
    assertThrows(IllegalStateException.class, it::isValid);
    assertThrows(IllegalStateException.class, it::next);
    assertThrows(IllegalStateException.class, it::key);
    assertThrows(IllegalStateException.class, it::status);
    assertThrows(IllegalStateException.class, s::getSequenceNumber);
    it.close();
    s.close();
    // The batch belongs to no database: it still works, but not against a closed one.
    batch.put(b("c"), b("3"));
    assertEquals(2, batch.count());
    try (WriteOptions wo = new WriteOptions()) {
      assertThrows(IllegalStateException.class, () -> db.write(wo, batch));
    }
    batch.close();
    batch.close();
    assertThrows(IllegalStateException.class, () -> batch.put(b("d"), b("4")));
    try (TalusDB again = open()) {
      assertArrayEquals(b("1"), again.get(b("a")));
      assertNull(again.get(b("b")));
    }
  }

  @Test
  void closingWhileOtherThreadsIterateAndWriteNeverCrashes() throws Exception {
    for (int round = 0; round < 3; round++) {
      TalusDB db = open();
      for (int i = 0; i < 2000; i++) {
        db.put(b("k" + i), new byte[100]);
      }
      CountDownLatch started = new CountDownLatch(4);
      AtomicReference<Throwable> bad = new AtomicReference<>();
      List<Thread> ts = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        final int id = t;
        Thread th = new Thread(() -> {
          started.countDown();
          try {
            while (true) {
              if (id % 2 == 0) {
                try (TalusIterator it = db.newIterator()) {
                  for (it.seekToFirst(); it.isValid(); it.next()) {
                    it.value();
                  }
                }
              } else {
                try (Snapshot s = db.getSnapshot(); ReadOptions ro = new ReadOptions()) {
                  ro.setSnapshot(s);
                  db.get(ro, b("k5"));
                  db.put(b("x" + id), new byte[10]);
                }
              }
            }
          } catch (IllegalStateException e) {
            // The expected end.
          } catch (TalusException e) {
            if (e.getStatus().getCode() != Status.Code.ShutdownInProgress) {
              bad.compareAndSet(null, e);
            }
          } catch (Throwable e) {
            bad.compareAndSet(null, e);
          }
        });
        th.start();
        ts.add(th);
      }
      started.await();
      Thread.sleep(30);
      db.close();
      for (Thread th : ts) {
        th.join(30_000);
        assertFalse(th.isAlive());
      }
      if (bad.get() != null) {
        throw new AssertionError(bad.get());
      }
    }
  }

  /** Regression: writing an empty batch to a closed database returned normally. */
  @Test
  void regressionAnEmptyBatchOnAClosedDatabaseThrows() throws Exception {
    TalusDB db = open();
    db.close();
    try (WriteOptions wo = new WriteOptions(); WriteBatch empty = new WriteBatch()) {
      assertThrows(IllegalStateException.class, () -> db.write(wo, empty));
    }
  }

  /**
   * Regression: numberLevels() read the Options object, so it threw once the caller had closed
   * the options (allowed after open), and getName(), getOptions(), numberLevels() and
   * getDefaultColumnFamily() answered on a closed database.
   */
  @Test
  void regressionAccessorsFollowTheDatabaseNotTheOptions() throws Exception {
    Options o = new Options().setCreateIfMissing(true).setNumLevels(5);
    TalusDB db = TalusDB.open(o, dir.toString());
    o.close();
    assertEquals(5, db.numberLevels());
    assertEquals(dir.toString(), db.getName());
    db.close();
    assertThrows(IllegalStateException.class, db::numberLevels);
    assertThrows(IllegalStateException.class, db::getName);
    assertThrows(IllegalStateException.class, db::getOptions);
    assertThrows(IllegalStateException.class, db::getDefaultColumnFamily);
  }

  /** Regression: releaseSnapshot() released a snapshot of another database, even when closed. */
  @Test
  void releasingASnapshotOfAnotherDatabaseIsRefused() throws Exception {
    Path otherDir = TestDirs.fresh("misuse-other");
    try (TalusDB db = open();
        Options o = new Options().setCreateIfMissing(true);
        TalusDB other = TalusDB.open(o, otherDir.toString())) {
      Snapshot s = other.getSnapshot();
      assertThrows(IllegalArgumentException.class, () -> db.releaseSnapshot(s));
      assertEquals(s.getSequenceNumber(), s.getSequenceNumber(), "still usable");
      other.releaseSnapshot(s);
      assertThrows(IllegalStateException.class, s::getSequenceNumber);
      db.releaseSnapshot(null);
    } finally {
      TestDirs.delete(otherDir);
    }
  }

  /** The public methods of a database that take read options. */
  private static List<Method> readMethods() {
    List<Method> reads = new ArrayList<>();
    for (Method m : TalusDB.class.getMethods()) {
      if (!Modifier.isStatic(m.getModifiers())
          && Arrays.asList(m.getParameterTypes()).contains(ReadOptions.class)) {
        reads.add(m);
      }
    }
    return reads;
  }

  /** Calls read method {@code m} of {@code db} with {@code ro}; returns what it threw, or null. */
  private static Throwable read(TalusDB db, Method m, ReadOptions ro) throws Exception {
    Class<?>[] types = m.getParameterTypes();
    Object[] args = Arrays.stream(types)
        .map(t -> t == ReadOptions.class ? ro : dummy(t, null, null)).toArray();
    // The column-family multiGetAsList: a list of handles, then the keys.
    if (types.length == 3 && types[1] == List.class && types[2] == List.class) {
      args[1] = List.of(db.getDefaultColumnFamily());
    }
    // newIterators(List<ColumnFamilyHandle>, ReadOptions): a list of handles.
    if (types.length == 2 && types[0] == List.class) {
      args[0] = List.of(db.getDefaultColumnFamily());
    }
    try {
      Object result = m.invoke(db, args);
      if (result instanceof AutoCloseable) {
        ((AutoCloseable) result).close(); // an iterator
      }
      return null;
    } catch (InvocationTargetException e) {
      return e.getCause();
    }
  }

  /**
   * Regression: a snapshot of one database, passed to another database's reads, silently read
   * the other database at the first one's sequence number.
   */
  @Test
  void readsAtASnapshotOfAnotherDatabaseAreRefused() throws Exception {
    Path otherDir = TestDirs.fresh("misuse-other");
    try (TalusDB db = open();
        Options o = new Options().setCreateIfMissing(true);
        TalusDB other = TalusDB.open(o, otherDir.toString())) {
      db.put(b("k"), b("mine"));
      other.put(b("k"), b("theirs"));
      Snapshot theirs = other.getSnapshot();
      List<String> wrong = new ArrayList<>();
      List<Method> reads = readMethods();
      try (ReadOptions ro = new ReadOptions().setSnapshot(theirs)) {
        for (Method m : reads) {
          Throwable t = read(db, m, ro);
          if (!(t instanceof IllegalArgumentException)
              || !t.getMessage().contains("belongs to another database")) {
            wrong.add(m + " threw " + t);
          }
        }
        assertArrayEquals(b("theirs"), other.get(ro, b("k")), "its own database reads at it");
        for (Method m : reads) {
          assertNull(read(other, m, ro), m.toString());
        }
      }
      assertTrue(wrong.isEmpty(), String.join("\n", wrong));
      // get x4, newIterator, multiGetAsList, keyMayExist x4, keyExists x3, and the
      // column-family forms: get x5, newIterator, newIterators, multiGetAsList, keyMayExist x4,
      // keyExists x3.
      assertEquals(28, reads.size(), "checked " + reads);
      assertArrayEquals(b("mine"), db.get(b("k")));
      other.releaseSnapshot(theirs);
    } finally {
      TestDirs.delete(otherDir);
    }
  }

  /**
   * A read at a released snapshot throws instead of reading at a sequence number the engine may
   * already have compacted away; the read holds the snapshot, so it cannot be released midway.
   */
  @Test
  void readsAtAReleasedSnapshotThrowIllegalState() throws Exception {
    try (TalusDB db = open()) {
      db.put(b("k"), b("old"));
      for (int way = 0; way < 2; way++) {
        Snapshot s = db.getSnapshot();
        db.put(b("k"), b("new" + way));
        try (ReadOptions ro = new ReadOptions().setSnapshot(s)) {
          assertArrayEquals(way == 0 ? b("old") : b("new0"), db.get(ro, b("k")));
          if (way == 0) {
            db.releaseSnapshot(s);
          } else {
            s.close();
          }
          for (Method m : readMethods()) {
            Throwable t = read(db, m, ro);
            assertTrue(t instanceof IllegalStateException, m + " threw " + t);
            assertEquals("Snapshot is closed", t.getMessage(), m.toString());
          }
        }
      }
      assertEquals(0, db.getLongProperty("rocksdb.num-snapshots"));
    }
  }

  /**
   * A snapshot released while other threads read at it: each read either finishes at the
   * snapshot (it held the snapshot, so the release waited) or throws IllegalStateException. While
   * they run, a writer overwrites the key and flushes and compacts, so a read that went on at a
   * sequence number the engine had already forgotten would see the new value or nothing.
   */
  @Test
  void releasingASnapshotDuringReadsNeverShowsALaterState() throws Exception {
    // Regression: it did show one, before the release. A memtable lookup could return the key's
    // version one past the snapshot when that write landed during the lookup (the skiplist's
    // lower_bound reloaded a pointer after its search); see the engine's
    // reads_at_a_snapshot_never_see_a_write_that_lands_during_them.
    try (TalusDB db = open()) {
      db.put(b("k"), b("old"));
      db.flush(new FlushOptions().setWaitForFlush(true));
      for (int round = 0; round < 20; round++) {
        Snapshot s = db.getSnapshot();
        String at = "at snapshot " + s.getSequenceNumber() + ", round " + round;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(3);
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
          boolean multi = t == 2;
          Thread r = new Thread(() -> {
            try (ReadOptions ro = new ReadOptions().setSnapshot(s)) {
              started.countDown();
              while (true) {
                byte[] got;
                try {
                  got = multi ? db.multiGetAsList(ro, List.of(b("k"))).get(0) : db.get(ro, b("k"));
                } catch (IllegalStateException released) {
                  assertEquals("Snapshot is closed", released.getMessage());
                  return;
                }
                assertEquals("old", got == null ? null : Lsm.s(got),
                    (multi ? "multiGetAsList " : "get ") + at);
              }
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            }
          });
          r.start();
          readers.add(r);
        }
        started.await();
        db.put(b("k"), b("new" + round));
        db.flush(new FlushOptions().setWaitForFlush(true));
        if (round % 2 == 0) {
          db.releaseSnapshot(s);
        } else {
          s.close();
        }
        db.compactRange(); // drops the old version once no snapshot holds it
        for (Thread r : readers) {
          r.join(10_000);
          assertFalse(r.isAlive(), "a reader still reads after the release");
        }
        if (failure.get() != null) {
          throw new AssertionError("round " + round, failure.get());
        }
        db.put(b("k"), b("old"));
      }
      assertEquals(0, db.getLongProperty("rocksdb.num-snapshots"));
    }
  }

  /**
   * Regression: a read-only direct value buffer was written by native code; a read-only mapped
   * one crashed the JVM.
   */
  @Test
  void aReadOnlyValueBufferIsRefusedBeforeTheRead() throws Exception {
    Path file = dir.resolve("read-only-mapped");
    Files.write(file, new byte[4096]);
    try (TalusDB db = open();
        ReadOptions ro = new ReadOptions();
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      db.put(b("k"), b("value"));
      ByteBuffer key = ByteBuffer.allocateDirect(1).put(b("k")).flip();
      for (ByteBuffer value : List.of(ByteBuffer.allocateDirect(16).asReadOnlyBuffer(),
          ByteBuffer.allocate(16).asReadOnlyBuffer(),
          ch.map(FileChannel.MapMode.READ_ONLY, 0, 4096))) {
        ByteBuffer k = key.duplicate();
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> db.get(ro, k, value));
        assertEquals("value buffer is read-only", e.getMessage());
        assertEquals(0, k.position(), "nothing consumed");
        assertEquals(0, value.position());
      }
      try (TalusIterator it = db.newIterator()) {
        it.seekToFirst();
        ByteBuffer readOnly = ByteBuffer.allocateDirect(16).asReadOnlyBuffer();
        assertEquals("key buffer is read-only",
            assertThrows(IllegalArgumentException.class, () -> it.key(readOnly)).getMessage());
        assertEquals("value buffer is read-only",
            assertThrows(IllegalArgumentException.class, () -> it.value(readOnly)).getMessage());
      }
      ByteBuffer out = ByteBuffer.allocateDirect(16);
      assertEquals(5, db.get(ro, key.duplicate(), out), "writable buffers still work");
      byte[] got = new byte[out.remaining()];
      out.get(got);
      assertArrayEquals(b("value"), got);
    }
  }

  /**
   * Regression: close() of Slice, Filter, PerfContext and ColumnFamilyHandle did nothing, so a
   * closed object went on working. Closing a column family handle drops nothing (as in RocksJava).
   */
  @Test
  void closedSlicesFiltersPerfContextsAndColumnFamilyHandlesThrowIllegalState() throws Exception {
    Slice slice = new Slice("x");
    slice.close();
    slice.close();
    assertEquals(3, callAllAfterClose(slice, Slice.class).size());
    assertEquals("Slice is closed",
        assertThrows(IllegalStateException.class, slice::data).getMessage());
    assertEquals("Slice{closed}", slice.toString());
    try (ReadOptions ro = new ReadOptions()) {
      assertThrows(IllegalStateException.class, () -> ro.setIterateLowerBound(slice));
    }

    BloomFilter closedBloom = new BloomFilter(10);
    closedBloom.close();
    try (Options o = new Options().setCreateIfMissing(true)
        .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(closedBloom))) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> TalusDB.open(o, dir.toString()));
      assertEquals("BloomFilter is closed", e.getMessage());
    }
    BloomFilter bloom = new BloomFilter(10);
    try (Options o = new Options().setCreateIfMissing(true)
            .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(bloom));
        TalusDB db = TalusDB.open(o, dir.toString())) {
      bloom.close(); // harmless once open: the database copied the settings
      db.put(b("k"), b("v"));
      assertArrayEquals(b("v"), db.get(b("k")));

      PerfContext ctx = db.getPerfContext();
      ctx.close();
      ctx.close();
      assertTrue(callAllAfterClose(ctx, PerfContext.class).size() > 50);
      assertEquals("PerfContext is closed",
          assertThrows(IllegalStateException.class, ctx::getNumRuns).getMessage());
      assertEquals("PerfContext{closed}", ctx.toString());
      db.getPerfContext().getNumRuns(); // a new one works

      ColumnFamilyHandle cf = db.getDefaultColumnFamily();
      cf.close();
      cf.close();
      assertEquals(2, callAllAfterClose(cf, ColumnFamilyHandle.class).size());
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> db.getProperty(cf, "rocksdb.num-files-at-level0"));
      assertEquals("ColumnFamilyHandle is closed", e.getMessage());
      // The database and new handles are unaffected.
      ColumnFamilyHandle again = db.getDefaultColumnFamily();
      assertNotSame(cf, again);
      assertEquals(cf, again);
      assertArrayEquals(TalusDB.DEFAULT_COLUMN_FAMILY, again.getName());
      assertEquals(0, again.getID());
      assertEquals("0", db.getProperty(again, "rocksdb.num-files-at-level0"));
      assertArrayEquals(b("v"), db.get(b("k")));
      // A handle of a closed database defers to the database.
      db.close();
      e = assertThrows(IllegalStateException.class, again::getName);
      assertEquals("TalusDB is closed", e.getMessage());
      assertThrows(IllegalStateException.class, again::getID);
    }
  }

  private static void assertNullNamed(String param, Executable make) {
    NullPointerException e = assertThrows(NullPointerException.class, make);
    assertEquals(param, e.getMessage());
  }

  @Test
  void nullConstructorArgumentsNameTheParameter() {
    assertNullNamed("data", () -> new Slice((byte[]) null));
    assertNullNamed("data", () -> new Slice(null, 0));
    assertNullNamed("s", () -> new Slice((String) null));
    assertNullNamed("other", () -> new ReadOptions((ReadOptions) null));
    assertNullNamed("other", () -> new WriteOptions((WriteOptions) null));
    assertNullNamed("other", () -> new Options((Options) null));
    assertThrows(IndexOutOfBoundsException.class, () -> new Slice(b("ab"), 3));
    assertEquals("b", new Slice(b("ab"), 1).toString());
    assertTrue(new Slice(b("ab"), 2).empty());
  }

  @Test
  void nullArgumentsNameTheParameterAndEmptyKeysWork() throws Exception {
    try (TalusDB db = open(); WriteOptions wo = new WriteOptions()) {
      NullPointerException e = assertThrows(NullPointerException.class, () -> db.put(null, b("v")));
      assertTrue(e.getMessage().contains("key"), e.getMessage());
      e = assertThrows(NullPointerException.class, () -> db.put(b("k"), null));
      assertTrue(e.getMessage().contains("value"), e.getMessage());
      assertThrows(NullPointerException.class, () -> db.get((byte[]) null));
      assertThrows(NullPointerException.class, () -> db.delete((byte[]) null));
      assertThrows(NullPointerException.class, () -> db.put((WriteOptions) null, b("k"), b("v")));
      assertThrows(NullPointerException.class, () -> db.write(wo, null));
      assertThrows(NullPointerException.class, () -> db.getProperty(null));
      assertThrows(NullPointerException.class, () -> TalusDB.open(null, dir.toString()));
      db.put(new byte[0], new byte[0]);
      assertArrayEquals(new byte[0], db.get(new byte[0]));
      db.put(new byte[0], b("v"));
      assertArrayEquals(b("v"), db.get(new byte[0]));
      db.delete(new byte[0]);
      assertNull(db.get(new byte[0]));
    }
  }

  @Test
  void aHundredMegabyteValueRoundTrips() throws Exception {
    byte[] big = new byte[100 << 20];
    for (int i = 0; i < big.length; i += 4096) {
      big[i] = (byte) (i >>> 12);
    }
    try (TalusDB db = open(); FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      db.put(b("big"), big);
      assertArrayEquals(big, db.get(b("big")));
      db.flush(fo);
      assertArrayEquals(big, db.get(b("big")));
    }
    try (TalusDB db = open()) {
      assertArrayEquals(big, db.get(b("big")));
    }
  }

  @Test
  void unsafeOptionsAreRejectedClearly() throws Exception {
    // Values RocksJava accepts are accepted (open corrects them as RocksDB does: OptionsTest);
    // only those no database can run with are refused, naming the option.
    try (Options o = new Options()) {
      o.setWriteBufferSize(0).setMaxWriteBufferNumber(-3).setMaxBytesForLevelBase(-1)
          .setTargetFileSizeBase(0).setNumLevels(0).setMaxBackgroundJobs(0)
          .setMaxBytesForLevelMultiplier(0.5);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> o.setNumLevels(65));
      assertTrue(e.getMessage().contains("numLevels"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> o.setMaxBackgroundJobs(4096));
      assertTrue(e.getMessage().contains("maxBackgroundJobs"), e.getMessage());
    }
    try (TalusDB db = open()) {
      TalusException e =
          assertThrows(TalusException.class, () -> db.getProperty("rocksdb.no-such-property"));
      assertEquals(Status.Code.NotFound, e.getStatus().getCode());
      assertTrue(e.getMessage().contains("rocksdb.no-such-property"), e.getMessage());
      assertThrows(TalusException.class, () -> db.getLongProperty("rocksdb.no-such-property"));
    }
  }

  @Test
  void aRegularFileIsNotADatabaseAndADirectoryOpensOnce() throws Exception {
    Path file = dir.resolve("plain-file");
    Files.writeString(file, "not a database");
    try (Options o = new Options().setCreateIfMissing(true)) {
      TalusException e = assertThrows(TalusException.class, () -> TalusDB.open(o, file.toString()));
      assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode());
      assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
      assertEquals("not a database", Files.readString(file), "the file is left alone");
      Path db = dir.resolve("db");
      try (TalusDB first = TalusDB.open(o, db.toString())) {
        TalusException busy =
            assertThrows(TalusException.class, () -> TalusDB.open(o, db.toString()));
        assertEquals(Status.Code.IOError, busy.getStatus().getCode());
        first.put(b("still"), b("works"));
      }
      try (TalusDB again = TalusDB.open(o, db.toString())) {
        assertArrayEquals(b("works"), again.get(b("still")));
      }
    }
  }

  private static void assertInvalidArgument(String what, Executable call) {
    TalusException e = assertThrows(TalusException.class, call, what);
    assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), what + ": " + e);
  }

  /**
   * A write with {@code sync} and {@code disableWAL} was acknowledged as synced without a WAL
   * record, and lost on a kill. Every write method taking {@link WriteOptions} (found by
   * reflection, so that a new one is covered too) now refuses it with {@code InvalidArgument} and
   * changes nothing; the setters themselves accept it, as RocksJava's do.
   */
  @Test
  void regressionSyncWithDisableWalIsRefusedAtEveryWrite() throws Exception {
    // With a merge operator: without one, merge refuses first with NotSupported (as RocksDB).
    try (Options o = new Options().setCreateIfMissing(true).setMergeOperatorName("stringappend");
        TalusDB db = TalusDB.open(o, dir.toString());
        WriteOptions bad = new WriteOptions().setSync(true).setDisableWAL(true);
        WriteBatch batch = new WriteBatch()) {
      db.put(b("kept"), b("before"));
      long seq = db.getLatestSequenceNumber();
      ColumnFamilyHandle cf = db.getDefaultColumnFamily();
      List<String> checked = new ArrayList<>();
      for (Method m : TalusDB.class.getMethods()) {
        List<Class<?>> types = Arrays.asList(m.getParameterTypes());
        if (Modifier.isStatic(m.getModifiers()) || !types.contains(WriteOptions.class)) {
          continue;
        }
        Object[] args = types.stream().map(t -> t == WriteOptions.class ? bad : dummy(t, db, cf))
            .toArray();
        try {
          m.invoke(db, args);
          fail(m + " accepted sync with disableWAL");
        } catch (InvocationTargetException e) {
          if (!(e.getCause() instanceof TalusException)
              || ((TalusException) e.getCause()).getStatus().getCode()
                  != Status.Code.InvalidArgument) {
            throw new AssertionError(m + " threw " + e.getCause(), e.getCause());
          }
        }
        checked.add(m.toString());
      }
      assertTrue(checked.size() >= 8, "checked " + checked);
      // What the dummies leave out: heap buffers, a non-empty batch, a real range.
      assertInvalidArgument("put(heap buffers)",
          () -> db.put(bad, ByteBuffer.wrap(b("k")), ByteBuffer.wrap(b("v"))));
      assertInvalidArgument("delete(heap buffer)", () -> db.delete(bad, ByteBuffer.wrap(b("k"))));
      assertInvalidArgument("deleteRange", () -> db.deleteRange(bad, b("a"), b("z")));
      assertInvalidArgument("merge(heap buffers)",
          () -> db.merge(bad, ByteBuffer.wrap(b("k")), ByteBuffer.wrap(b("v"))));
      assertInvalidArgument("singleDelete", () -> db.singleDelete(bad, b("kept")));
      batch.put(b("k"), b("v"));
      batch.delete(b("kept"));
      batch.merge(b("kept"), b("more"));
      assertInvalidArgument("write(batch)", () -> db.write(bad, batch));
      assertEquals(seq, db.getLatestSequenceNumber(), "a refused write took a sequence number");
      assertNull(db.get(b("k")));
      assertArrayEquals(b("before"), db.get(b("kept")));
      try (WriteOptions synced = new WriteOptions().setSync(true);
          WriteOptions unlogged = new WriteOptions().setDisableWAL(true)) {
        db.put(synced, b("k"), b("synced"));
        db.put(unlogged, b("u"), b("unlogged"));
      }
      assertArrayEquals(b("synced"), db.get(b("k")));
    }
  }

  /**
   * A path with an unpaired UTF-16 surrogate was converted lossily: "x", U+D800, "y" and "x",
   * U+DBFF, "y" both became "x", U+FFFD, "y" and opened the same directory. Such a path (the
   * database's or an option's) is refused with {@code InvalidArgument}, and nothing is created.
   */
  @Test
  void regressionPathWithUnpairedSurrogateIsRefused() throws Exception {
    for (String name : List.of("x\uD800y", "x\uDBFFy", "x\uDC00y", "x\uD800")) {
      try (Options o = new Options().setCreateIfMissing(true)) {
        String path = dir.resolve("sub").toString() + "/" + name;
        TalusException e = assertThrows(TalusException.class, () -> TalusDB.open(o, path));
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.toString());
        assertTrue(e.getMessage().contains("database path"), e.getMessage());
        assertTrue(e.getMessage().contains("surrogate"), e.getMessage());
      }
      try (Options o = new Options().setCreateIfMissing(true)
          .setWalDir(dir.resolve("wal").toString() + "/" + name)) {
        String path = dir.resolve("db").toString();
        TalusException e = assertThrows(TalusException.class, () -> TalusDB.open(o, path));
        assertEquals(Status.Code.InvalidArgument, e.getStatus().getCode(), e.toString());
        assertTrue(e.getMessage().contains("wal_dir"), e.getMessage());
      }
    }
    try (java.util.stream.Stream<Path> left = Files.list(dir)) {
      assertEquals(List.of(), left.toList(), "a refused open created something");
    }
    // A surrogate pair is a character like any other (checked where Java's own file names are
    // UTF-8, so that it can see the directory).
    if ("UTF-8".equals(System.getProperty("sun.jnu.encoding"))) {
      String pair = dir.resolve("x\uD83D\uDE00y").toString();
      try (Options o = new Options().setCreateIfMissing(true);
          TalusDB db = TalusDB.open(o, pair)) {
        db.put(b("k"), b("v"));
      }
      assertTrue(Files.isDirectory(dir.resolve("x\uD83D\uDE00y")));
    }
  }

  /**
   * A database directory the user may not read (mode 000) failed with {@code InvalidArgument
   * ... does not exist (create_if_missing is false)}. It is an {@code IOError} naming the path and
   * the OS error. A path below a regular file (ENOTDIR) was reported the same way.
   *
   * <p>Root reads a mode-000 directory, so as root the permission case runs in a child JVM started
   * through {@code setpriv} as user {@code nobody}; as another user it runs in this JVM. It is
   * skipped (with a message) only as root without {@code setpriv}.
   */
  @Test
  void regressionUnreadableDatabaseDirectoryIsAnIoErrorNotMissing() throws Exception {
    Path file = dir.resolve("file");
    Files.writeString(file, "not a directory");
    String below = file.resolve("db").toString();
    try (Options o = new Options().setCreateIfMissing(false)) {
      TalusException e = assertThrows(TalusException.class, () -> TalusDB.open(o, below));
      assertEquals(Status.Code.IOError, e.getStatus().getCode(), e.toString());
      assertTrue(e.getMessage().contains(below), e.getMessage());
      assertTrue(e.getMessage().contains("Not a directory"), e.getMessage());
    }

    Path db = dir.resolve("db");
    try (TalusDB made = TalusDB.open(db.toString())) {
      made.put(b("k"), b("v"));
    }
    // The test folder is private (mode 700); the child needs to reach the database below it.
    Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString(
        "rwxr-xr-x"));
    Files.setPosixFilePermissions(db, Set.of());
    try {
      String code;
      String message;
      if (!"root".equals(System.getProperty("user.name"))) {
        try (Options o = new Options().setCreateIfMissing(false)) {
          TalusException e =
              assertThrows(TalusException.class, () -> TalusDB.open(o, db.toString()));
          code = e.getStatus().getCode().toString();
          message = e.getMessage();
        }
      } else {
        Path setpriv = Path.of("/usr/bin/setpriv");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(setpriv),
            "running as root without /usr/bin/setpriv: cannot open as a non-root user");
        java.util.Map<String, String> out = ChildJvm.run(0,
            List.of(setpriv.toString(), "--reuid=65534", "--regid=65534", "--clear-groups"),
            List.of(), OpenErrorChild.class, db.toString());
        code = out.get("code");
        message = out.get("message");
      }
      assertEquals("IOError", code, message);
      assertTrue(message.contains(db.toString()), message);
      assertTrue(message.contains("Permission denied"), message);
    } finally {
      Files.setPosixFilePermissions(db, java.nio.file.attribute.PosixFilePermissions.fromString(
          "rwx------"));
    }
    try (TalusDB again = TalusDB.open(db.toString())) {
      assertArrayEquals(b("v"), again.get(b("k")), "the database is untouched");
    }
  }

  private static long rssKb() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new AssertionError("no VmRSS in /proc/self/status");
  }

  private void oneRound(int round) throws Exception {
    try (Options o = new Options().setCreateIfMissing(true).setWriteBufferSize(256 << 10);
        TalusDB db = TalusDB.open(o, dir.resolve("leak").toString());
        WriteOptions wo = new WriteOptions();
        FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      try (WriteBatch batch = new WriteBatch()) {
        for (int i = 0; i < 500; i++) {
          batch.put(b("k" + (i % 300)), new byte[200]);
        }
        db.write(wo, batch);
      }
      db.flush(fo);
      try (TalusIterator it = db.newIterator()) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          it.key();
        }
      }
      db.multiGetAsList(List.of(b("k1"), b("k2"), b("none")));
      // Left open on purpose: closing the database must free them.
      db.newIterator().seekToFirst();
      db.getSnapshot();
      assertThrows(TalusException.class, () -> db.getProperty("rocksdb.nope" + round));
    }
  }

  @Test
  void aHundredRoundsOfOpenUseCloseDoNotLeakNativeMemory() throws Exception {
    for (int i = 0; i < 10; i++) {
      oneRound(i); // warm-up: allocator arenas, JIT, class loading
    }
    System.gc();
    long before = rssKb();
    for (int i = 0; i < 100; i++) {
      oneRound(i);
    }
    System.gc();
    long after = rssKb();
    long growthMb = (after - before) / 1024;
    System.out.println("misuse: RSS " + before / 1024 + " MB -> " + after / 1024
        + " MB over 100 rounds");
    assertTrue(growthMb < 64, "RSS grew by " + growthMb + " MB over 100 rounds");
  }

  /**
   * The native side checks an array region itself, whatever the Java side checked before it: a
   * region out of bounds is an {@code IndexOutOfBoundsException} naming the argument, on the fast
   * copy of small regions (where the JVM's own exception is replaced) and on the checked path of
   * large ones, and the thread is left able to call again. The public methods check first, so
   * the native methods are called here directly.
   */
  @Test
  void regressionNativeRegionChecksNameTheArgumentOnBothCopyPaths() throws Exception {
    try (TalusDB db = open(); ReadOptions ro = new ReadOptions(); WriteOptions wo =
        new WriteOptions()) {
      db.put(b("key1"), b("v1"));
      Method handleOf = dev.talus.internal.NativeHandle.class.getDeclaredMethod("nativeHandle");
      handleOf.setAccessible(true);
      long h = (long) handleOf.invoke(db);
      Method get = TalusDB.class.getDeclaredMethod("nativeGet", long.class, int.class, long.class,
          byte[].class, int.class, int.class);
      get.setAccessible(true);
      Method put = TalusDB.class.getDeclaredMethod("nativePut", long.class, int.class,
          byte[].class, int.class, int.class, byte[].class, int.class, int.class);
      put.setAccessible(true);
      byte[] key = b("key1");
      int[][] bad = {{3, 5}, {-1, 2}, {0, -1}, {5, 0}, {0, 100_000}, {0, Integer.MAX_VALUE}};
      for (int[] r : bad) {
        InvocationTargetException e = assertThrows(InvocationTargetException.class,
            () -> get.invoke(null, h, ro.flags(), -1L, key, r[0], r[1]));
        assertEquals(IndexOutOfBoundsException.class, e.getCause().getClass(),
            Arrays.toString(r));
        assertEquals("key: offset " + r[0] + " and length " + r[1]
            + " out of bounds for length 4", e.getCause().getMessage());
      }
      // In bounds after the failures: exactly the region, on both paths.
      assertArrayEquals(b("v1"), (byte[]) get.invoke(null, h, ro.flags(), -1L, b("xkey1y"), 1, 4));
      byte[] big = new byte[100_000];
      Arrays.fill(big, (byte) 7);
      big[99_999] = 9;
      put.invoke(null, h, wo.flags(), key, 0, 4, big, 1, 99_999);
      byte[] got = db.get(key);
      assertEquals(99_999, got.length);
      assertEquals(9, got[99_998]);
      InvocationTargetException e = assertThrows(InvocationTargetException.class,
          () -> put.invoke(null, h, wo.flags(), key, 0, 4, big, 1, 100_000));
      assertEquals("value: offset 1 and length 100000 out of bounds for length 100000",
          e.getCause().getMessage());
      assertArrayEquals(got, db.get(key));
    }
  }

  /**
   * The packed multi-get natives check what the public method guarantees: lengths that do not
   * match the key chunks, a negative length, a missing chunk array, a value-length array of the
   * wrong size and a limit below one are each refused with a named argument, and the database
   * still answers afterwards.
   */
  @Test
  void nativeMultiGetRefusesPackingsThatDoNotMatch() throws Exception {
    try (TalusDB db = open(); ReadOptions ro = new ReadOptions()) {
      db.put(b("key1"), b("v1"));
      Method handleOf = dev.talus.internal.NativeHandle.class.getDeclaredMethod("nativeHandle");
      handleOf.setAccessible(true);
      long h = (long) handleOf.invoke(db);
      Method mget = TalusDB.class.getDeclaredMethod("nativeMultiGet", long.class, int.class,
          long.class, byte[][].class, int[].class, int[].class, int.class);
      mget.setAccessible(true);
      byte[][] chunks = {b("key1key1")};
      Object[][] bad = {
          {chunks, new int[] {4, 5}, new int[2], 100, IllegalArgumentException.class,
              "the packed keys do not match their lengths"},
          {chunks, new int[] {4, -4}, new int[2], 100, IllegalArgumentException.class,
              "the packed keys do not match their lengths"},
          {chunks, new int[] {4, 4, 0, 1}, new int[4], 100, IllegalArgumentException.class,
              "the packed keys do not match their lengths"},
          {new byte[0][], new int[] {0}, new int[1], 100, IllegalArgumentException.class,
              "the packed keys do not match their lengths"},
          {new byte[][] {null}, new int[] {0}, new int[1], 100, NullPointerException.class,
              "keys must not be null"},
          {null, new int[] {0}, new int[1], 100, NullPointerException.class,
              "keys must not be null"},
          {chunks, new int[] {4, 4}, new int[3], 100, IllegalArgumentException.class,
              "valueLengths must have one element per key"},
          {chunks, new int[] {4, 4}, new int[2], 0, IllegalArgumentException.class,
              "chunk limit 0 is not positive"},
      };
      for (Object[] c : bad) {
        InvocationTargetException e = assertThrows(InvocationTargetException.class,
            () -> mget.invoke(null, h, ro.flags(), -1L, c[0], c[1], c[2], c[3]));
        assertEquals(c[4], e.getCause().getClass(), String.valueOf(c[5]));
        assertEquals(c[5], e.getCause().getMessage());
      }
      int[] lengths = new int[2];
      byte[][] values = (byte[][]) mget.invoke(null, h, ro.flags(), -1L,
          new byte[][] {b("key1"), b("key2")}, new int[] {4, 4}, lengths, 2);
      assertArrayEquals(new int[] {2, -1}, lengths);
      assertArrayEquals(b("v1"), values[0]);
    }
  }
}
