package dev.talus;

/**
 * A column family of a database, as RocksJava's {@code ColumnFamilyHandle}. Talus has one
 * column family, {@code "default"}; {@link TalusDB#getDefaultColumnFamily()} returns a handle of
 * it, which the overloads taking a column family accept (as does {@code null}).
 *
 * <p>The handle owns no native memory. {@link #close()} closes this handle only, as in RocksJava:
 * it does not drop the column family or affect the database, and {@link
 * TalusDB#getDefaultColumnFamily()} returns a new open handle. A closed handle, or a handle of a
 * closed database, throws {@link IllegalStateException} from its methods and when passed to the
 * database.
 */
public final class ColumnFamilyHandle extends PlainCloseable {
  private final TalusDB db;

  ColumnFamilyHandle(TalusDB db) {
    this.db = db;
  }

  /**
   * @return the name, {@code "default"}
   * @throws IllegalStateException if this handle or its database is closed
   */
  public byte[] getName() {
    checkOpen();
    return TalusDB.DEFAULT_COLUMN_FAMILY.clone();
  }

  /**
   * @return the id, 0 for the default column family
   * @throws IllegalStateException if this handle or its database is closed
   */
  public int getID() {
    checkOpen();
    return 0;
  }

  TalusDB database() {
    return db;
  }

  /** Throws {@code IllegalStateException} once this handle or its database is closed. */
  @Override
  void checkOpen() {
    super.checkOpen();
    db.checkOpen();
  }

  /** Handles are equal when they name the same column family of the same database. */
  @Override
  public boolean equals(Object o) {
    return o instanceof ColumnFamilyHandle && ((ColumnFamilyHandle) o).db == db;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(db);
  }

  @Override
  public String toString() {
    return "ColumnFamilyHandle{default" + (isClosed() ? ", closed}" : "}");
  }

  /**
   * Checks a column family argument of {@code db}'s methods.
   *
   * @throws IllegalArgumentException if {@code cf} belongs to another database
   * @throws IllegalStateException if {@code cf} or its database is closed
   */
  static void check(TalusDB db, ColumnFamilyHandle cf) {
    if (cf == null) {
      return;
    }
    if (cf.db != db) {
      throw new IllegalArgumentException(
          "column family handle \"default\" belongs to another database");
    }
    cf.checkOpen();
  }
}
