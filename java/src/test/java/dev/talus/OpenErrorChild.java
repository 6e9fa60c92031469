package dev.talus;

/**
 * Main class of the child JVM started by {@link TalusDBMisuseTest} to open a database as another
 * (non-root) user: opens {@code args[0]} without {@code createIfMissing} and prints {@code
 * code=...} and {@code message=...} lines ({@code code=OK} when it opened).
 */
public final class OpenErrorChild {
  private OpenErrorChild() {}

  /**
   * @param args the database folder
   */
  @SuppressWarnings("try") // opened only to see whether it opens
  public static void main(final String[] args) {
    try (Options o = new Options().setCreateIfMissing(false);
        TalusDB db = TalusDB.open(o, args[0])) {
      System.out.println("code=OK");
    } catch (TalusException e) {
      System.out.println("code=" + e.getStatus().getCode());
      System.out.println("message=" + e.getMessage().replace('\n', ' '));
    }
  }
}
