package dev.talus.kafka;

import dev.talus.BlockBasedTableConfig;
import dev.talus.BloomFilter;
import dev.talus.CompressionType;
import dev.talus.FlushOptions;
import dev.talus.InfoLogLevel;
import dev.talus.LRUCache;
import dev.talus.Options;
import dev.talus.ReadOptions;
import dev.talus.TalusDB;
import dev.talus.TalusException;
import dev.talus.TalusIterator;
import dev.talus.WriteBatch;
import dev.talus.WriteOptions;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

/**
 * A Kafka Streams persistent key-value store kept in one Talus database; made by {@link
 * TalusStores}. Implements the whole {@code KeyValueStore<Bytes, byte[]>} contract: null range
 * bounds mean unbounded, an inverted range is empty, iterators still open are closed with the
 * store, and every call after {@link #close()} throws {@link InvalidStateStoreException}.
 *
 * <p>Thread-safety: as Kafka Streams' RocksDB store, every method is synchronized; the stream
 * thread writes while interactive queries read from other threads.
 *
 * <h2>The database's contents (part of the on-disk format of a store)</h2>
 *
 * Talus has one column family, so the store divides its key space with a first byte:
 *
 * <pre>
 *   0x01 ‖ key                 a record of the store; the value as Kafka Streams handed it over
 *   0x00 'o' ‖ topic-partition committed changelog offset, 8 bytes big-endian
 *   0x00 'p'                   interactive-query position: "topic partition offset" lines
 *   0x00 'f'                   value format: "plain" or "timestamped"
 * </pre>
 *
 * The store manages its changelog offsets ({@link #managesOffsets()} is true), as Kafka Streams'
 * RocksDB store does: {@link #commit(Map)} writes the offsets in the same database as the
 * records, without the write-ahead log (at most once a second, and at close). A crash loses records and offsets of the memtables not
 * yet flushed together (memtables flush in sequence order, and each flush is atomic), so the
 * offsets found at the next open never claim records the store lost; Kafka Streams restores
 * from them. Under {@code exactly_once_v2} the store may also hold writes of a transaction that
 * was aborted by the crash, so there the store is only trusted after a clean close: opening
 * after an unclean one (a marker key {@code 0x00 'u'} is present from open to close) empties it
 * and drops the offsets, and Kafka Streams rebuilds it from the changelog.
 */
public class TalusKeyValueStore implements KeyValueStore<Bytes, byte[]> {
  static final byte DATA = 0x01;
  static final byte META = 0x00;
  private static final byte[] DATA_END = {DATA + 1};
  private static final byte[] OFFSETS_BEGIN = {META, 'o'};
  private static final byte[] OFFSETS_END = {META, 'o' + 1};
  private static final byte[] POSITION_KEY = {META, 'p'};
  private static final byte[] FORMAT_KEY = {META, 'f'};
  /** Present while the store is open: found at open, the last close was not clean. */
  private static final byte[] OPEN_MARKER_KEY = {META, 'u'};
  /** Meta entries always present while open: the format and the open marker. */
  private static final int FIXED_META_KEYS = 2;

  /** Kafka Streams' RocksDB defaults this store copies (see {@link TalusStores}). */
  static final long BLOCK_CACHE_SIZE = 50L << 20;
  static final long BLOCK_SIZE = 4096;
  static final long WRITE_BUFFER_SIZE = 16L << 20;
  static final int MAX_WRITE_BUFFERS = 3;
  /** Least time between two writes of the offsets by {@link #commit(Map)}: one second. */
  static final long META_WRITE_INTERVAL_NANOS = 1_000_000_000L;
  /** The folder of the task directory holding Talus stores. */
  static final String DB_FILE_DIR = "talus";

  private final String name;
  private final boolean timestamped;
  private final Set<StoreIterator> openIterators = ConcurrentHashMap.newKeySet();
  private final Map<TopicPartition, Long> committedOffsets = new HashMap<>();
  /** The partitions whose offsets the database holds. */
  private final Set<TopicPartition> offsetsOnDisk = new java.util.HashSet<>();

  private StateStoreContext context;
  private File dbDir;
  private Options options;
  private LRUCache defaultCache;
  private TalusConfigSetter configSetter;
  private WriteOptions writeOptions;
  private TalusDB db;
  private WriteBufferBudget.Account budget;
  private Position position = Position.emptyPosition();
  /** Commits since the offsets were last written to the database. */
  private boolean metaPending;
  private long lastMetaWriteNanos = System.nanoTime() - META_WRITE_INTERVAL_NANOS;
  /** Whether the database holds a position entry (it counts in the key estimate). */
  private boolean positionStored;
  private volatile boolean open;

