package dev.talus.kafka;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The part of Kafka Streams a store sees when it opens, for tests that drive a store directly:
 * a task directory, the configuration, and the restore callback the store registers (kept, so a
 * test can restore the store as Kafka Streams would from its changelog).
 */
final class TestContext implements StateStoreContext {
  final File taskDir;
  final TaskId taskId;
  final Map<String, Object> configs = new HashMap<>();
  StateRestoreCallback restoreCallback;

  TestContext(File taskDir, TaskId taskId) {
    this.taskDir = taskDir;
    this.taskId = taskId;
    configs.put("application.id", "talus-test");
  }

  @Override
  public String applicationId() {
    return "talus-test";
  }

  @Override
  public TaskId taskId() {
    return taskId;
  }

  @Override
  public Optional<RecordMetadata> recordMetadata() {
    return Optional.empty();
  }

  @Override
  public Serde<?> keySerde() {
    return Serdes.ByteArray();
  }

  @Override
  public Serde<?> valueSerde() {
    return Serdes.ByteArray();
  }

  @Override
  public File stateDir() {
    return taskDir;
  }

  @Override
  public StreamsMetrics metrics() {
    throw new UnsupportedOperationException("metrics: not used by Talus stores");
  }

  @Override
  public void register(StateStore store, StateRestoreCallback callback) {
    restoreCallback = callback;
  }

  @Override
  public void register(StateStore store, StateRestoreCallback callback, CommitCallback commit) {
    restoreCallback = callback;
  }

  @Override
  public Map<String, Object> appConfigs() {
    return configs;
  }

  @Override
  public Map<String, Object> appConfigsWithPrefix(String prefix) {
    Map<String, Object> out = new HashMap<>();
    configs.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        out.put(k.substring(prefix.length()), v);
      }
    });
    return out;
  }
}
