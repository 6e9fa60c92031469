package dev.talus;

/** Child process: tries to open the database in args[0]; prints the status code and exits. */
public final class LockChild {
  private LockChild() {}

  /** @param args the database folder */
  @SuppressWarnings("try") // db is opened only to take the lock
  public static void main(String[] args) {
    try (TalusDB db = TalusDB.open(new Options().setCreateIfMissing(true), args[0])) {
      System.out.println("opened");
    } catch (TalusException e) {
      System.out.println(e.getStatus().getCode() + ": " + e.getMessage());
    }
  }
}
