package dev.talus.examples.bulkimport;

import java.util.Locale;

/** Number formats of the progress line and the summary. */
final class Fmt {
  private Fmt() {}

  /** 1234567 → "1,234,567". */
  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** Microseconds, scaled: "850us", "4.2ms", "1.30s". */
  static String micros(double us) {
    if (Double.isNaN(us)) {
      return "n/a";
    }
    if (us < 1000) {
      return String.format(Locale.ROOT, "%.1fus", us);
    }
    if (us < 1_000_000) {
      return String.format(Locale.ROOT, "%.1fms", us / 1000);
    }
    return String.format(Locale.ROOT, "%.2fs", us / 1e6);
  }

  /** Bytes, scaled with binary units. */
  static String bytes(long b) {
    if (b < 0) {
      return "n/a";
    }
    if (b < 1024) {
      return b + "B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = b;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f%s", v, units[u]);
  }

  /** Seconds as "1h02m", "3m05s", "12s". */
  static String duration(double seconds) {
    if (Double.isNaN(seconds) || Double.isInfinite(seconds)) {
      return "?";
    }
    long s = Math.round(seconds);
    if (s >= 3600) {
      return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s / 60) % 60);
    }
    if (s >= 60) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return s + "s";
  }
}