  /**
   * A store of plain values; use {@link TalusStores} rather than this constructor.
   *
   * @param name the store name
   */
  public TalusKeyValueStore(String name) {
    this(name, false);
  }

  TalusKeyValueStore(String name, boolean timestamped) {
    this.name = Objects.requireNonNull(name, "name");
    this.timestamped = timestamped;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public synchronized void init(StateStoreContext context, StateStore root) {
    this.context = context;
    dbDir = new File(new File(context.stateDir(), DB_FILE_DIR), name);
    File rocksDir = new File(new File(context.stateDir(), "rocksdb"), name);
    if (!dbDir.exists() && rocksDir.exists()) {
      // The task's offsets describe the RocksDB store; an empty Talus store started from them
      // would silently miss every record before them.
      throw new ProcessorStateException("Store " + name + " of task " + context.taskId()
          + " is kept in RocksDB at " + rocksDir + "; to move it to Talus, remove the local"
          + " state first (KafkaStreams.cleanUp() before start) so that it is rebuilt from its"
          + " changelog");
    }
    try {
      Files.createDirectories(dbDir.getParentFile().toPath());
    } catch (IOException e) {
      throw new ProcessorStateException("Error creating the directory of store " + name, e);
    }
    openDatabase();
    open = true;
    context.register(root, (BatchingStateRestoreCallback) this::restoreAll);
  }

  /**
   * Opens the database with the defaults and the config setter's changes, checks the value
   * format, and reads the committed offsets and position.
   */
  private void openDatabase() {
    Map<String, Object> configs = context.appConfigs();
    options = new Options();
    defaultCache = new LRUCache(BLOCK_CACHE_SIZE);
    BlockBasedTableConfig table = new BlockBasedTableConfig();
    table.setBlockCache(defaultCache);
    table.setBlockSize(BLOCK_SIZE);
    table.setFilterPolicy(new BloomFilter());
    options.setTableFormatConfig(table);
    options.setWriteBufferSize(WRITE_BUFFER_SIZE);
    options.setMaxWriteBufferNumber(MAX_WRITE_BUFFERS);
    options.setCompressionType(CompressionType.NO_COMPRESSION);
    options.setCreateIfMissing(true);
    options.setErrorIfExists(false);
    options.setInfoLogLevel(InfoLogLevel.ERROR_LEVEL);
    options.setMaxBackgroundJobs(Math.max(Runtime.getRuntime().availableProcessors(), 2));
    configSetter = newConfigSetter(configs.get(TalusStores.CONFIG_SETTER_CLASS_CONFIG));
    if (configSetter != null) {
      configSetter.setConfig(name, options, configs);
    }
    // Writes skip the WAL: the changelog topic is the log (see the class comment).
    writeOptions = new WriteOptions().setDisableWAL(true);
    boolean exactlyOnce =
        StreamsConfig.EXACTLY_ONCE_V2.equals(configs.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
    try {
      db = TalusDB.open(options, dbDir.getAbsolutePath());
      checkFormat();
      boolean unclean = db.get(OPEN_MARKER_KEY) != null;
      if (exactlyOnce && unclean) {
        // Records of an aborted transaction may be in the store: empty it and forget the
        // offsets, so that Kafka Streams rebuilds it from the start of the changelog.
        try (WriteBatch batch = new WriteBatch()) {
          batch.deleteRange(new byte[] {DATA}, DATA_END);
          batch.deleteRange(OFFSETS_BEGIN, OFFSETS_END);
          batch.delete(POSITION_KEY);
          db.write(writeOptions, batch);
        }
      }
      readOffsetsAndPosition();
      // The marker must be on disk before any write of this session can be: one flush at open.
      db.put(writeOptions, OPEN_MARKER_KEY, new byte[0]);
      try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
        db.flush(flush);
      }
      WriteBufferBudget shared =
          configSetter == null ? null : configSetter.writeBufferBudget(name, configs);
      if (shared != null) {
        budget = shared.register(name, db);
      }
    } catch (ProcessorStateException e) {
      closeNativeResources();
      throw e;
    } catch (TalusException | RuntimeException e) {
      closeNativeResources();
      throw new ProcessorStateException("Error opening store " + name + " at location " + dbDir,
          e);
    }
  }

  private static TalusConfigSetter newConfigSetter(Object configured) {
    if (configured == null) {
      return null;
    }
    try {
      Class<?> type = configured instanceof Class<?> c ? c : Class.forName(configured.toString(),
          true, Thread.currentThread().getContextClassLoader() != null
              ? Thread.currentThread().getContextClassLoader()
              : TalusKeyValueStore.class.getClassLoader());
      Object setter = type.getDeclaredConstructor().newInstance();
      if (!(setter instanceof TalusConfigSetter s)) {
        throw new ProcessorStateException(TalusStores.CONFIG_SETTER_CLASS_CONFIG + ": "
            + type.getName() + " does not implement " + TalusConfigSetter.class.getName());
      }
      return s;
    } catch (ReflectiveOperationException e) {
      throw new ProcessorStateException(TalusStores.CONFIG_SETTER_CLASS_CONFIG + ": cannot make "
          + configured + " (a public class with a public no-argument constructor is needed)", e);
    }
  }

  /**
   * Records the value format in a new store, converts a plain store opened as timestamped, and
   * refuses a timestamped store opened as plain (its values would carry 8 stray bytes).
   */
  private void checkFormat() throws TalusException {
    byte[] want = (timestamped ? "timestamped" : "plain").getBytes(StandardCharsets.US_ASCII);
    byte[] have = db.get(FORMAT_KEY);
    if (Arrays.equals(have, want)) {
      return;
    }
    boolean empty;
    try (ReadOptions ro = new ReadOptions().setIterateLowerBound(new byte[] {DATA})
            .setIterateUpperBound(DATA_END);
        TalusIterator it = db.newIterator(ro)) {
      it.seekToFirst();
      empty = !it.isValid();
      it.status();
    }
    if (have != null && !empty) {
      if (!timestamped) {
        throw new ProcessorStateException("Store " + name + " at " + dbDir + " holds timestamped"
            + " values; open it with TalusStores.persistentTimestampedKeyValueStore");
      }
      convertToTimestamped();
    } else if (have == null && !empty && timestamped) {
      convertToTimestamped();
    }
    db.put(writeOptions, FORMAT_KEY, want);
  }

  /** Prefixes every value with timestamp -1 (unknown), in batches. */
  private void convertToTimestamped() throws TalusException {
    try (ReadOptions ro = new ReadOptions().setIterateLowerBound(new byte[] {DATA})
            .setIterateUpperBound(DATA_END);
        TalusIterator it = db.newIterator(ro);
        WriteBatch batch = new WriteBatch()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        batch.put(it.key(), TimestampedFormat.withUnknownTimestamp(it.value()));
        if (batch.count() >= 10_000) {
          db.write(writeOptions, batch);
          batch.clear();
        }
      }
      it.status();
      db.write(writeOptions, batch);
    }
  }

