package dev.talus.examples.quickstart;

import dev.talus.Options;
import dev.talus.TalusDB;
import dev.talus.TalusException;
import dev.talus.TalusIterator;
import dev.talus.WriteOptions;
import java.nio.charset.StandardCharsets;

/**
 * The smallest Talus program: open (or create) a database, write, read, iterate, close. Run it
 * with {@code ./gradlew :examples:quickstart:run}; the database lives in {@code
 * build/quickstart-db} unless a path is given as the first argument.
 */
public final class Main {
  private Main() {}

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return b == null ? "null" : new String(b, StandardCharsets.UTF_8);
  }

  /**
   * Entry point.
   *
   * @param args optional database directory
   * @throws TalusException if the database cannot be opened or written
   */
  public static void main(final String[] args) throws TalusException {
    String path = args.length > 0 ? args[0] : "build/quickstart-db";
    try (Options options = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(options, path);
        WriteOptions sync = new WriteOptions().setSync(true)) {
      db.put(b("greeting"), b("hello"));
      db.put(sync, b("planet"), b("talus")); // acknowledged only once on disk
      db.put(b("counter"), b("1"));
      db.delete(b("counter"));
      System.out.println("greeting = " + s(db.get(b("greeting"))));
      System.out.println("counter  = " + s(db.get(b("counter"))) + " (deleted)");
      try (TalusIterator it = db.newIterator()) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          System.out.println("  " + s(it.key()) + " -> " + s(it.value()));
        }
      }
      System.out.println("database at " + db.getName() + ", level 0 files: "
          + db.getProperty("rocksdb.num-files-at-level0"));
    }
  }
}
