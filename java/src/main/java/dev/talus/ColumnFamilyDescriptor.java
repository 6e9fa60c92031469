package dev.talus;

import java.util.Arrays;
import java.util.Objects;

/**
 * A column family's name and options, as RocksJava's {@code ColumnFamilyDescriptor}: what {@link
 * TalusDB#open(DBOptions, String, java.util.List, java.util.List)} and {@link
 * TalusDB#createColumnFamily(ColumnFamilyDescriptor)} take.
 */
public class ColumnFamilyDescriptor {
  private final byte[] name;
  private final ColumnFamilyOptions options;

  /**
   * A descriptor with default {@link ColumnFamilyOptions}.
   *
   * @param columnFamilyName the name (UTF-8 bytes; not empty)
   */
  public ColumnFamilyDescriptor(byte[] columnFamilyName) {
    this(columnFamilyName, new ColumnFamilyOptions());
  }

  /**
   * @param columnFamilyName the name (UTF-8 bytes; not empty)
   * @param columnFamilyOptions the family's options
   */
  public ColumnFamilyDescriptor(byte[] columnFamilyName, ColumnFamilyOptions columnFamilyOptions) {
    this.name = Objects.requireNonNull(columnFamilyName, "columnFamilyName").clone();
    this.options = Objects.requireNonNull(columnFamilyOptions, "columnFamilyOptions");
  }

  /** @return the name, a copy */
  public byte[] getName() {
    return name.clone();
  }

  /** @return the options */
  public ColumnFamilyOptions getOptions() {
    return options;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ColumnFamilyDescriptor
        && Arrays.equals(name, ((ColumnFamilyDescriptor) o).name)
        && options.equals(((ColumnFamilyDescriptor) o).options);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(name) * 31 + options.hashCode();
  }
}
