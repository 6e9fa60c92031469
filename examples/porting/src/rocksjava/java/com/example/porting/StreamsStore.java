package com.example.porting;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A state store as a stream processor keeps one: opened with {@link DBOptions} and column family
 * descriptors (a {@code keyValue} family and a {@code timestamps} family), written in batches with
 * the WAL off, made durable by an explicit flush of both families (as the processor does at a
 * commit), read by point lookups, multi-gets and range scans.
 */
public final class StreamsStore implements AutoCloseable {
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private final RocksDB db;
  private final WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
  private final FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true);

  /**
   * Opens (or creates) the store in {@code path}.
   *
   * @param path database directory
   * @throws RocksDBException on a database error
   */
  public StreamsStore(String path) throws RocksDBException {
    dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setMaxBackgroundJobs(2);
    BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockSize(4096)
        .setFilterPolicy(new BloomFilter(10));
    cfOptions = new ColumnFamilyOptions().setWriteBufferSize(16L << 20)
        .setMaxWriteBufferNumber(3).setCompressionType(CompressionType.LZ4_COMPRESSION)
        .setTableFormatConfig(table);
    List<ColumnFamilyDescriptor> descriptors = Arrays.asList(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
        new ColumnFamilyDescriptor("keyValue".getBytes(StandardCharsets.UTF_8), cfOptions),
        new ColumnFamilyDescriptor("timestamps".getBytes(StandardCharsets.UTF_8), cfOptions));
    db = RocksDB.open(dbOptions, path, descriptors, handles);
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Writes a batch of records (key, value, timestamp) to both families. */
  void putAll(List<String[]> records) throws RocksDBException {
    try (WriteBatch batch = new WriteBatch()) {
      for (String[] r : records) {
        if (r[1] == null) {
          batch.delete(handles.get(1), b(r[0]));
          batch.delete(handles.get(2), b(r[0]));
        } else {
          batch.put(handles.get(1), b(r[0]), b(r[1]));
          batch.put(handles.get(2), b(r[0]), b(r[2]));
        }
      }
      db.write(writeOptions, batch);
    }
  }

  /** Makes everything written durable: the WAL is off, so both families are flushed. */
  void commit() throws RocksDBException {
    db.flush(flushOptions, handles.subList(1, 3));
  }

  /** Values of {@code keys} in family keyValue (null when absent). */
  List<byte[]> getAll(List<String> keys) throws RocksDBException {
    List<ColumnFamilyHandle> cfs = new ArrayList<>();
    List<byte[]> ks = new ArrayList<>();
    for (String k : keys) {
      cfs.add(handles.get(1));
      ks.add(b(k));
    }
    return db.multiGetAsList(cfs, ks);
  }

  /** Keys in {@code [from, to)} of family keyValue. */
  List<String> range(String from, String to) {
    List<String> out = new ArrayList<>();
    try (RocksIterator it = db.newIterator(handles.get(1))) {
      for (it.seek(b(from)); it.isValid(); it.next()) {
        String k = new String(it.key(), StandardCharsets.UTF_8);
        if (k.compareTo(to) >= 0) {
          break;
        }
        out.add(k);
      }
    }
    return out;
  }

  /** The store's approximate entry count, as a processor reports it. */
  long approximateNumEntries() throws RocksDBException {
    return db.getLongProperty(handles.get(1), "rocksdb.estimate-num-keys");
  }

  @Override
  public void close() {
    for (ColumnFamilyHandle h : handles) {
      h.close();
    }
    db.close();
    writeOptions.close();
    flushOptions.close();
    dbOptions.close();
    cfOptions.close();
  }

  /**
   * Runs the store through writes, a commit, a reopen and reads.
   *
   * @param path database directory (created)
   * @throws RocksDBException on a database error
   */
  public static void run(String path) throws RocksDBException {
    try (StreamsStore s = new StreamsStore(path)) {
      List<String[]> records = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        records.add(new String[] {String.format("k%04d", i), "v" + i, Integer.toString(i)});
      }
      s.putAll(records);
      s.putAll(List.<String[]>of(new String[] {"k0500", null, null}));
      s.commit();
      Check.that(s.approximateNumEntries() > 0, "estimate-num-keys");
    }
    try (Options o = new Options()) {
      List<byte[]> names = RocksDB.listColumnFamilies(o, path);
      Check.that(names.size() == 3, "three families on disk, found " + names.size());
    }
    try (StreamsStore s = new StreamsStore(path)) {
      List<byte[]> got = s.getAll(List.of("k0001", "k0500", "k0999", "nope"));
      Check.equal("v1", got.get(0), "k0001");
      Check.equal(null, got.get(1), "k0500 deleted");
      Check.equal("v999", got.get(2), "k0999");
      Check.equal(null, got.get(3), "absent key");
      Check.that(s.range("k0498", "k0503").equals(List.of("k0498", "k0499", "k0501", "k0502")),
          "range " + s.range("k0498", "k0503"));
      Check.equal("999", s.db.get(s.handles.get(2), b("k0999")), "timestamp of k0999");
    }
  }

  /**
   * Runs the program.
   *
   * @param args the database directory
   * @throws RocksDBException on a database error
   */
  public static void main(String[] args) throws RocksDBException {
    run(args[0]);
    System.out.println("streams store: ok");
  }
}
