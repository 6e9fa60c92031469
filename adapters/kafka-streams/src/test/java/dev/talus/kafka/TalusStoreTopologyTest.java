package dev.talus.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topologies materialised in Talus give what they give with Kafka Streams' default RocksDB store:
 * each test runs the same topology on both and compares.
 */
class TalusStoreTopologyTest {
  @TempDir Path dir;

  private Properties config(String stateDir) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "talus-topology-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve(stateDir).toString());
    return p;
  }

  private static final List<String> LINES = List.of("the quick brown fox", "jumps over the lazy dog",
      "The dog barks", "a fox and a dog");

  /** Counts words into {@code counts}; returns the output and the final store contents. */
  private Map.Entry<List<KeyValue<String, Long>>, Map<String, Long>> wordCount(
      Function<String, KeyValueBytesStoreSupplier> supplier, String stateDir) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream("lines", Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split(" ")))
        .groupBy((k, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.<String, Long>as(supplier.apply("counts"))
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
        .toStream()
        .to("word-counts", Produced.with(Serdes.String(), Serdes.Long()));
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), config(stateDir))) {
      TestInputTopic<String, String> in =
          driver.createInputTopic("lines", Serdes.String().serializer(),
              Serdes.String().serializer());
      TestOutputTopic<String, Long> out =
          driver.createOutputTopic("word-counts", Serdes.String().deserializer(),
              Serdes.Long().deserializer());
      for (String line : LINES) {
        in.pipeInput(null, line);
      }
      KeyValueStore<String, ValueAndTimestamp<Long>> store =
          driver.getTimestampedKeyValueStore("counts");
      Map<String, Long> contents = new java.util.TreeMap<>();
      try (var it = store.all()) {
        it.forEachRemaining(kv -> contents.put(kv.key, kv.value.value()));
      }
      return Map.entry(out.readKeyValuesToList(), contents);
    }
  }

  @Test
  void wordCountGivesTheSameResultsAsTheDefaultStore() {
    var rocks = wordCount(Stores::persistentKeyValueStore, "rocks");
    var talus = wordCount(TalusStores::persistentKeyValueStore, "talus");
    var talusTs = wordCount(TalusStores::persistentTimestampedKeyValueStore, "talus-ts");
    assertEquals(rocks, talus);
    assertEquals(rocks, talusTs);
    assertEquals(3L, talus.getValue().get("the"));
    assertEquals(3L, talus.getValue().get("dog"));
    assertEquals(2L, talus.getValue().get("a"));
    assertEquals(11, talus.getValue().size());
  }

  private List<KeyValue<String, String>> tableJoin(
      Function<String, KeyValueBytesStoreSupplier> supplier, String stateDir) {
    StreamsBuilder builder = new StreamsBuilder();
    KTable<String, String> users = builder.table("users",
        Consumed.with(Serdes.String(), Serdes.String()),
        Materialized.<String, String>as(supplier.apply("users"))
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
    KTable<String, String> regions = builder.table("regions",
        Consumed.with(Serdes.String(), Serdes.String()),
        Materialized.<String, String>as(supplier.apply("regions"))
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
    users.join(regions, (name, region) -> name + "@" + region,
            Materialized.<String, String>as(supplier.apply("joined"))
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
        .toStream()
        .to("user-regions", Produced.with(Serdes.String(), Serdes.String()));
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), config(stateDir))) {
      var u = driver.createInputTopic("users", Serdes.String().serializer(),
          Serdes.String().serializer());
      var r = driver.createInputTopic("regions", Serdes.String().serializer(),
          Serdes.String().serializer());
      var out = driver.createOutputTopic("user-regions", Serdes.String().deserializer(),
          Serdes.String().deserializer());
      u.pipeInput("1", "alice");
      u.pipeInput("2", "bob");
      r.pipeInput("1", "eu");
      r.pipeInput("3", "us");
      u.pipeInput("3", "carol");
      r.pipeInput("1", "asia");
      u.pipeInput("2", "bobby");
      r.pipeInput("2", "eu");
      u.pipeInput("3", (String) null);
      List<KeyValue<String, String>> result = out.readKeyValuesToList();
      KeyValueStore<String, ValueAndTimestamp<String>> joined =
          driver.getTimestampedKeyValueStore("joined");
      result.add(KeyValue.pair("store:1", joined.get("1").value()));
      result.add(KeyValue.pair("store:3", String.valueOf(joined.get("3"))));
      return result;
    }
  }

  @Test
  void tableTableJoinGivesTheSameResultsAsTheDefaultStore() {
    var rocks = tableJoin(Stores::persistentKeyValueStore, "rocks");
    var talus = tableJoin(TalusStores::persistentTimestampedKeyValueStore, "talus");
    assertEquals(rocks, talus);
    assertEquals(List.of(KeyValue.pair("1", "alice@eu"), KeyValue.pair("3", "carol@us"),
        KeyValue.pair("1", "alice@asia"), KeyValue.pair("2", "bobby@eu"),
        KeyValue.pair("3", null), KeyValue.pair("store:1", "alice@asia"),
        KeyValue.pair("store:3", "null")), talus);
  }

  @Test
  void storeBuildersAcceptTheSupplier() {
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(Stores.keyValueStoreBuilder(TalusStores.persistentKeyValueStore("raw"),
        Serdes.String(), Serdes.String()));
    builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
        .process(() -> new org.apache.kafka.streams.processor.api.Processor<String, String,
            Void, Void>() {
          private KeyValueStore<String, String> store;

          @Override
          public void init(org.apache.kafka.streams.processor.api.ProcessorContext<Void, Void> c) {
            store = c.getStateStore("raw");
          }

          @Override
          public void process(org.apache.kafka.streams.processor.api.Record<String, String> r) {
            store.put(r.key(), r.value());
          }
        }, "raw");
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), config("raw"))) {
      var in = driver.createInputTopic("in", Serdes.String().serializer(),
          Serdes.String().serializer());
      in.pipeInput("k", "v");
      KeyValueStore<String, String> store = driver.getKeyValueStore("raw");
      assertEquals("v", store.get("k"));
      // The driver commits after every record; the store writes its offsets at most once a
      // second, so they do not inflate the estimate by two entries per record.
      for (int i = 0; i < 50; i++) {
        in.pipeInput("k" + i, "v");
      }
      long estimate = store.approximateNumEntries();
      assertTrue(estimate >= 50 && estimate <= 60, "estimate " + estimate);
    }
  }
}
