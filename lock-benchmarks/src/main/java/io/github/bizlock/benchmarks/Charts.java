package io.github.bizlock.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DefaultDrawingSupplier;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.ScatterRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.statistics.DefaultMultiValueCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The PNG charts written beside the results (JFreeChart, headless): throughput per scenario, the wait-time CDF of C1
 * and C, and the per-thread / per-instance strip chart. Each image puts its panels side by side.
 */
final class Charts {

    /** One bar of the throughput chart. */
    record Throughput(String server, String scenario, String subject, double perSecond) {}

    /** Tick labels as plain numbers (0.01, 1, 100), not powers of ten. */
    private static final DecimalFormat PLAIN =
            new DecimalFormat("#,##0.##", DecimalFormatSymbols.getInstance(Locale.ROOT));

    /** A log axis's tick unit is an exponent: one tick per power of ten. */
    private static final NumberTickUnit DECADES = new NumberTickUnit(1);

    private static final Paint[] PAINTS = DefaultDrawingSupplier.DEFAULT_PAINT_SEQUENCE;

    /** The smallest wait drawn: a log axis has no 0, and waits under 10 µs are hand-offs inside one JVM. */
    private static final double MIN_WAIT_MS = 0.01;

    private Charts() {}

    /** Bars per subject and scenario, one panel per server, on a log axis (B's ops/s and C's acquisitions/s differ). */
    static void throughput(Path file, List<String> servers, List<Throughput> bars) throws IOException {
        List<JFreeChart> panels = new ArrayList<>();
        for (String server : servers) {
            DefaultCategoryDataset data = new DefaultCategoryDataset();
            double max = 10;
            double min = 1e9;
            for (Throughput bar : bars) {
                if (bar.server().equals(server) && bar.perSecond() > 0) {
                    data.addValue(bar.perSecond(), bar.scenario(), bar.subject());
                    max = Math.max(max, bar.perSecond());
                    min = Math.min(min, bar.perSecond());
                }
            }
            JFreeChart chart = ChartFactory.createBarChart(
                    server, null, "per second (log scale)", data, PlotOrientation.HORIZONTAL, true, false, false);
            CategoryPlot plot = chart.getCategoryPlot();
            LogAxis axis =
                    new LogAxis("operations (A, B), acquisitions (C1, C, C3) or permits (S, S3) per second, log scale");
            axis.setNumberFormatOverride(PLAIN);
            axis.setTickUnit(DECADES);
            // From the power of ten below the smallest bar, so that every bar shows.
            axis.setRange(Math.pow(10, Math.floor(Math.log10(Math.min(min, max)))), max * 2);
            plot.setRangeAxis(axis);
            plot.getDomainAxis().setMaximumCategoryLabelWidthRatio(0.45f);
            BarRenderer renderer = (BarRenderer) plot.getRenderer();
            renderer.setBarPainter(new StandardBarPainter());
            renderer.setShadowVisible(false);
            renderer.setBase(1);
            style(chart);
            panels.add(chart);
        }
        save(file, panels, 1100, 1700);
    }

    /**
     * The share of waits up to each length, one line per subject, on a log axis; a ring marks each line's p99, a
     * square its longest wait.
     *
     * @param scenarios the scenarios drawn, one panel each, titled by {@code titles}
     */
    static void waitCdf(Path file, WaitSamples waits, List<String> scenarios, List<String> titles) throws IOException {
        List<JFreeChart> panels = new ArrayList<>();
        for (int s = 0; s < scenarios.size(); s++) {
            String scenario = scenarios.get(s);
            XYSeriesCollection lines = new XYSeriesCollection();
            XYSeriesCollection p99s = new XYSeriesCollection();
            XYSeriesCollection maxima = new XYSeriesCollection();
            double longest = 1;
            for (Subject subject : waits.subjects(scenario)) {
                long[] sorted = waits.sorted(scenario, subject);
                if (sorted.length == 0) {
                    continue;
                }
                XYSeries line = new XYSeries(subject.label(), true, true);
                int step = Math.max(1, sorted.length / 400);
                for (int i = 0; i < sorted.length; i++) {
                    // Every point of the last 1 % (the tail the chart is for), every step-th before it.
                    if (i % step == 0 || i >= sorted.length * 0.99 || i == sorted.length - 1) {
                        line.add(ms(sorted[i]), (i + 1) / (double) sorted.length);
                    }
                }
                XYSeries p99 = new XYSeries(subject.label() + " p99");
                p99.add(ms(WaitSamples.percentile(sorted, 99)), 0.99);
                XYSeries max = new XYSeries(subject.label() + " max");
                max.add(ms(sorted[sorted.length - 1]), 1.0);
                lines.addSeries(line);
                p99s.addSeries(p99);
                maxima.addSeries(max);
                longest = Math.max(longest, ms(sorted[sorted.length - 1]));
            }
            JFreeChart chart = ChartFactory.createXYLineChart(
                    titles.get(s), null, null, lines, PlotOrientation.VERTICAL, true, false, false);
            XYPlot plot = chart.getXYPlot();
            LogAxis x = new LogAxis("wait for the lock, ms (log scale); ring: p99, square: max");
            x.setNumberFormatOverride(PLAIN);
            x.setTickUnit(DECADES);
            x.setRange(MIN_WAIT_MS, longest * 1.5);
            plot.setDomainAxis(x);
            NumberAxis y = new NumberAxis("share of acquisitions that waited at most this long");
            y.setRange(0, 1.02);
            plot.setRangeAxis(y);
            XYLineAndShapeRenderer lineRenderer = new XYLineAndShapeRenderer(true, false);
            XYLineAndShapeRenderer p99Renderer = marks(lines.getSeriesCount(), new Ellipse2D.Double(-5, -5, 10, 10));
            XYLineAndShapeRenderer maxRenderer = marks(lines.getSeriesCount(), new Rectangle2D.Double(-4, -4, 8, 8));
            for (int i = 0; i < lines.getSeriesCount(); i++) {
                lineRenderer.setSeriesPaint(i, PAINTS[i % PAINTS.length]);
                lineRenderer.setSeriesStroke(i, new BasicStroke(2f));
            }
            plot.setRenderer(0, lineRenderer);
            plot.setDataset(1, p99s);
            plot.setRenderer(1, p99Renderer);
            plot.setDataset(2, maxima);
            plot.setRenderer(2, maxRenderer);
            style(chart);
            panels.add(chart);
        }
        save(file, panels, 1000, 800);
    }