  private void readOffsetsAndPosition() throws TalusException {
    committedOffsets.clear();
    try (ReadOptions ro = new ReadOptions().setIterateLowerBound(OFFSETS_BEGIN)
            .setIterateUpperBound(OFFSETS_END);
        TalusIterator it = db.newIterator(ro)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        byte[] k = it.key();
        String tp = new String(k, 2, k.length - 2, StandardCharsets.UTF_8);
        int dash = tp.lastIndexOf('-');
        committedOffsets.put(new TopicPartition(tp.substring(0, dash),
            Integer.parseInt(tp.substring(dash + 1))), ByteBuffer.wrap(it.value()).getLong());
      }
      offsetsOnDisk.clear();
      offsetsOnDisk.addAll(committedOffsets.keySet());
      it.status();
    }
    byte[] storedPosition = db.get(POSITION_KEY);
    positionStored = storedPosition != null;
    position = decodePosition(storedPosition);
  }

  private static Position decodePosition(byte[] encoded) {
    Position p = Position.emptyPosition();
    if (encoded == null) {
      return p;
    }
    for (String line : new String(encoded, StandardCharsets.UTF_8).split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      int a = line.lastIndexOf(' ');
      int b = line.lastIndexOf(' ', a - 1);
      p.withComponent(line.substring(0, b), Integer.parseInt(line.substring(b + 1, a)),
          Long.parseLong(line.substring(a + 1)));
    }
    return p;
  }

  private static byte[] encodePosition(Position p) {
    StringBuilder b = new StringBuilder();
    for (String topic : p.getTopics()) {
      for (Map.Entry<Integer, Long> e : p.getPartitionPositions(topic).entrySet()) {
        b.append(topic).append(' ').append(e.getKey()).append(' ').append(e.getValue())
            .append('\n');
      }
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Changelog records (a null value deletes), one write batch per call. */
  private synchronized void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
    validateStoreOpen();
    try (WriteBatch batch = new WriteBatch()) {
      for (KeyValue<byte[], byte[]> r : records) {
        if (r.value == null) {
          batch.delete(dataKey(r.key));
        } else {
          batch.put(dataKey(r.key), r.value);
        }
      }
      db.write(writeOptions, batch);
      charge(batch.getDataSize());
    } catch (TalusException e) {
      throw new ProcessorStateException("Error restoring batch to store " + name, e);
    }
  }

  /** Counts bytes written against the shared write-buffer budget, if any. */
  private void charge(long bytes) throws TalusException {
    if (budget != null) {
      budget.wrote(bytes);
    }
  }

  static byte[] dataKey(byte[] key) {
    byte[] k = new byte[key.length + 1];
    k[0] = DATA;
    System.arraycopy(key, 0, k, 1, key.length);
    return k;
  }

  /** The exclusive upper bound just past {@code key} (its successor {@code key ‖ 0x00}). */
  private static byte[] dataKeyAfter(byte[] key) {
    byte[] k = new byte[key.length + 2];
    k[0] = DATA;
    System.arraycopy(key, 0, k, 1, key.length);
    return k;
  }

  private static Bytes userKey(byte[] stored) {
    return Bytes.wrap(Arrays.copyOfRange(stored, 1, stored.length));
  }

  private void validateStoreOpen() {
    if (!open) {
      throw new InvalidStateStoreException("Store " + name + " is currently closed");
    }
  }

  @Override
  public synchronized void put(Bytes key, byte[] value) {
    Objects.requireNonNull(key, "key cannot be null");
    validateStoreOpen();
    try {
      if (value == null) {
        db.delete(writeOptions, dataKey(key.get()));
      } else {
        db.put(writeOptions, dataKey(key.get()), value);
      }
      charge(key.get().length + 1 + (value == null ? 0 : value.length));
    } catch (TalusException e) {
      throw new ProcessorStateException("Error while putting key " + key + " into store " + name,
          e);
    }
    StoreQueryUtils.updatePosition(position, context);
  }

  @Override
  public synchronized byte[] putIfAbsent(Bytes key, byte[] value) {
    Objects.requireNonNull(key, "key cannot be null");
    byte[] old = get(key);
    if (old == null) {
      put(key, value);
    }
    return old;
  }

  /** Writes all entries as one {@link WriteBatch}: all of them or none. */
  @Override
  public synchronized void putAll(List<KeyValue<Bytes, byte[]>> entries) {
    validateStoreOpen();
    try (WriteBatch batch = new WriteBatch()) {
      for (KeyValue<Bytes, byte[]> e : entries) {
        Objects.requireNonNull(e.key, "key cannot be null");
        if (e.value == null) {
          batch.delete(dataKey(e.key.get()));
        } else {
          batch.put(dataKey(e.key.get()), e.value);
        }
      }
      db.write(writeOptions, batch);
      charge(batch.getDataSize());
    } catch (TalusException e) {
      throw new ProcessorStateException("Error while batch writing to store " + name, e);
    }
    StoreQueryUtils.updatePosition(position, context);
  }

  @Override
  public synchronized byte[] delete(Bytes key) {
    Objects.requireNonNull(key, "key cannot be null");
    byte[] old = get(key);
    put(key, null);
    return old;
  }

  @Override
  public synchronized byte[] get(Bytes key) {
    Objects.requireNonNull(key, "key cannot be null");
    validateStoreOpen();
    try {
      return db.get(dataKey(key.get()));
    } catch (TalusException e) {
      throw new ProcessorStateException("Error while getting value for key from store " + name,
          e);
    }
  }

  @Override
  public synchronized KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
    return range(from, to, true);
  }

  @Override
  public synchronized KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
    return range(from, to, false);
  }

  private KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to, boolean forward) {
    validateStoreOpen();
    if (from != null && to != null && from.compareTo(to) > 0) {
      // Kafka Streams' stores answer an inverted range with nothing (and a warning).
      return openIterator(new byte[] {DATA}, new byte[] {DATA}, forward);
    }
    byte[] lower = from == null ? new byte[] {DATA} : dataKey(from.get());
    byte[] upper = to == null ? DATA_END : dataKeyAfter(to.get());
    return openIterator(lower, upper, forward);
  }

  @Override
  public synchronized KeyValueIterator<Bytes, byte[]> all() {
    validateStoreOpen();
    return openIterator(new byte[] {DATA}, DATA_END, true);
  }

  @Override
  public synchronized KeyValueIterator<Bytes, byte[]> reverseAll() {
    validateStoreOpen();
    return openIterator(new byte[] {DATA}, DATA_END, false);
  }

  @Override
  public synchronized <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(
      P prefix, PS prefixKeySerializer) {
    Objects.requireNonNull(prefix, "prefix cannot be null");
    Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
    validateStoreOpen();
    byte[] p = prefixKeySerializer.serialize(null, prefix);
    byte[] lower = dataKey(p);
    byte[] upper = prefixEnd(lower);
    return openIterator(lower, upper, true);
  }

  /** The least key greater than every key starting with {@code prefix} (prefix ≥ 1 byte, DATA). */
  private static byte[] prefixEnd(byte[] prefix) {
    int i = prefix.length - 1;
    while (i >= 0 && prefix[i] == (byte) 0xff) {
      i--;
    }
    // i >= 0: prefix[0] is DATA, never 0xff.
    byte[] end = Arrays.copyOf(prefix, i + 1);
    end[i]++;
    return end;
  }

  private KeyValueIterator<Bytes, byte[]> openIterator(byte[] lower, byte[] upper,
      boolean forward) {
    ReadOptions ro = new ReadOptions().setIterateLowerBound(lower).setIterateUpperBound(upper);
    StoreIterator it = new StoreIterator(ro, db.newIterator(ro), forward);
    openIterators.add(it);
    return it;
  }

  /**
   * From the engine's key estimate ({@code rocksdb.estimate-num-keys}) less the store's own
   * entries; like RocksDB's, it counts overwritten and deleted keys until compaction drops them.
   */
  @Override
  public synchronized long approximateNumEntries() {
    validateStoreOpen();
    try {
      long meta = FIXED_META_KEYS + offsetsOnDisk.size() + (positionStored ? 1 : 0);
      return Math.max(0, db.getLongProperty("rocksdb.estimate-num-keys") - meta);
    } catch (TalusException e) {
      throw new ProcessorStateException("Error fetching property from store " + name, e);
    }
  }

  /**
   * Nothing to do: the store manages its offsets, and {@link #commit(Map)} is what Kafka Streams
   * calls at each commit. Records reach table files when memtables fill and at close.
   */
  @Override
  public void flush() {}

  /** @return true: {@link #commit(Map)} stores the changelog offsets with the records */
  @Override
  public boolean managesOffsets() {
    return true;
  }

  /**
   * Records the changelog offsets (an empty map clears them) and writes them, with the query
   * position, to the database: at once when they are cleared, at close, and otherwise at most
   * once per {@link #META_WRITE_INTERVAL_NANOS}. Offsets on disk that lag the records are safe:
   * restoring a key-value store from an older offset replays upserts that end in the same state;
   * only offsets ahead of the records would lose data, and the class comment explains why a
   * crash cannot leave those. Writing them at every commit would, under Kafka Streams' test
   * driver (which commits after each record), add two entries per record to the memtable.
   */
  @Override
  public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
    validateStoreOpen();
    if (changelogOffsets.isEmpty()) {
      committedOffsets.clear();
    } else {
      for (Map.Entry<TopicPartition, Long> e : changelogOffsets.entrySet()) {
        if (e.getValue() == null) {
          committedOffsets.remove(e.getKey());
        } else {
          committedOffsets.put(e.getKey(), e.getValue());
        }
      }
    }
    metaPending = true;
    if (changelogOffsets.isEmpty()
        || System.nanoTime() - lastMetaWriteNanos >= META_WRITE_INTERVAL_NANOS) {
      writeMeta();
    }
  }

  /** Replaces the offsets on disk by {@link #committedOffsets} and writes the position. */
  private void writeMeta() {
    try (WriteBatch batch = new WriteBatch()) {
      // Single deletes and puts, no range deletion: the key estimate counts a deletion as
      // removing keys, which would throw approximateNumEntries off.
      for (TopicPartition gone : offsetsOnDisk) {
        if (!committedOffsets.containsKey(gone)) {
          batch.delete(offsetKey(gone));
        }
      }
      for (Map.Entry<TopicPartition, Long> e : committedOffsets.entrySet()) {
        batch.put(offsetKey(e.getKey()), ByteBuffer.allocate(8).putLong(e.getValue()).array());
      }
      batch.put(POSITION_KEY, encodePosition(position));
      db.write(writeOptions, batch);
      positionStored = true;
      offsetsOnDisk.clear();
      offsetsOnDisk.addAll(committedOffsets.keySet());
      metaPending = false;
      lastMetaWriteNanos = System.nanoTime();
    } catch (TalusException e) {
      throw new ProcessorStateException("Error committing offsets of store " + name, e);
    }
  }

  private static byte[] offsetKey(TopicPartition tp) {
    byte[] s = tp.toString().getBytes(StandardCharsets.UTF_8);
    byte[] k = new byte[s.length + 2];
    k[0] = META;
    k[1] = 'o';
    System.arraycopy(s, 0, k, 2, s.length);
    return k;
  }

  @Override
  public synchronized Long committedOffset(TopicPartition partition) {
    validateStoreOpen();
    return committedOffsets.get(partition);
  }

  @Override
  public synchronized void close() {
    if (!open) {
      return;
    }
    open = false;
    for (StoreIterator it : openIterators.toArray(new StoreIterator[0])) {
      it.close();
    }
    openIterators.clear();
    if (budget != null) {
      budget.close();
      budget = null;
    }
    try {
      if (metaPending) {
        writeMeta();
      }
      // Clean close: the marker goes with the final flush of close (writes without the WAL are
      // flushed there).
      db.delete(writeOptions, OPEN_MARKER_KEY);
      db.closeE();
    } catch (TalusException e) {
      throw new ProcessorStateException("Error closing store " + name, e);
    } finally {
      closeNativeResources();
    }
  }

  private void closeNativeResources() {
    if (budget != null) {
      budget.close();
      budget = null;
    }
    if (db != null) {
      db.close();
      db = null;
    }
    if (configSetter != null) {
      configSetter.close(name, options);
      configSetter = null;
    }
    if (writeOptions != null) {
      writeOptions.close();
      writeOptions = null;
    }
    if (defaultCache != null) {
      defaultCache.close();
      defaultCache = null;
    }
    if (options != null) {
      options.close();
      options = null;
    }
  }

  @Override
  public boolean persistent() {
    return true;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  /** Answers {@code KeyQuery} and {@code RangeQuery} (as Kafka Streams' own stores do). */
  @Override
  public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound,
      QueryConfig config) {
    return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, position,
        context);
  }

  @Override
  public Position getPosition() {
    return position;
  }

  /**
   * The database directory of this store, for tests and tools.
   *
   * @return the directory, or null before {@code init}
   */
  public synchronized File dbDir() {
    return dbDir;
  }

  /**
   * The open database, for metrics (e.g. a {@code TalusMeterBinder}) and tools; do not close it.
   *
   * @return the database
   * @throws InvalidStateStoreException if the store is closed
   */
  public synchronized TalusDB database() {
    validateStoreOpen();
    return db;
  }

  /** An iterator over a key range of the store, closed with it. */
  private final class StoreIterator implements KeyValueIterator<Bytes, byte[]> {
    private final ReadOptions readOptions;
    private final TalusIterator it;
    private final boolean forward;
    private KeyValue<Bytes, byte[]> next;
    private boolean closed;

    StoreIterator(ReadOptions readOptions, TalusIterator it, boolean forward) {
      this.readOptions = readOptions;
      this.it = it;
      this.forward = forward;
      if (forward) {
        it.seekToFirst();
      } else {
        it.seekToLast();
      }
    }

    @Override
    public synchronized boolean hasNext() {
      if (closed) {
        throw new InvalidStateStoreException("Iterator of store " + name + " has closed");
      }
      if (next != null) {
        return true;
      }
      if (!it.isValid()) {
        try {
          it.status();
        } catch (TalusException e) {
          throw new ProcessorStateException("Error iterating store " + name, e);
        }
        return false;
      }
      next = KeyValue.pair(userKey(it.key()), it.value());
      if (forward) {
        it.next();
      } else {
        it.prev();
      }
      return true;
    }

    @Override
    public synchronized KeyValue<Bytes, byte[]> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      KeyValue<Bytes, byte[]> r = next;
      next = null;
      return r;
    }

    @Override
    public synchronized Bytes peekNextKey() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return next.key;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      openIterators.remove(this);
      it.close();
      readOptions.close();
    }
  }
}
