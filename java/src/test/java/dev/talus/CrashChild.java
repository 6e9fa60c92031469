package dev.talus;

import java.nio.ByteBuffer;

/**
 * Child process of {@link TalusDBDurabilityTest}: writes keys 0, 1, 2, ... with {@code
 * sync=true} and prints each key number on stdout once its put returned, until it is killed.
 */
public final class CrashChild {
  private CrashChild() {}

  /**
   * @param args the database folder
   * @throws Exception on an unexpected failure (exit code 1)
   */
  public static void main(String[] args) throws Exception {
    try (Options o = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(o, args[0]);
        WriteOptions sync = new WriteOptions().setSync(true)) {
      System.out.println("ready");
      System.out.flush();
      for (long i = 0; ; i++) {
        byte[] k = ByteBuffer.allocate(8).putLong(i).array();
        db.put(sync, k, ("value-" + i).getBytes());
        System.out.println(i);
        System.out.flush();
      }
    }
  }
}
