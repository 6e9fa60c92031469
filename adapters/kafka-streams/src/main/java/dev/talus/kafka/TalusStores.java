package dev.talus.kafka;

import java.util.Objects;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.common.utils.Bytes;

/**
 * Factory of Talus state stores for Kafka Streams, the counterpart of the persistent key-value
 * stores of Kafka Streams' {@code Stores}: the suppliers go wherever {@code
 * Stores.persistentKeyValueStore(name)} goes ({@code Materialized.as(supplier)}, {@code
 * Stores.keyValueStoreBuilder(supplier, ...)}, {@code Stores.timestampedKeyValueStoreBuilder}).
 *
 * <p>Each store is one Talus database in the task's state directory, {@code
 * <state.dir>/<application.id>/<task id>/talus/<store name>} (RocksDB stores use {@code rocksdb/}
 * there), opened with the defaults Kafka Streams gives RocksDB where Talus has the option: a 50
 * MiB LRU block cache per store, 4 KiB blocks, a bloom filter of 10 bits per key, 16 MiB write
 * buffers, at most 3 of them, no compression, {@code max(2, processors)} background jobs, info log
 * at ERROR, and writes without the write-ahead log (the changelog topic is the log). Leveled
 * compaction is used where Kafka Streams asks RocksDB for universal compaction, which Talus does
 * not implement. A {@link TalusConfigSetter} named by {@link #CONFIG_SETTER_CLASS_CONFIG} changes
 * these defaults.
 */
public final class TalusStores {
  /**
   * Streams configuration property naming a {@link TalusConfigSetter} class (a {@code Class} or
   * its name), as {@code rocksdb.config.setter} does for RocksDB stores. Unset by default.
   */
  public static final String CONFIG_SETTER_CLASS_CONFIG = "talus.config.setter";

  /** The metrics scope of Talus stores in Kafka Streams' store metrics. */
  public static final String METRICS_SCOPE = "talus";

  private TalusStores() {}

  /**
   * A supplier of persistent key-value stores kept in Talus, the counterpart of {@code
   * Stores.persistentKeyValueStore(name)}.
   *
   * @param name the store name, also the name of its database directory; not null
   * @return the supplier
   */
  public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name) {
    return new Supplier(name, false);
  }

  /**
   * A supplier of persistent timestamped key-value stores kept in Talus, the counterpart of
   * {@code Stores.persistentTimestampedKeyValueStore(name)}: each value is stored as Kafka
   * Streams hands it over, the record timestamp (8 bytes, big-endian) followed by the value.
   * Opening a store written by {@link #persistentKeyValueStore(String)} converts its values to
   * that form once (timestamp -1, unknown), as Kafka Streams' RocksDB store upgrades.
   *
   * @param name the store name, also the name of its database directory; not null
   * @return the supplier
   */
  public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name) {
    return new Supplier(name, true);
  }

  private static final class Supplier implements KeyValueBytesStoreSupplier {
    private final String name;
    private final boolean timestamped;

    Supplier(String name, boolean timestamped) {
      this.name = Objects.requireNonNull(name, "name cannot be null");
      this.timestamped = timestamped;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
      return timestamped ? new TalusTimestampedKeyValueStore(name) : new TalusKeyValueStore(name);
    }

    @Override
    public String metricsScope() {
      return METRICS_SCOPE;
    }
  }
}
