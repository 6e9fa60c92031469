package dev.talus.micrometer;

import dev.talus.HistogramType;
import dev.talus.Statistics;
import dev.talus.TalusDB;
import dev.talus.TalusException;
import dev.talus.TickerType;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Publishes a Talus database's statistics and health properties as Micrometer meters:
 *
 * <ul>
 *   <li>every {@link TickerType} as a {@link FunctionCounter} named {@code talus.} and the ticker
 *       in lower case with dots ({@code BLOCK_CACHE_MISS}: {@code talus.block.cache.miss});
 *   <li>every {@link HistogramType} as four gauges of one name ({@code talus.} and the histogram
 *       the same way, e.g. {@code talus.db.get}) told apart by the tag {@code statistic}:
 *       {@code p50}, {@code p95}, {@code p99}, {@code max}, in the histogram's unit;
 *   <li>the properties services alert on, as gauges named {@code talus.} and the property less
 *       {@code rocksdb.}, dashes as dots: {@link #PROPERTIES}.
 * </ul>
 *
 * Each meter is tagged {@code db} (the name given, e.g. the service's name for the database) and
 * {@code cf} ({@code default}, Talus's one column family), plus the extra tags given. Tickers and
 * histograms need the {@link Statistics} the database was opened with; without one only the
 * properties are published. Meters read the database when the registry asks (one native call
 * each); once the database or statistics are closed they read NaN, so closing the database
 * before removing the meters is safe.
 */
public class TalusMeterBinder implements MeterBinder {
  /** The properties published as gauges (RocksDB's names). */
  public static final List<String> PROPERTIES = List.of(
      "rocksdb.num-files-at-level0",
      "rocksdb.estimate-pending-compaction-bytes",
      "rocksdb.is-write-stopped",
      "rocksdb.actual-delayed-write-rate",
      "rocksdb.cur-size-active-mem-table",
      "rocksdb.cur-size-all-mem-tables",
      "rocksdb.num-immutable-mem-table",
      "rocksdb.mem-table-flush-pending",
      "rocksdb.compaction-pending",
      "rocksdb.num-running-flushes",
      "rocksdb.num-running-compactions",
      "rocksdb.background-errors",
      "rocksdb.block-cache-capacity",
      "rocksdb.block-cache-usage",
      "rocksdb.block-cache-pinned-usage",
      "rocksdb.estimate-num-keys",
      "rocksdb.total-sst-files-size");

  private final TalusDB db;
  private final Statistics statistics;
  private final Tags tags;

  /**
   * @param db the database (not closed by this binder)
   * @param statistics the statistics the database was opened with, or null for properties only
   * @param dbName the value of the {@code db} tag
   * @param extraTags further tags of every meter
   */
  public TalusMeterBinder(TalusDB db, Statistics statistics, String dbName,
      Iterable<Tag> extraTags) {
    this.db = Objects.requireNonNull(db, "db");
    this.statistics = statistics;
    this.tags = Tags.of("db", Objects.requireNonNull(dbName, "dbName"), "cf", "default")
        .and(extraTags == null ? Tags.empty() : extraTags);
  }

  /**
   * As {@link #TalusMeterBinder(TalusDB, Statistics, String, Iterable)} with the statistics of
   * the database's options and no extra tags.
   *
   * @param db the database
   * @param dbName the value of the {@code db} tag
   */
  public TalusMeterBinder(TalusDB db, String dbName) {
    this(db, db.getOptions().statistics(), dbName, Tags.empty());
  }

  static String meterName(String constant) {
    return "talus." + constant.toLowerCase(Locale.ROOT).replace('_', '.').replace('-', '.');
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    if (statistics != null) {
      for (TickerType t : TickerType.values()) {
        FunctionCounter.builder(meterName(t.name()), statistics, s -> ticker(s, t))
            .tags(tags)
            .description("Talus ticker " + t.name())
            .register(registry);
      }
      for (HistogramType h : HistogramType.values()) {
        String name = meterName(h.name());
        gauge(registry, name, "p50", s -> s.getHistogramData(h).getMedian());
        gauge(registry, name, "p95", s -> s.getHistogramData(h).getPercentile95());
        gauge(registry, name, "p99", s -> s.getHistogramData(h).getPercentile99());
        gauge(registry, name, "max", s -> s.getHistogramData(h).getMax());
      }
    }
    for (String p : PROPERTIES) {
      Gauge.builder(meterName(p.substring("rocksdb.".length())), db, d -> property(d, p))
          .tags(tags)
          .description("Talus property " + p)
          .strongReference(true)
          .register(registry);
    }
  }

  private void gauge(MeterRegistry registry, String name, String statistic,
      ToDoubleFunction<Statistics> read) {
    Gauge.builder(name, statistics, s -> {
          try {
            return read.applyAsDouble(s);
          } catch (IllegalStateException closed) {
            return Double.NaN;
          }
        })
        .tags(tags)
        .tag("statistic", statistic)
        .strongReference(true)
        .register(registry);
  }

  private static double ticker(Statistics s, TickerType t) {
    try {
      return s.getTickerCount(t);
    } catch (IllegalStateException closed) {
      return Double.NaN;
    }
  }

  private static double property(TalusDB db, String property) {
    try {
      return db.getLongProperty(property);
    } catch (TalusException | IllegalStateException e) {
      return Double.NaN;
    }
  }
}
