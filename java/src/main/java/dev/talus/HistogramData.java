package dev.talus;

/**
 * A summary of one histogram, as {@link Statistics#getHistogramData(HistogramType)} returns it.
 * Values are in the histogram's unit (microseconds unless its {@link HistogramType} says
 * otherwise). Percentiles are interpolated within fixed buckets (1, 2, then about 1.5 times the previous one), so
 * they are exact to within the width of the bucket they fall in, and never outside [min, max].
 * Everything is 0 for an empty histogram.
 */
public class HistogramData {
  private final double median;
  private final double percentile95;
  private final double percentile99;
  private final double percentile999;
  private final double average;
  private final double standardDeviation;
  private final double max;
  private final long count;
  private final long sum;
  private final double min;

  /**
   * A summary with max, count, sum, min and the 99.9th percentile set to 0 (RocksJava's short
   * constructor).
   *
   * @param median 50th percentile
   * @param percentile95 95th percentile
   * @param percentile99 99th percentile
   * @param average mean
   * @param standardDeviation population standard deviation
   */
  public HistogramData(
      final double median,
      final double percentile95,
      final double percentile99,
      final double average,
      final double standardDeviation) {
    this(median, percentile95, percentile99, average, standardDeviation, 0.0, 0, 0, 0.0);
  }

  /**
   * A summary with the 99.9th percentile set to 0 (RocksJava's full constructor).
   *
   * @param median 50th percentile
   * @param percentile95 95th percentile
   * @param percentile99 99th percentile
   * @param average mean
   * @param standardDeviation population standard deviation
   * @param max largest value
   * @param count number of values
   * @param sum sum of the values
   * @param min smallest value
   */
  public HistogramData(
      final double median,
      final double percentile95,
      final double percentile99,
      final double average,
      final double standardDeviation,
      final double max,
      final long count,
      final long sum,
      final double min) {
    this(median, percentile95, percentile99, 0.0, average, standardDeviation, max, count, sum, min);
  }

  /**
   * A full summary, including the 99.9th percentile (a Talus addition).
   *
   * @param median 50th percentile
   * @param percentile95 95th percentile
   * @param percentile99 99th percentile
   * @param percentile999 99.9th percentile
   * @param average mean
   * @param standardDeviation population standard deviation
   * @param max largest value
   * @param count number of values
   * @param sum sum of the values
   * @param min smallest value
   */
  public HistogramData(
      final double median,
      final double percentile95,
      final double percentile99,
      final double percentile999,
      final double average,
      final double standardDeviation,
      final double max,
      final long count,
      final long sum,
      final double min) {
    this.median = median;
    this.percentile95 = percentile95;
    this.percentile99 = percentile99;
    this.percentile999 = percentile999;
    this.average = average;
    this.standardDeviation = standardDeviation;
    this.max = max;
    this.count = count;
    this.sum = sum;
    this.min = min;
  }

  /** @return the 50th percentile */
  public double getMedian() {
    return median;
  }

  /** @return the 95th percentile */
  public double getPercentile95() {
    return percentile95;
  }

  /** @return the 99th percentile */
  public double getPercentile99() {
    return percentile99;
  }

  /** @return the 99.9th percentile (a Talus addition; 0 when built without it) */
  public double getPercentile999() {
    return percentile999;
  }

  /** @return the mean value */
  public double getAverage() {
    return average;
  }

  /** @return the population standard deviation */
  public double getStandardDeviation() {
    return standardDeviation;
  }

  /** @return the largest value */
  public double getMax() {
    return max;
  }

  /** @return the number of values recorded */
  public long getCount() {
    return count;
  }

  /** @return the sum of the values recorded */
  public long getSum() {
    return sum;
  }

  /** @return the smallest value */
  public double getMin() {
    return min;
  }

  @Override
  public String toString() {
    return "HistogramData{count=" + count + ", sum=" + sum + ", min=" + min + ", median=" + median
        + ", p95=" + percentile95 + ", p99=" + percentile99 + ", p99.9=" + percentile999
        + ", max=" + max + ", average=" + average + ", stdDev=" + standardDeviation + "}";
  }
}