    /** Each thread's (or instance's) acquisitions per second, every run, one column of dots per subject. */
    static void strip(Path file, WaitSamples waits, List<String> scenarios, List<String> titles) throws IOException {
        List<JFreeChart> panels = new ArrayList<>();
        for (int s = 0; s < scenarios.size(); s++) {
            DefaultMultiValueCategoryDataset data = new DefaultMultiValueCategoryDataset();
            for (Subject subject : waits.subjects(scenarios.get(s))) {
                data.add(new ArrayList<Number>(waits.rates(scenarios.get(s), subject)), "thread", subject.label());
            }
            JFreeChart chart = ChartFactory.createLineChart(
                    titles.get(s),
                    null,
                    "acquisitions per second",
                    data,
                    PlotOrientation.VERTICAL,
                    false,
                    false,
                    false);
            CategoryPlot plot = chart.getCategoryPlot();
            ScatterRenderer renderer = new ScatterRenderer();
            renderer.setUseOutlinePaint(false);
            renderer.setSeriesPaint(0, new Color(0x1f, 0x77, 0xb4, 160));
            renderer.setSeriesShape(0, new Ellipse2D.Double(-3, -3, 6, 6));
            plot.setRenderer(renderer);
            plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
            style(chart);
            panels.add(chart);
        }
        save(file, panels, 900, 800);
    }

    /** Shapes only, in the colours of the lines, outside the legend. */
    private static XYLineAndShapeRenderer marks(int series, Shape shape) {
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(false, true);
        renderer.setDefaultSeriesVisibleInLegend(false);
        for (int i = 0; i < series; i++) {
            renderer.setSeriesPaint(i, PAINTS[i % PAINTS.length]);
            renderer.setSeriesShape(i, shape);
            renderer.setSeriesShapesFilled(i, shape instanceof Rectangle2D);
        }
        return renderer;
    }

    private static double ms(long nanos) {
        return Math.max(MIN_WAIT_MS, nanos / 1e6);
    }

    private static void style(JFreeChart chart) {
        chart.setBackgroundPaint(Color.WHITE);
        chart.getPlot().setBackgroundPaint(Color.WHITE);
        if (chart.getPlot() instanceof XYPlot xy) {
            xy.setDomainGridlinePaint(Color.LIGHT_GRAY);
            xy.setRangeGridlinePaint(Color.LIGHT_GRAY);
        } else if (chart.getPlot() instanceof CategoryPlot category) {
            category.setRangeGridlinePaint(Color.LIGHT_GRAY);
        }
    }

    /** Draws {@code panels} side by side, each {@code width} × {@code height}, into one PNG. */
    private static void save(Path file, List<JFreeChart> panels, int width, int height) throws IOException {
        BufferedImage image = new BufferedImage(Math.max(1, panels.size()) * width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = image.createGraphics();
        graphics.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        graphics.setColor(Color.WHITE);
        graphics.fillRect(0, 0, image.getWidth(), height);
        for (int i = 0; i < panels.size(); i++) {
            panels.get(i).draw(graphics, new Rectangle2D.Double(i * width, 0, width, height));
        }
        graphics.dispose();
        ImageIO.write(image, "png", file.toFile());
    }
}
