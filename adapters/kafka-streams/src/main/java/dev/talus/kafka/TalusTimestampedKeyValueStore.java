package dev.talus.kafka;

import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link TalusKeyValueStore} whose values carry their record timestamp, as Kafka Streams'
 * timestamped stores expect: 8 bytes of timestamp (big-endian) then the value. Kafka Streams
 * recognizes the format by the {@link TimestampedBytesStore} marker and hands values over in it,
 * so the store keeps them as they are.
 */
public class TalusTimestampedKeyValueStore extends TalusKeyValueStore
    implements TimestampedBytesStore {
  /**
   * @param name the store name
   */
  public TalusTimestampedKeyValueStore(String name) {
    super(name, true);
  }
}
