package dev.talus;

/**
 * Child process of {@link FlushTest}: writes {@link #KEYS} keys without sync, calls {@code
 * flushWal(true)}, then halts the JVM without closing the database.
 */
public final class FlushWalChild {
  static final int KEYS = 5000;
  static final int EXIT_AFTER_FLUSH_WAL = 42;

  private FlushWalChild() {}

  /**
   * @param args the database folder
   * @throws Exception on an unexpected failure (exit code 1)
   */
  public static void main(String[] args) throws Exception {
    Options o = new Options().setCreateIfMissing(true);
    TalusDB db = TalusDB.open(o, args[0]);
    try (WriteOptions wo = new WriteOptions()) {
      for (int i = 0; i < KEYS; i++) {
        db.put(wo, Lsm.b(Lsm.key(i)), Lsm.value("wal", i, 64));
      }
    }
    db.flushWal(true);
    System.out.println("flushed");
    System.out.flush();
    Runtime.getRuntime().halt(EXIT_AFTER_FLUSH_WAL);
  }
}
