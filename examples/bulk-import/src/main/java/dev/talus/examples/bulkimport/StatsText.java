package dev.talus.examples.bulkimport;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads figures out of the text of {@code rocksdb.stats} and {@code rocksdb.cf-write-stall-stats},
 * which Talus prints in RocksDB's layout, so one parser serves both engines.
 */
final class StatsText {
  private StatsText() {}

  /**
   * A column of the {@code Sum} row of the compaction stats table (e.g. {@code "W-Amp"},
   * {@code "Write(GB)"}), located through the header line. The {@code Size} column prints as two
   * words ({@code "1.23 GB"}), so every column after it is one word further right in a row than
   * in the header.
   *
   * @return the value, or NaN when the table or column is not found
   */
  static double sumColumn(String stats, String column) {
    if (stats == null) {
      return Double.NaN;
    }
    String[] header = null;
    for (String line : stats.split("\n")) {
      String t = line.trim();
      if (t.startsWith("Level") && t.contains("W-Amp")) {
        header = t.split("\\s+");
      } else if (header != null && t.startsWith("Sum ")) {
        String[] row = t.split("\\s+");
        int col = -1;
        int size = -1;
        for (int i = 0; i < header.length; i++) {
          if (header[i].equals(column)) {
            col = i;
          }
          if (header[i].equals("Size")) {
            size = i;
          }
        }
        if (col < 0) {
          return Double.NaN;
        }
        int idx = size >= 0 && col > size ? col + 1 : col;
        if (idx >= row.length) {
          return Double.NaN;
        }
        try {
          return Double.parseDouble(row[idx]);
        } catch (NumberFormatException e) {
          return Double.NaN;
        }
      }
    }
    return Double.NaN;
  }

  private static final Pattern PAIR = Pattern.compile("([A-Za-z0-9_-]+): (\\d+)");

  /**
   * The {@code name: count} pairs of a write-stall line ({@code rocksdb.cf-write-stall-stats},
   * or the {@code Write Stall (count)} line of {@code rocksdb.stats}), without zero counts.
   */
  static Map<String, Long> stallCounts(String text) {
    Map<String, Long> m = new LinkedHashMap<>();
    if (text == null) {
      return m;
    }
    String t = text;
    int at = t.indexOf("Write Stall (count):");
    if (at >= 0) {
      int end = t.indexOf('\n', at);
      t = t.substring(at + "Write Stall (count):".length(), end < 0 ? t.length() : end);
    }
    Matcher mm = PAIR.matcher(t);
    while (mm.find()) {
      long v = Long.parseLong(mm.group(2));
      if (v != 0) {
        m.merge(mm.group(1), v, Long::sum);
      }
    }
    return m;
  }

  /** Total delays plus stops of a stall-count map. */
  static long totalStallConditions(Map<String, Long> counts) {
    return counts.getOrDefault("total-delays", 0L) + counts.getOrDefault("total-stops", 0L);
  }
}
