package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class StatisticsTest {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") \\S.*");
  private static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (counter|summary)");
  private static final Pattern SAMPLE =
      Pattern.compile(
          "(" + NAME + ")(\\{quantile=\"(0\\.5|0\\.95|0\\.99|0\\.999)\"\\})? "
              + "(NaN|[+-]Inf|-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?)");

  @Test
  void freshStatisticsRoundTripZeroesThroughTheApi() throws TalusException {
    try (Statistics s = new Statistics()) {
      for (TickerType t : TickerType.values()) {
        assertEquals(0, s.getTickerCount(t), t.name());
        assertEquals(0, s.getAndResetTickerCount(t), t.name());
      }
      for (HistogramType h : HistogramType.values()) {
        HistogramData d = s.getHistogramData(h);
        assertEquals(0, d.getCount(), h.name());
        assertEquals(0, d.getSum());
        assertEquals(0.0, d.getMedian());
        assertEquals(0.0, d.getPercentile95());
        assertEquals(0.0, d.getPercentile99());
        assertEquals(0.0, d.getPercentile999());
        assertEquals(0.0, d.getAverage());
        assertEquals(0.0, d.getStandardDeviation());
        assertEquals(0.0, d.getMax());
        assertEquals(0.0, d.getMin());
        assertTrue(s.getHistogramString(h).startsWith("Count: 0 Average: 0.0000"), h.name());
      }
      s.reset();
      assertSame(StatsLevel.EXCEPT_DETAILED_TIMERS, s.statsLevel());
      for (StatsLevel level : StatsLevel.values()) {
        s.setStatsLevel(level);
        assertSame(level, s.statsLevel());
      }
    }
  }

  @Test
  void toStringHasRocksDbShape() {
    try (Statistics s = new Statistics()) {
      String[] lines = s.toString().split("\n");
      int tickers = TickerType.values().length;
      assertEquals(tickers + HistogramType.values().length, lines.length);
      assertEquals("rocksdb.block.cache.miss COUNT : 0", lines[0]);
      for (int i = 0; i < tickers; i++) {
        assertTrue(lines[i].matches("(rocksdb|talus)\\.[a-z0-9._]+ COUNT : 0"), lines[i]);
      }
      for (int i = tickers; i < lines.length; i++) {
        assertTrue(
            lines[i].matches(
                "rocksdb\\.[a-z0-9._]+ P50 : 0\\.000000 P95 : 0\\.000000 P99 : 0\\.000000"
                    + " P100 : 0\\.000000 COUNT : 0 SUM : 0"),
            lines[i]);
      }
      assertTrue(s.toString().contains("\nrocksdb.db.get.micros P50 : "));
    }
  }

  @Test
  void enumBytesAreDistinctAndRoundTrip() {
    Set<Byte> seen = new HashSet<>();
    for (TickerType t : TickerType.values()) {
      assertTrue(seen.add(t.getValue()), t.name());
      assertSame(t, TickerType.getTickerType(t.getValue()));
    }
    seen.clear();
    for (HistogramType h : HistogramType.values()) {
      assertTrue(seen.add(h.getValue()), h.name());
      assertSame(h, HistogramType.getHistogramType(h.getValue()));
    }
    for (StatsLevel l : StatsLevel.values()) {
      assertSame(l, StatsLevel.getStatsLevel(l.getValue()));
    }
    assertEquals(0, StatsLevel.EXCEPT_DETAILED_TIMERS.getValue());
    assertEquals(1, StatsLevel.EXCEPT_TIME_FOR_MUTEX.getValue());
    assertEquals(2, StatsLevel.ALL.getValue());
    assertThrows(IllegalArgumentException.class, () -> TickerType.getTickerType((byte) -1));
    assertThrows(IllegalArgumentException.class, () -> HistogramType.getHistogramType((byte) 127));
    assertThrows(IllegalArgumentException.class, () -> StatsLevel.getStatsLevel((byte) 3));
  }

  @Test
  void constructorsWithIgnoredHistogramsAndForwarding() {
    Statistics parent = new Statistics();
    try (Statistics a = new Statistics(EnumSet.of(HistogramType.DB_GET));
        Statistics b = new Statistics(parent);
        Statistics c = new Statistics(EnumSet.allOf(HistogramType.class), parent);
        Statistics d = new Statistics(EnumSet.noneOf(HistogramType.class), null)) {
      // The forwarding target stays alive natively after its Java object is closed.
      parent.close();
      assertEquals(0, b.getTickerCount(TickerType.STALL_MICROS));
      assertEquals(0, c.getHistogramData(HistogramType.DB_WRITE).getCount());
      assertEquals(0, a.getHistogramData(HistogramType.DB_GET).getCount());
      assertNotEquals("", d.toString());
      assertThrows(IllegalStateException.class, () -> new Statistics(parent));
    }
    assertThrows(NullPointerException.class, () -> new Statistics((Statistics) null));
    assertThrows(
        NullPointerException.class, () -> new Statistics((EnumSet<HistogramType>) null));
  }

  /** Checks every line of a Prometheus exposition; returns sample name (with labels) → value. */
  private static Map<String, String> parsePrometheus(String text) {
    assertTrue(text.endsWith("\n"));
    Map<String, String> types = new HashMap<>();
    Map<String, String> samples = new HashMap<>();
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty()) {
        continue; // only after the final newline
      }
      Matcher help = HELP.matcher(line);
      Matcher type = TYPE.matcher(line);
      Matcher sample = SAMPLE.matcher(line);
      if (help.matches()) {
        continue;
      } else if (type.matches()) {
        assertEquals(null, types.put(type.group(1), type.group(2)), "duplicate # TYPE: " + line);
      } else if (sample.matches()) {
        String name = sample.group(1);
        String family =
            types.containsKey(name)
                ? name
                : name.replaceFirst("_(sum|count)$", "");
        String familyType = types.get(family);
        assertTrue(familyType != null, "sample without a preceding # TYPE: " + line);
        boolean quantile = sample.group(2) != null;
        if (familyType.equals("counter")) {
          assertTrue(family.equals(name) && !quantile, line);
        } else {
          assertEquals(family.equals(name), quantile, line);
        }
        String series = name + (quantile ? sample.group(2) : "");
        assertEquals(null, samples.put(series, sample.group(4)), "duplicate sample: " + line);
      } else {
        throw new AssertionError("not a valid exposition line: " + line);
      }
    }
    return samples;
  }

  @Test
  void toPrometheusIsValidTextExposition() {
    try (Statistics s = new Statistics()) {
      Map<String, String> samples = parsePrometheus(s.toPrometheus(""));
      assertEquals(
          TickerType.values().length + 6 * HistogramType.values().length, samples.size());
      for (String q : List.of("0.5", "0.95", "0.99", "0.999")) {
        assertTrue(samples.containsKey("rocksdb_db_get_micros{quantile=\"" + q + "\"}"), q);
      }
      assertTrue(samples.containsKey("rocksdb_block_cache_miss"));
      assertTrue(samples.containsKey("talus_stall_l0_slowdown_micros"));
      assertTrue(samples.containsKey("rocksdb_db_get_micros_sum"));
      assertTrue(samples.containsKey("rocksdb_db_get_micros_count"));

      Map<String, String> prefixed = parsePrometheus(s.toPrometheus("myapp"));
      assertEquals(samples.size(), prefixed.size());
      for (String name : prefixed.keySet()) {
        assertTrue(name.startsWith("myapp_rocksdb_") || name.startsWith("myapp_talus_"), name);
      }
      Map<String, String> sanitized = parsePrometheus(s.toPrometheus("my-app.v2"));
      assertTrue(sanitized.containsKey("my_app_v2_rocksdb_block_cache_miss"));
      assertThrows(NullPointerException.class, () -> s.toPrometheus(null));
    }
  }

  @Test
  void nullArgumentsAndClosedObjectsAreRejected() {
    Statistics s = new Statistics();
    assertThrows(NullPointerException.class, () -> s.getTickerCount(null));
    assertThrows(NullPointerException.class, () -> s.getAndResetTickerCount(null));
    assertThrows(NullPointerException.class, () -> s.getHistogramData(null));
    assertThrows(NullPointerException.class, () -> s.getHistogramString(null));
    assertThrows(NullPointerException.class, () -> s.setStatsLevel(null));
    assertNotEquals(0, s.acquireShared());
    s.releaseShared();
    s.close();
    s.close();
    for (Executable call :
        new Executable[] {
          () -> s.getTickerCount(TickerType.BLOCK_CACHE_HIT),
          () -> s.getHistogramData(HistogramType.DB_GET),
          () -> s.getHistogramString(HistogramType.DB_GET),
          s::reset,
          s::statsLevel,
          () -> s.setStatsLevel(StatsLevel.ALL),
          () -> s.toPrometheus(""),
          s::acquireShared
        }) {
      IllegalStateException e = assertThrows(IllegalStateException.class, call);
      assertEquals("Statistics is closed", e.getMessage());
    }
    // toString stays safe after close: loggers and debuggers call it on anything.
    assertEquals("Statistics{closed}", s.toString());
  }

  @Test
  void histogramDataConstructorsFillWhatTheyAreGiven() {
    HistogramData shortForm = new HistogramData(1, 2, 3, 4, 5);
    assertEquals(1.0, shortForm.getMedian());
    assertEquals(2.0, shortForm.getPercentile95());
    assertEquals(3.0, shortForm.getPercentile99());
    assertEquals(4.0, shortForm.getAverage());
    assertEquals(5.0, shortForm.getStandardDeviation());
    assertEquals(0.0, shortForm.getMax());
    assertEquals(0, shortForm.getCount());
    assertEquals(0.0, shortForm.getPercentile999());
    HistogramData full = new HistogramData(1, 2, 3, 4, 5, 6, 7, 8, 9);
    assertEquals(6.0, full.getMax());
    assertEquals(7, full.getCount());
    assertEquals(8, full.getSum());
    assertEquals(9.0, full.getMin());
    HistogramData withP999 = new HistogramData(1, 2, 3, 3.5, 4, 5, 6, 7, 8, 9);
    assertEquals(3.5, withP999.getPercentile999());
    assertEquals(4.0, withP999.getAverage());
  }
}
