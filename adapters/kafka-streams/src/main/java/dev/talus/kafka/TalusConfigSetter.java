package dev.talus.kafka;

import dev.talus.Options;
import java.util.Map;

/**
 * Tunes the {@link Options} of each Talus store before it opens, as Kafka Streams' {@code
 * RocksDBConfigSetter} does for RocksDB. Name the implementing class (public, with a public
 * no-argument constructor) in the streams configuration under {@link
 * TalusStores#CONFIG_SETTER_CLASS_CONFIG} ({@code talus.config.setter}), as a {@code Class} or a
 * class name.
 *
 * <p>One instance is made per store; {@link #setConfig} runs once, before the store's database
 * opens, on options that already hold the store's defaults (see {@link TalusStores}).
 * Objects meant to be shared by every store of the process, such as one block cache ({@link
 * dev.talus.LRUCache}) for all of them, belong in static fields of the implementing class; a
 * store closing does not close them.
 */
public interface TalusConfigSetter {
  /**
   * Sets options of one store.
   *
   * @param storeName the store's name
   * @param options the options the store opens with, holding its defaults
   * @param configs the streams configuration (every property, those of Kafka Streams and the
   *     application's own)
   */
  void setConfig(String storeName, Options options, Map<String, Object> configs);

  /**
   * The memtable budget the store shares with others, or null (the default) for none: return
   * one instance, kept in a static field, to bound the memtables of all stores of the process
   * together, as a {@code WriteBufferManager} does for RocksDB stores. Called once per store,
   * after {@link #setConfig}.
   *
   * @param storeName the store's name
   * @param configs the streams configuration
   * @return the shared budget, or null
   */
  default WriteBufferBudget writeBufferBudget(String storeName, Map<String, Object> configs) {
    return null;
  }

  /**
   * Called when the store closes, after its database is closed: closes what {@link #setConfig}
   * made for this store alone. The default does nothing.
   *
   * @param storeName the store's name
   * @param options the options the store was opened with
   */
  default void close(String storeName, Options options) {}
}
