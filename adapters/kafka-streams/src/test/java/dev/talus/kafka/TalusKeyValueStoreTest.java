package dev.talus.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.talus.TalusDB;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The KeyValueStore contract on the store itself (below Kafka Streams' caching and metering). */
class TalusKeyValueStoreTest {
  @TempDir Path dir;
  private TestContext context;
  private TalusKeyValueStore store;

  @BeforeEach
  void open() {
    context = new TestContext(dir.resolve("0_0").toFile(), new TaskId(0, 0));
    store = open("kv");
  }

  @AfterEach
  void close() {
    store.close();
  }

  private TalusKeyValueStore open(String name) {
    TalusKeyValueStore s = (TalusKeyValueStore) TalusStores.persistentKeyValueStore(name).get();
    s.init(context, s);
    return s;
  }

  static Bytes b(String s) {
    return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] v(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String str(byte[] v) {
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  static List<String> keys(KeyValueIterator<Bytes, byte[]> it) {
    List<String> out = new ArrayList<>();
    try (it) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> kv = it.next();
        out.add(str(kv.key.get()) + "=" + str(kv.value));
      }
    }
    return out;
  }

  @Test
  void storeIsPersistentOpenAndNamed() {
    assertEquals("kv", store.name());
    assertTrue(store.persistent());
    assertTrue(store.isOpen());
    assertTrue(store.managesOffsets());
    assertTrue(new File(context.taskDir, "talus/kv/CURRENT").exists(),
        "the database lives at <task dir>/talus/<store>");
    assertFalse(store instanceof TimestampedBytesStore);
  }

  @Test
  void putGetDeletePutIfAbsent() {
    assertNull(store.get(b("a")));
    store.put(b("a"), v("1"));
    assertEquals("1", str(store.get(b("a"))));
    assertEquals("1", str(store.putIfAbsent(b("a"), v("2"))));
    assertEquals("1", str(store.get(b("a"))));
    assertNull(store.putIfAbsent(b("b"), v("3")));
    assertEquals("3", str(store.get(b("b"))));
    assertEquals("3", str(store.delete(b("b"))));
    assertNull(store.get(b("b")));
    assertNull(store.delete(b("missing")));
    store.put(b("a"), null);
    assertNull(store.get(b("a")), "a null value deletes");
    store.put(Bytes.wrap(new byte[0]), v("empty key"));
    assertEquals("empty key", str(store.get(Bytes.wrap(new byte[0]))));
    assertThrows(NullPointerException.class, () -> store.put(null, v("x")));
  }

  @Test
  void putAllIsOneBatchWithDeletes() {
    store.put(b("gone"), v("x"));
    store.putAll(List.of(KeyValue.pair(b("k1"), v("1")), KeyValue.pair(b("k2"), v("2")),
        KeyValue.pair(b("gone"), null)));
    assertEquals(List.of("k1=1", "k2=2"), keys(store.all()));
    // A null key fails the whole batch: nothing of it is written.
    List<KeyValue<Bytes, byte[]>> bad = new ArrayList<>();
    bad.add(KeyValue.pair(b("k3"), v("3")));
    bad.add(KeyValue.pair(null, v("4")));
    assertThrows(NullPointerException.class, () -> store.putAll(bad));
    assertNull(store.get(b("k3")));
  }

  @Test
  void rangesAndScansHonourBoundsAndDirection() {
    for (String k : new String[] {"a", "b", "ba", "bb", "c", "d"}) {
      store.put(b(k), v(k.toUpperCase()));
    }
    assertEquals(List.of("b=B", "ba=BA", "bb=BB", "c=C"), keys(store.range(b("b"), b("c"))));
    assertEquals(List.of("c=C", "bb=BB", "ba=BA", "b=B"),
        keys(store.reverseRange(b("b"), b("c"))));
    assertEquals(List.of("a=A", "b=B"), keys(store.range(null, b("b"))));
    assertEquals(List.of("c=C", "d=D"), keys(store.range(b("bc"), null)));
    assertEquals(List.of("d=D", "c=C"), keys(store.reverseRange(b("bc"), null)));
    assertEquals(6, keys(store.range(null, null)).size());
    assertEquals(List.of(), keys(store.range(b("d"), b("a"))), "an inverted range is empty");
    assertEquals(List.of("a=A", "b=B", "ba=BA", "bb=BB", "c=C", "d=D"), keys(store.all()));
    assertEquals(List.of("d=D", "c=C", "bb=BB", "ba=BA", "b=B", "a=A"), keys(store.reverseAll()));
    assertEquals(List.of("b=B", "ba=BA", "bb=BB"),
        keys(store.prefixScan("b", new StringSerializer())));
    assertEquals(List.of(), keys(store.prefixScan("x", new StringSerializer())));
    // A prefix ending in 0xff: its upper bound carries into the byte before.
    store.put(Bytes.wrap(new byte[] {'e', (byte) 0xff, 1}), v("E"));
    store.put(Bytes.wrap(new byte[] {'f'}), v("F"));
    try (KeyValueIterator<Bytes, byte[]> it =
        store.prefixScan(new byte[] {'e', (byte) 0xff}, (t, p) -> p)) {
      assertTrue(it.hasNext());
      assertArrayEquals(new byte[] {'e', (byte) 0xff, 1}, it.peekNextKey().get());
      it.next();
      assertFalse(it.hasNext());
    }
  }

  @Test
  void iteratorsSeeNoStoreMetadataAndAreClosedWithTheStore() {
    store.put(b("a"), v("1"));
    store.commit(Map.of(new TopicPartition("changelog", 0), 7L));
    assertEquals(List.of("a=1"), keys(store.all()), "offsets are not records");
    KeyValueIterator<Bytes, byte[]> open = store.all();
    assertTrue(open.hasNext());
    store.close();
    assertFalse(store.isOpen());
    assertThrows(InvalidStateStoreException.class, open::hasNext);
    assertThrows(InvalidStateStoreException.class, () -> store.get(b("a")));
    assertThrows(InvalidStateStoreException.class, () -> store.put(b("a"), v("2")));
    store.close(); // twice is harmless
    store = open("kv");
    assertEquals("1", str(store.get(b("a"))));
  }

  @Test
  void approximateNumEntriesCountsRecords() {
    assertEquals(0, store.approximateNumEntries());
    for (int i = 0; i < 100; i++) {
      store.put(b("k" + i), v("v"));
    }
    assertEquals(100, store.approximateNumEntries());
  }

  @Test
  void committedOffsetsSurviveReopenAndAreClearedByAnEmptyCommit() {
    TopicPartition tp = new TopicPartition("app-kv-changelog", 3);
    assertNull(store.committedOffset(tp));
    store.put(b("a"), v("1"));
    store.flush();
    store.commit(Map.of(tp, 42L));
    assertEquals(42L, store.committedOffset(tp));
    store.close();
    store = open("kv");
    assertEquals(42L, store.committedOffset(tp));
    assertEquals("1", str(store.get(b("a"))));
    store.commit(Map.of());
    assertNull(store.committedOffset(tp));
    store.close();
    store = open("kv");
    assertNull(store.committedOffset(tp));
  }

  @Test
  void restoresFromTheChangelogAfterItsDirectoryIsDeleted() throws Exception {
    store.put(b("a"), v("1"));
    store.put(b("b"), v("2"));
    store.close();
    deleteTree(new File(context.taskDir, "talus/kv").toPath());
    store = open("kv");
    assertNull(store.get(b("a")), "a deleted directory is an empty store");
    assertNull(store.committedOffset(new TopicPartition("c", 0)));
    // Kafka Streams replays the changelog through the callback the store registered.
    List<KeyValue<byte[], byte[]>> changelog = List.of(KeyValue.pair(v("a"), v("1")),
        KeyValue.pair(v("b"), v("2")), KeyValue.pair(v("c"), v("3")),
        KeyValue.pair(v("c"), null));
    ((BatchingStateRestoreCallback) context.restoreCallback).restoreAll(changelog);
    assertEquals(List.of("a=1", "b=2"), keys(store.all()));
  }

  @Test
  void answersKeyAndRangeQueries() {
    store.put(b("a"), v("1"));
    store.put(b("b"), v("2"));
    QueryResult<byte[]> one = store.query(KeyQuery.withKey(b("a")), PositionBound.unbounded(),
        new QueryConfig(false));
    assertTrue(one.isSuccess(), one.toString());
    assertEquals("1", str(one.getResult()));
    QueryResult<KeyValueIterator<Bytes, byte[]>> range =
        store.query(RangeQuery.withRange(b("a"), b("b")), PositionBound.unbounded(),
            new QueryConfig(false));
    assertTrue(range.isSuccess(), range.toString());
    assertEquals(List.of("a=1", "b=2"), keys(range.getResult()));
  }

  @Test
  void timestampedStoreConvertsAPlainStoreAndPlainRefusesTimestamped() {
    store.put(b("a"), v("1"));
    store.close();
    KeyValueStore<Bytes, byte[]> ts = TalusStores.persistentTimestampedKeyValueStore("kv").get();
    assertTrue(ts instanceof TimestampedBytesStore);
    ts.init(context, ts);
    byte[] converted = ts.get(b("a"));
    assertEquals(9, converted.length);
    assertEquals(-1L, java.nio.ByteBuffer.wrap(converted).getLong(), "timestamp unknown");
    assertEquals('1', converted[8]);
    ts.close();
    TalusKeyValueStore plain = (TalusKeyValueStore) TalusStores.persistentKeyValueStore("kv").get();
    ProcessorStateException e =
        assertThrows(ProcessorStateException.class, () -> plain.init(context, plain));
    assertTrue(e.getMessage().contains("timestamped"), e.getMessage());
    store = open("other");
  }

  @Test
  void refusesToStartEmptyOverARocksDbStoreOfTheSameName() throws Exception {
    Files.createDirectories(context.taskDir.toPath().resolve("rocksdb/old"));
    TalusKeyValueStore s = (TalusKeyValueStore) TalusStores.persistentKeyValueStore("old").get();
    ProcessorStateException e = assertThrows(ProcessorStateException.class, () -> s.init(context, s));
    assertTrue(e.getMessage().contains("cleanUp"), e.getMessage());
  }

  @Test
  void exactlyOnceEmptiesAStoreThatWasNotClosedCleanly() throws Exception {
    store.close();
    context.configs.put("processing.guarantee", "exactly_once_v2");
    TopicPartition tp = new TopicPartition("c", 0);
    store = open("eos");
    store.put(b("a"), v("1"));
    store.commit(Map.of(tp, 5L));
    store.close();
    store = open("eos");
    assertEquals(5L, store.committedOffset(tp), "a clean close keeps the store");
    store.put(b("b"), v("2"));
    // Simulate a crash: copy the files while the store is open (the marker is on disk since
    // open), then open the copy. The copy waits for background work and holds file deletions,
    // as a backup tool would, and skips a file that vanishes under it (copyTree).
    Path copy = dir.resolve("crashed");
    TalusDB db = store.database();
    db.waitForCompactions();
    db.disableFileDeletions();
    try {
      copyTree(new File(context.taskDir, "talus/eos").toPath(), copy.resolve("talus/eos"));
    } finally {
      db.enableFileDeletions(false);
    }
    Files.deleteIfExists(copy.resolve("talus/eos/LOCK"));
    TestContext crashed = new TestContext(copy.toFile(), new TaskId(0, 1));
    crashed.configs.putAll(context.configs);
    TalusKeyValueStore after = (TalusKeyValueStore) TalusStores.persistentKeyValueStore("eos").get();
    after.init(crashed, after);
    try {
      assertNull(after.committedOffset(tp));
      assertEquals(List.of(), keys(after.all()));
    } finally {
      after.close();
    }
  }

  static void deleteTree(Path p) throws Exception {
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  /**
   * Copies a live store's folder. A file that vanishes between the listing and its copy is
   * skipped: with file deletions held, the only files the engine still removes are the empty
   * next logs it makes ahead of a switch and discards when a switch made its own, which a
   * recovery would read as empty anyway (it once vanished mid-copy in CI).
   */
  static void copyTree(Path from, Path to) throws Exception {
    Files.createDirectories(to);
    try (java.nio.file.DirectoryStream<Path> s = Files.newDirectoryStream(from)) {
      for (Path f : s) {
        Path t = to.resolve(f.getFileName().toString());
        try {
          if (Files.isDirectory(f)) {
            copyTree(f, t);
          } else {
            Files.copy(f, t);
          }
        } catch (java.nio.file.NoSuchFileException gone) {
          // Vanished after the listing: see above.
        }
      }
    }
  }
}
