package dev.talus;

/** Table format settings, as RocksJava's {@code TableFormatConfig}; see {@link BlockBasedTableConfig}. */
public abstract class TableFormatConfig {
  TableFormatConfig() {}

  /** Appends the settings as {@code name=value} lines for the engine. */
  abstract void appendTo(StringBuilder b);

  /** @return the shared block cache, or null */
  abstract Cache sharedCache();
}
