package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Statistics, properties and the info log seen through a real database. */
class StatisticsIntegrationTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("stats");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  @Test
  void tickersHistogramsAndPropertiesMoveWithTheWork() throws Exception {
    try (Statistics stats = new Statistics();
        WriteStallGatesTest.Collect log = new WriteStallGatesTest.Collect();
        Options o = new Options().setCreateIfMissing(true).setStatistics(stats).setLogger(log)
            .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10)));
        TalusDB db = TalusDB.open(o, dir.toString())) {
      for (int i = 0; i < 1000; i++) {
        db.put(WriteStallGatesTest.key(i), new byte[50]);
      }
      assertEquals(1000, stats.getTickerCount(TickerType.NUMBER_KEYS_WRITTEN));
      assertTrue(stats.getTickerCount(TickerType.BYTES_WRITTEN) >= 1000 * 58);
      assertEquals(1000, stats.getHistogramData(HistogramType.DB_WRITE).getCount());
      db.get(WriteStallGatesTest.key(1));
      assertEquals(1, stats.getTickerCount(TickerType.MEMTABLE_HIT));
      db.flush(new FlushOptions());
      assertTrue(stats.getTickerCount(TickerType.FLUSH_WRITE_BYTES) > 0);
      assertTrue(log.has("Flush finished"), log.lines.toString());
      db.get(WriteStallGatesTest.key(2));
      assertEquals(1, stats.getTickerCount(TickerType.GET_HIT_L0));
      assertEquals(2, stats.getTickerCount(TickerType.NUMBER_KEYS_READ));
      assertEquals(100, stats.getTickerCount(TickerType.BYTES_READ));
      assertEquals(2, stats.getHistogramData(HistogramType.DB_GET).getCount());
      assertEquals(2, stats.getAndResetTickerCount(TickerType.NUMBER_KEYS_READ));
      assertEquals(0, stats.getTickerCount(TickerType.NUMBER_KEYS_READ));

      String s = db.getProperty("rocksdb.stats");
      assertTrue(s.contains("** Compaction Stats [default] **"), s);
      assertTrue(s.contains("Write Stall (count):"), s);
      assertTrue(s.contains("** DB Stats **"), s);
      assertTrue(s.contains("Cumulative writes: 1000 writes, 1000 keys"), s);
      assertEquals(0, db.getLongProperty("rocksdb.is-write-stopped"));
      assertEquals(0, db.getLongProperty("rocksdb.actual-delayed-write-rate"));
      assertEquals(0, db.getLongProperty("rocksdb.background-errors"));
      assertTrue(db.getLongProperty("rocksdb.live-sst-files-size") > 0);
      assertTrue(db.getLongProperty("rocksdb.base-level") >= 1);
      assertEquals(0, db.getLongProperty("rocksdb.num-running-flushes"));
      db.getLongProperty("rocksdb.num-running-compactions");
      db.getLongProperty("rocksdb.mem-table-flush-pending");
      db.getLongProperty("rocksdb.compaction-pending");
      db.getLongProperty("rocksdb.estimate-pending-compaction-bytes");

      // Prometheus text exposition: every line is a comment or one sample.
      String prom = stats.toPrometheus("rocksdb");
      Pattern sample = Pattern.compile(
          "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"]*\"\\})? (-?[0-9.eE+-]+|NaN)");
      Pattern type = Pattern.compile("# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|summary|gauge)");
      Set<String> families = new HashSet<>();
      int samples = 0;
      for (String line : prom.split("\n")) {
        if (line.startsWith("# TYPE")) {
          Matcher m = type.matcher(line);
          assertTrue(m.matches(), line);
          families.add(m.group(1));
        } else if (line.startsWith("#")) {
          continue;
        } else {
          Matcher m = sample.matcher(line);
          assertTrue(m.matches(), "bad sample line: " + line);
          String fam = m.group(1).replaceAll("_(sum|count)$", "");
          assertTrue(families.contains(fam) || families.contains(m.group(1)), "no TYPE for " + line);
          samples++;
        }
      }
      assertTrue(samples > 50, prom);
      assertTrue(prom.contains("rocksdb_db_get_micros{quantile=\"0.99\"}"), prom);
      assertTrue(prom.contains("rocksdb_number_keys_written 1000"), prom);
    }
  }
}
