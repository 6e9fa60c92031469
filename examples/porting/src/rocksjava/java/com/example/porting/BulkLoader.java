package com.example.porting;

import java.nio.charset.StandardCharsets;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A bulk loader: rows written in batches of 1000 with the WAL off, one flush at the end, then a
 * full compaction so reads find one sorted run; the load is checked by a scan and lookups.
 */
public final class BulkLoader {
  private BulkLoader() {}

  static final int ROWS = 50_000;
  static final int BATCH = 1000;

  private static byte[] key(int i) {
    return String.format("row%08d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    return ("payload-" + i + "-" + Integer.toHexString(i * 31)).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Loads {@link #ROWS} rows into a new database in {@code path} and checks them.
   *
   * @param path database directory (created)
   * @throws RocksDBException on a database error
   */
  public static void run(String path) throws RocksDBException {
    try (Options options = new Options().setCreateIfMissing(true)
            .setWriteBufferSize(1L << 20).setMaxWriteBufferNumber(4)
            .setLevel0FileNumCompactionTrigger(4)
            .setCompressionType(CompressionType.LZ4_COMPRESSION);
        WriteOptions noWal = new WriteOptions().setDisableWAL(true);
        FlushOptions flush = new FlushOptions().setWaitForFlush(true);
        RocksDB db = RocksDB.open(options, path)) {
      for (int start = 0; start < ROWS; start += BATCH) {
        try (WriteBatch batch = new WriteBatch()) {
          for (int i = start; i < Math.min(ROWS, start + BATCH); i++) {
            batch.put(key(i), value(i));
          }
          db.write(noWal, batch);
        }
      }
      db.flush(flush);
      db.compactRange();
      Check.that(db.getLongProperty("rocksdb.estimate-num-keys") > 0, "estimate-num-keys");
      String l0 = db.getProperty("rocksdb.num-files-at-level0");
      Check.that(l0 != null && !l0.isEmpty(), "num-files-at-level0: " + l0);
      int n = 0;
      try (RocksIterator it = db.newIterator()) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          n++;
        }
        it.status();
      }
      Check.that(n == ROWS, "rows scanned: " + n);
      for (int i = 0; i < ROWS; i += 997) {
        Check.equal(new String(value(i), StandardCharsets.UTF_8), db.get(key(i)), "row " + i);
      }
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
    System.out.println("bulk loader: ok");
  }
}
