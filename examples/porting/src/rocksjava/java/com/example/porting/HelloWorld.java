package com.example.porting;

import java.nio.charset.StandardCharsets;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/** The first program of a RocksJava user: open, put, get, delete, iterate. */
public final class HelloWorld {
  static {
    RocksDB.loadLibrary();
  }

  private HelloWorld() {}

  /**
   * Runs the program on a database in {@code path} and checks what it reads.
   *
   * @param path database directory (created)
   * @throws RocksDBException on a database error
   */
  public static void run(String path) throws RocksDBException {
    byte[] key1 = "key1".getBytes(StandardCharsets.UTF_8);
    byte[] key2 = "key2".getBytes(StandardCharsets.UTF_8);
    try (Options options = new Options().setCreateIfMissing(true);
        RocksDB db = RocksDB.open(options, path)) {
      db.put(key1, "value".getBytes(StandardCharsets.UTF_8));
      byte[] value = db.get(key1);
      if (value != null) {
        db.put(key2, value);
      }
      db.delete(key1);
      Check.that(db.get(key1) == null, "key1 deleted");
      Check.equal("value", db.get(key2), "key2 copied from key1");
      int n = 0;
      try (RocksIterator it = db.newIterator()) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          Check.equal("key2", it.key(), "the only key");
          n++;
        }
        it.status();
      }
      Check.that(n == 1, "one key, found " + n);
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
    System.out.println("hello world: ok");
  }
}
