package dev.talus.kafka;

import java.nio.ByteBuffer;

/** Kafka Streams' timestamped value format: 8 bytes of timestamp (big-endian), then the value. */
final class TimestampedFormat {
  /** The timestamp Kafka Streams gives values written before a store was timestamped. */
  static final long UNKNOWN = -1L;

  private TimestampedFormat() {}

  static byte[] withUnknownTimestamp(byte[] plain) {
    return ByteBuffer.allocate(8 + plain.length).putLong(UNKNOWN).put(plain).array();
  }
}
