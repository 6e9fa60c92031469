package dev.talus;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A column family of a database, as RocksJava's {@code ColumnFamilyHandle}. Talus has one
 * column family, {@code "default"}; {@link TalusDB#getDefaultColumnFamily()} returns its handle,
 * which the overloads taking a column family accept (as does {@code null}). The handle owns no
 * native memory: closing it does nothing, as RocksJava's default handle does.
 */
public final class ColumnFamilyHandle implements AutoCloseable {
  private final TalusDB db;

  ColumnFamilyHandle(TalusDB db) {
    this.db = db;
  }

  /** @return the name, {@code "default"} */
  public byte[] getName() {
    return TalusDB.DEFAULT_COLUMN_FAMILY.clone();
  }

  /** @return the id, 0 for the default column family */
  public int getID() {
    return 0;
  }

  TalusDB database() {
    return db;
  }

  /** The default column family's handle is owned by the database: nothing to free. */
  @Override
  public void close() {}

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
    return "ColumnFamilyHandle{" + new String(getName(), StandardCharsets.UTF_8) + "}";
  }

  static void check(TalusDB db, ColumnFamilyHandle cf) {
    if (cf != null && cf.db != db) {
      throw new IllegalArgumentException(
          "column family handle " + Arrays.toString(cf.getName()) + " belongs to another database");
    }
  }
}
