package io.smslice.examples.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Time series as a grid of small panels, two a row, one line per series: the dashboard's panels as
 * a Prometheus answered them, for a results page where Grafana is not at hand.
 */
public final class SeriesPlot {
  private static final Color[] PALETTE = {
    new Color(0x1f77b4),
    new Color(0xd62728),
    new Color(0x2ca02c),
    new Color(0xff7f0e),
    new Color(0x9467bd),
    new Color(0x17becf),
    new Color(0x8c564b),
    new Color(0xe377c2),
  };
  private static final int W = 600;
  private static final int H = 330;
  private static final int LEFT = 80;
  private static final int RIGHT = 20;
  private static final int TOP = 30;
  private static final int PLOT_H = 170;
  private static final int MAX_LEGEND = 6;

  /**
   * @param series each series' name and its (epoch seconds, value) points
   */
  public record Panel(String title, String unit, Map<String, List<double[]>> series) {}

  private SeriesPlot() {}

  public static void write(List<Panel> panels, long start, long end, Path png) throws IOException {
    int rows = Math.max(1, (panels.size() + 1) / 2);
    BufferedImage image = new BufferedImage(2 * W, rows * H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, image.getWidth(), image.getHeight());
    for (int i = 0; i < panels.size(); i++) {
      draw(g, panels.get(i), start, end, (i % 2) * W, (i / 2) * H);
    }
    g.dispose();
    ImageIO.write(image, "png", png.toFile());
  }

  private static void draw(Graphics2D g, Panel panel, long start, long end, int x0, int y0) {
    double min = 0;
    double max = 0;
    for (List<double[]> points : panel.series().values()) {
      for (double[] p : points) {
        min = Math.min(min, p[1]);
        max = Math.max(max, p[1]);
      }
    }
    if (max == min) {
      max = min + 1;
    }
    int plotW = W - LEFT - RIGHT;
    int px = x0 + LEFT;
    int py = y0 + TOP;
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    g.drawString(panel.title(), x0 + 10, y0 + 18);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.setColor(new Color(0xdddddd));
    for (int t = 0; t <= 4; t++) {
      int y = py + PLOT_H - t * PLOT_H / 4;
      g.drawLine(px, y, px + plotW, y);
    }
    g.setColor(Color.DARK_GRAY);
    g.drawRect(px, py, plotW, PLOT_H);
    for (int t = 0; t <= 4; t++) {
      double v = min + (max - min) * t / 4;
      String label = format(v, panel.unit());
      g.drawString(
          label, px - 6 - g.getFontMetrics().stringWidth(label), py + PLOT_H - t * PLOT_H / 4 + 4);
    }
    long span = Math.max(1, end - start);
    for (int t = 0; t <= 4; t++) {
      String label = (span * t / 4) + " s";
      g.drawString(
          label, px + plotW * t / 4 - g.getFontMetrics().stringWidth(label) / 2, py + PLOT_H + 14);
    }
    int k = 0;
    for (Map.Entry<String, List<double[]>> e : panel.series().entrySet()) {
      Color color = PALETTE[k % PALETTE.length];
      g.setColor(color);
      g.setStroke(new BasicStroke(1.8f));
      Path2D line = new Path2D.Double();
      double lastT = Double.NaN;
      for (double[] p : e.getValue()) {
        double x = px + plotW * (p[0] - start) / span;
        double y = py + PLOT_H - PLOT_H * (p[1] - min) / (max - min);
        // A gap of more than two steps (a series that went away) breaks the line.
        if (Double.isNaN(lastT) || p[0] - lastT > 2.5 * stepOf(e.getValue())) {
          line.moveTo(x, y);
        } else {
          line.lineTo(x, y);
        }
        lastT = p[0];
      }
      g.draw(line);
      g.setStroke(new BasicStroke(1f));
      if (k < MAX_LEGEND) {
        int ly = py + PLOT_H + 30 + 14 * k;
        g.fillRect(px, ly - 8, 12, 4);
        g.setColor(Color.BLACK);
        g.drawString(e.getKey(), px + 18, ly - 2);
      } else if (k == MAX_LEGEND) {
        g.setColor(Color.BLACK);
        g.drawString(
            "... and " + (panel.series().size() - MAX_LEGEND) + " more",
            px + 18,
            py + PLOT_H + 30 + 14 * k - 2);
      }
      k++;
    }
  }

  private static double stepOf(List<double[]> points) {
    double step = Double.MAX_VALUE;
    for (int i = 1; i < points.size(); i++) {
      step = Math.min(step, points.get(i)[0] - points.get(i - 1)[0]);
    }
    return step == Double.MAX_VALUE ? 1 : step;
  }

  static String format(double v, String unit) {
    return switch (unit) {
      case "bytes" -> String.format(Locale.ROOT, "%.0f MiB", v / (1 << 20));
      case "hertz" -> String.format(Locale.ROOT, "%.0f MHz", v / 1e6);
      case "watt" -> String.format(Locale.ROOT, "%.0f W", v);
      case "percentunit" -> String.format(Locale.ROOT, "%.0f%%", v * 100);
      case "s" -> String.format(Locale.ROOT, "%.3g s", v);
      default -> String.format(Locale.ROOT, "%.3g", v);
    };
  }
}
