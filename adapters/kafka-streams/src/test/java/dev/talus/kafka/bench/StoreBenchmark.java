package dev.talus.kafka.bench;

import dev.talus.kafka.TalusStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka Streams' default RocksDB store against Talus on one topology, a count by key over
 * {@code --records} records with {@code --keys} distinct keys (uniformly random, fixed seed),
 * through TopologyTestDriver, engines alternated for {@code --rounds} rounds. Prints records/s
 * and the p99 time per record of each run, then the medians and their ratio.
 *
 * <p>Flags: {@code --records N} (10 000 000), {@code --keys M} (1 000 000), {@code --rounds R}
 * (3), {@code --dir PATH} (a fresh folder under the temporary directory). The record cache is
 * off, so that every record reaches the store.
 */
public final class StoreBenchmark {
  private StoreBenchmark() {}

  /**
   * Runs the benchmark.
   *
   * @param args flags, see the class comment
   * @throws Exception on failure
   */
  public static void main(String[] args) throws Exception {
    long records = 10_000_000;
    int keys = 1_000_000;
    int rounds = 3;
    Path base = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--records" -> records = Long.parseLong(args[++i]);
        case "--keys" -> keys = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--dir" -> base = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown flag " + args[i]
            + " (flags: --records N --keys M --rounds R --dir PATH)");
      }
    }
    if (base == null) {
      base = Files.createTempDirectory("talus-kstreams-bench");
    }
    System.out.printf("count by key: %,d records, %,d keys, %d rounds, dir %s%n", records, keys,
        rounds, base);
    double[][] rate = new double[2][rounds];
    String[] engines = {"rocksdb", "talus"};
    for (int r = 0; r < rounds; r++) {
      for (int e = 0; e < 2; e++) {
        // Alternate which engine goes first, so neither always runs on a warmer machine.
        int engine = (r % 2 == 0) ? e : 1 - e;
        Function<String, KeyValueBytesStoreSupplier> supplier = engine == 0
            ? Stores::persistentKeyValueStore : TalusStores::persistentKeyValueStore;
        Path dir = base.resolve(engines[engine] + "-" + r);
        double[] result = run(supplier, dir, records, keys);
        rate[engine][r] = result[0];
        System.out.printf("round %d %-7s %,12.0f records/s   p99 %,8.1f us/record%n", r + 1,
            engines[engine], result[0], result[1] / 1000.0);
        deleteTree(dir);
      }
    }
    double rocks = median(rate[0]);
    double talus = median(rate[1]);
    System.out.printf("median   rocksdb %,12.0f records/s%n", rocks);
    System.out.printf("median   talus   %,12.0f records/s   (%.2fx rocksdb)%n", talus,
        talus / rocks);
  }

  /** @return records/s and the p99 nanoseconds per record */
  private static double[] run(Function<String, KeyValueBytesStoreSupplier> supplier, Path dir,
      long records, int keys) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
        .groupByKey()
        .count(Materialized.<String, Long>as(supplier.apply("counts"))
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long())
            .withCachingDisabled());
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "store-bench");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    String[] keyNames = new String[keys];
    for (int k = 0; k < keys; k++) {
      keyNames[k] = String.format("key-%09d", k);
    }
    // Per-record times in a bounded sample: every record up to 1M, then a stride.
    int sampleSize = (int) Math.min(records, 1_000_000);
    long stride = Math.max(1, records / sampleSize);
    long[] sample = new long[sampleSize];
    int sampled = 0;
    java.util.SplittableRandom random = new java.util.SplittableRandom(42);
    long start;
    long end;
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), p)) {
      TestInputTopic<String, String> in = driver.createInputTopic("in",
          Serdes.String().serializer(), Serdes.String().serializer());
      start = System.nanoTime();
      for (long i = 0; i < records; i++) {
        String key = keyNames[random.nextInt(keys)];
        long t0 = System.nanoTime();
        in.pipeInput(key, "v");
        if (i % stride == 0 && sampled < sampleSize) {
          sample[sampled++] = System.nanoTime() - t0;
        }
      }
      end = System.nanoTime();
    }
    long[] s = Arrays.copyOf(sample, sampled);
    Arrays.sort(s);
    double p99 = s.length == 0 ? 0 : s[(int) Math.min(s.length - 1, (long) (s.length * 0.99))];
    return new double[] {records / ((end - start) / 1e9), p99};
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static void deleteTree(Path p) throws Exception {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
