package com.example.consumer;

import dev.talus.NativeLibrary;
import dev.talus.Options;
import dev.talus.TalusDB;
import dev.talus.TalusException;
import dev.talus.TalusIterator;
import java.nio.charset.StandardCharsets;

/**
 * A service's first use of Talus, from the published artifact: open a database, write three
 * entries, reopen it and read them back. Prints what it did; exits with status 1 when a value
 * read back is not the one written, so a build that runs it fails.
 */
public final class Main {
  private Main() {}

  /**
   * Entry point.
   *
   * @param args the database directory (created if missing)
   * @throws TalusException if the database cannot be opened, written or read
   */
  public static void main(final String[] args) throws TalusException {
    if (args.length != 1) {
      System.err.println("usage: Main DATABASE_DIR");
      System.exit(2);
    }
    final String path = args[0];
    try (Options options = new Options().setCreateIfMissing(true)) {
      try (TalusDB db = TalusDB.open(options, path)) {
        for (int i = 1; i <= 3; i++) {
          db.put(bytes("order-" + i), bytes("paid " + i));
        }
      }
      // Reopened: what is read back went through the write-ahead log.
      int found = 0;
      try (TalusDB db = TalusDB.open(options, path);
          TalusIterator it = db.newIterator()) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          final String key = string(it.key());
          final String value = string(it.value());
          final String want = "paid " + key.substring("order-".length());
          if (!value.equals(want)) {
            System.err.println("consumer: " + key + " reads '" + value + "', wrote '" + want + "'");
            System.exit(1);
          }
          found++;
        }
      }
      if (found != 3) {
        System.err.println("consumer: read back " + found + " entries, wrote 3");
        System.exit(1);
      }
    }
    System.out.println("consumer: wrote and read back 3 entries in " + path
        + " with Talus " + TalusDB.class.getPackage().getImplementationVersion()
        + " (native library " + NativeLibrary.version() + ")");
  }

  private static byte[] bytes(final String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String string(final byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
