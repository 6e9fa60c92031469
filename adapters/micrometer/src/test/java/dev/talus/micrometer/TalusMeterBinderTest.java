package dev.talus.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.talus.FlushOptions;
import dev.talus.HistogramType;
import dev.talus.LRUCache;
import dev.talus.BlockBasedTableConfig;
import dev.talus.Options;
import dev.talus.Statistics;
import dev.talus.TalusDB;
import dev.talus.TickerType;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TalusMeterBinderTest {
  @TempDir Path dir;

  @Test
  void publishesTickersHistogramsAndPropertiesTaggedByDatabase() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (Statistics stats = new Statistics();
        LRUCache cache = new LRUCache(4L << 20);
        Options options = new Options().setCreateIfMissing(true).setStatistics(stats)
            .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
        TalusDB db = TalusDB.open(options, dir.toString())) {
      new TalusMeterBinder(db, "orders").bindTo(registry);
      for (int i = 0; i < 100; i++) {
        db.put(("k" + i).getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
      }
      try (FlushOptions f = new FlushOptions()) {
        db.flush(f);
      }
      for (int i = 0; i < 50; i++) {
        assertNotNull(db.get(("k" + i).getBytes(StandardCharsets.UTF_8)));
      }
      Tags tags = Tags.of("db", "orders", "cf", "default");
      for (TickerType t : TickerType.values()) {
        assertNotNull(registry.find(TalusMeterBinder.meterName(t.name())).tags(tags)
            .functionCounter(), t.name());
      }
      FunctionCounter written =
          registry.get("talus.number.keys.written").tags(tags).functionCounter();
      assertEquals(100.0, written.count());
      assertEquals(stats.getTickerCount(TickerType.NUMBER_KEYS_WRITTEN), written.count());
      for (HistogramType h : HistogramType.values()) {
        for (String s : new String[] {"p50", "p95", "p99", "max"}) {
          assertNotNull(registry.find(TalusMeterBinder.meterName(h.name())).tags(tags)
              .tag("statistic", s).gauge(), h.name() + " " + s);
        }
      }
      Gauge level0 = registry.get("talus.num.files.at.level0").tags(tags).gauge();
      assertEquals(db.getLongProperty("rocksdb.num-files-at-level0"), level0.value());
      assertTrue(level0.value() >= 1.0, "the flush made an L0 file");
      assertEquals(0.0, registry.get("talus.is.write.stopped").tags(tags).gauge().value());
      assertEquals(4L << 20,
          registry.get("talus.block.cache.capacity").tags(tags).gauge().value());
      assertTrue(registry.get("talus.block.cache.usage").tags(tags).gauge().value() > 0);
      for (String p : TalusMeterBinder.PROPERTIES) {
        Gauge g = registry.get(TalusMeterBinder.meterName(p.substring(8))).tags(tags).gauge();
        assertFalse(Double.isNaN(g.value()), p + " is a property the engine answers");
      }
      Gauge p99 = registry.get("talus.db.get").tags(tags).tag("statistic", "p99").gauge();
      assertEquals(stats.getHistogramData(HistogramType.DB_GET).getPercentile99(), p99.value());
    }
    // Closed database and statistics: the meters read NaN instead of failing the registry.
    assertTrue(Double.isNaN(registry.get("talus.num.files.at.level0").gauge().value()));
    assertTrue(Double.isNaN(registry.get("talus.number.keys.written").functionCounter().count()));
  }

  @Test
  void withoutStatisticsOnlyPropertiesArePublished() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (Options options = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(options, dir.toString())) {
      new TalusMeterBinder(db, null, "plain", Tags.of("service", "s1")).bindTo(registry);
      assertEquals(TalusMeterBinder.PROPERTIES.size(), registry.getMeters().size());
      assertNotNull(registry.get("talus.estimate.pending.compaction.bytes")
          .tags("db", "plain", "cf", "default", "service", "s1").gauge());
    }
  }
}
