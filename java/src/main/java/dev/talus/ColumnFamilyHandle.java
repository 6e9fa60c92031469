package dev.talus;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A column family of an open database, as RocksJava's {@code ColumnFamilyHandle}: returned by
 * {@link TalusDB#open(DBOptions, String, java.util.List, java.util.List)}, {@link
 * TalusDB#createColumnFamily(ColumnFamilyDescriptor)} and {@link
 * TalusDB#getDefaultColumnFamily()}, and passed to the overloads of {@link TalusDB} and {@link
 * WriteBatch} that take one.
 *
 * <p>The handle owns no native memory. {@link #close()} closes this handle only, as in RocksJava:
 * it does not drop the column family. A closed handle, or a handle of a closed database, throws
 * {@link IllegalStateException} from its methods and when passed to the database. After {@link
 * TalusDB#dropColumnFamily(ColumnFamilyHandle)} the family's handles throw {@link
 * TalusException} ({@code InvalidArgument}, naming the family) from every database call; their
 * {@link #getName()} and {@link #getID()} still answer.
 */
public final class ColumnFamilyHandle extends PlainCloseable {
  private final TalusDB db;
  private final int id;
  private final byte[] name;

  ColumnFamilyHandle(TalusDB db) {
    this(db, 0, TalusDB.DEFAULT_COLUMN_FAMILY);
  }

  ColumnFamilyHandle(TalusDB db, int id, byte[] name) {
    this.db = db;
    this.id = id;
    this.name = name.clone();
  }

  /**
   * @return the family's name ({@code "default"} for the default family), a copy
   * @throws IllegalStateException if this handle or its database is closed
   */
  public byte[] getName() {
    checkOpen();
    return name.clone();
  }

  /**
   * @return the family's id: 0 for the default family, unique among the database's families
   *     (ids of dropped families are never reused)
   * @throws IllegalStateException if this handle or its database is closed
   */
  public int getID() {
    checkOpen();
    return id;
  }

  /** @return whether this is the default family's handle */
  boolean isDefault() {
    return id == 0;
  }

  /** The id, for a database call or a batch record; checks liveness. */
  int idForBatch() {
    checkOpen();
    return id;
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
    return o instanceof ColumnFamilyHandle
        && ((ColumnFamilyHandle) o).db == db
        && ((ColumnFamilyHandle) o).id == id;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(db) * 31 + id;
  }

  @Override
  public String toString() {
    return "ColumnFamilyHandle{" + new String(name, StandardCharsets.UTF_8) + ", id " + id
        + (isClosed() ? ", closed}" : "}");
  }

  /**
   * Checks a column family argument of {@code db}'s methods.
   *
   * @return the family's id (0 for null, the default family)
   * @throws IllegalArgumentException if {@code cf} belongs to another database
   * @throws IllegalStateException if {@code cf} or its database is closed
   */
  static int check(TalusDB db, ColumnFamilyHandle cf) {
    if (cf == null) {
      return 0;
    }
    if (cf.db != db) {
      throw new IllegalArgumentException("column family handle \""
          + new String(cf.name, StandardCharsets.UTF_8) + "\" belongs to another database");
    }
    cf.checkOpen();
    return cf.id;
  }

  boolean hasName(byte[] n) {
    return Arrays.equals(name, n);
  }
}
