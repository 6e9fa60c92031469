package dev.talus.examples.bulkimport;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws {@code timeline.png} with JFreeChart: rows/s, p99 put latency and L0 files over time,
 * one panel each on a shared time axis, with the seconds in which writers stalled shaded red and
 * the seconds with a back-pressure sleep shaded blue.
 */
final class TimelineChart {
  private TimelineChart() {}

  static void write(Path file, String title, List<Progress.Sample> samples) throws IOException {
    XYSeries rate = new XYSeries("rows/s (interval)");
    XYSeries avg = new XYSeries("rows/s (average)");
    XYSeries p99 = new XYSeries("put p99 (ms)");
    XYSeries max = new XYSeries("put max (ms)");
    XYSeries l0 = new XYSeries("L0 files");
    for (Progress.Sample s : samples) {
      rate.add(s.seconds(), s.rate());
      avg.add(s.seconds(), s.avgRate());
      p99.add(s.seconds(), s.p99() / 1000.0);
      max.add(s.seconds(), s.max() / 1000.0);
      l0.add(s.seconds(), s.l0Files());
    }
    NumberAxis time = new NumberAxis("seconds since start");
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
    plot.setGap(8);
    plot.add(panel("rows/s", new Color(0x1f77b4), rate, avg), 3);
    plot.add(panel("put latency (ms)", new Color(0xd62728), p99, max), 3);
    plot.add(panel("L0 files", new Color(0x2ca02c), l0), 2);
    for (Object o : plot.getSubplots()) {
      shade((XYPlot) o, samples);
    }
    JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(file.toFile(), chart, 1400, 900);
  }

  private static XYPlot panel(String label, Color color, XYSeries... series) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (XYSeries s : series) {
      data.addSeries(s);
    }
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
    r.setSeriesPaint(0, color);
    r.setSeriesStroke(0, new BasicStroke(1.6f));
    if (series.length > 1) {
      r.setSeriesPaint(1, color.darker().darker());
      r.setSeriesStroke(1, new BasicStroke(1.0f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
          1f, new float[] {4f, 3f}, 0f));
    }
    NumberAxis axis = new NumberAxis(label);
    axis.setAutoRangeIncludesZero(true);
    XYPlot p = new XYPlot(data, null, axis, r);
    p.setBackgroundPaint(Color.WHITE);
    p.setDomainGridlinePaint(Color.LIGHT_GRAY);
    p.setRangeGridlinePaint(Color.LIGHT_GRAY);
    return p;
  }

  /** One marker per run of consecutive stalled (or back-pressure) seconds. */
  private static void shade(XYPlot p, List<Progress.Sample> samples) {
    Color stall = new Color(255, 0, 0, 45);
    Color bp = new Color(0, 90, 255, 40);
    double stallFrom = Double.NaN;
    double bpFrom = Double.NaN;
    double prevT = 0;
    long prevBp = 0;
    for (Progress.Sample s : samples) {
      boolean stalled = s.intervalStallMicros() > 0;
      boolean slept = s.backpressureSleeps() > prevBp;
      if (stalled && Double.isNaN(stallFrom)) {
        stallFrom = prevT;
      } else if (!stalled && !Double.isNaN(stallFrom)) {
        p.addDomainMarker(marker(stallFrom, prevT, stall), Layer.BACKGROUND);
        stallFrom = Double.NaN;
      }
      if (slept && Double.isNaN(bpFrom)) {
        bpFrom = prevT;
      } else if (!slept && !Double.isNaN(bpFrom)) {
        p.addDomainMarker(marker(bpFrom, prevT, bp), Layer.BACKGROUND);
        bpFrom = Double.NaN;
      }
      prevT = s.seconds();
      prevBp = s.backpressureSleeps();
    }
    if (!Double.isNaN(stallFrom)) {
      p.addDomainMarker(marker(stallFrom, prevT, stall), Layer.BACKGROUND);
    }
    if (!Double.isNaN(bpFrom)) {
      p.addDomainMarker(marker(bpFrom, prevT, bp), Layer.BACKGROUND);
    }
  }

  private static IntervalMarker marker(double from, double to, Color c) {
    IntervalMarker m = new IntervalMarker(from, to);
    m.setPaint(c);
    m.setOutlinePaint(null);
    return m;
  }
}
