/**
 * Talus as a Kafka Streams state store.
 *
 * <pre>
 *   builder.table("users", Materialized.as(TalusStores.persistentKeyValueStore("users")));
 * </pre>
 *
 * <p>{@link dev.talus.kafka.TalusStores} makes suppliers of plain and timestamped persistent
 * key-value stores; each store is one Talus database at {@code <task dir>/talus/<store>}, opened
 * with Kafka Streams' RocksDB defaults where Talus has the option and tuned by a {@link
 * dev.talus.kafka.TalusConfigSetter} named under {@code talus.config.setter}. Stores of one
 * process can share a block cache (one {@code LRUCache} set by the setter) and a memtable budget
 * ({@link dev.talus.kafka.WriteBufferBudget}).
 *
 * <h2>Choices where Talus differs from RocksDB</h2>
 *
 * <ul>
 *   <li>No column families yet: a store divides one key space with a first byte (records under
 *       {@code 0x01}, the changelog offsets and query position under {@code 0x00}); see {@link
 *       dev.talus.kafka.TalusKeyValueStore}. Timestamped stores keep Kafka Streams' timestamped
 *       value format (8-byte timestamp, then the value) in the same key space, where RocksDB's
 *       timestamped store upgrades lazily between two column families; a plain store opened as
 *       timestamped is converted once, at open.
 *   <li>Leveled compaction where Kafka Streams asks RocksDB for universal compaction (not in
 *       Talus); no {@code optimizeFiltersForHits}.
 *   <li>No write-buffer manager in the engine: {@link dev.talus.kafka.WriteBufferBudget} bounds
 *       memtables from the stores, flushing the largest on the writing thread.
 *   <li>Moving a store from RocksDB to Talus needs its local state removed first ({@code
 *       KafkaStreams.cleanUp()}); a Talus store refuses to start empty beside a RocksDB store of
 *       the same name.
 * </ul>
 */
package dev.talus.kafka;
