package io.smslice.examples.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Draws the ensemble comparison's latency distributions as a PNG: one panel per model, one tail
 * curve per configuration (fraction of frames at least this slow, logarithmic), and the deadline as
 * a dashed line. Headless: no display is needed.
 *
 * <pre>
 * java -cp examples/target/classes io.smslice.examples.plot.LatencyPlot \
 *     latencies.csv.gz latencies.png [deadline-ms]
 * </pre>
 */
public final class LatencyPlot {
  private static final Color[] PALETTE = {
    new Color(0xd62728),
    new Color(0xff7f0e),
    new Color(0x9467bd),
    new Color(0x2ca02c),
    new Color(0x1f77b4),
    new Color(0x17becf),
    new Color(0x7f7f7f)
  };
  private static final int PANEL_W = 520;
  private static final int PANEL_H = 420;
  private static final int LEFT = 70;
  private static final int TOP = 50;
  private static final int BOTTOM = 60;

  private LatencyPlot() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 2 || args.length > 3) {
      System.err.println("usage: LatencyPlot <latencies.csv[.gz]> <out.png> [deadline-ms]");
      System.exit(2);
    }
    System.setProperty("java.awt.headless", "true");
    double deadlineMs = args.length == 3 ? Double.parseDouble(args[2]) : Double.NaN;
    BufferedImage image = render(LatencySamples.read(Path.of(args[0])), deadlineMs);
    Path out = Path.of(args[1]);
    if (!ImageIO.write(image, "png", out.toFile())) {
      throw new IOException("no PNG writer available");
    }
    System.out.println("wrote " + out + " (" + Files.size(out) + " bytes)");
  }

  public static BufferedImage render(LatencySamples samples, double deadlineMs) {
    Map<String, Map<String, double[]>> models = samples.byModelThenConfig();
    if (models.isEmpty()) {
      throw new IllegalArgumentException("no latencies to draw");
    }
    List<String> configs = new ArrayList<>();
    double maxMs = Double.isNaN(deadlineMs) ? 0 : deadlineMs;
    int mostSamples = 1;
    for (Map<String, double[]> perConfig : models.values()) {
      for (Map.Entry<String, double[]> e : perConfig.entrySet()) {
        if (!configs.contains(e.getKey())) {
          configs.add(e.getKey());
        }
        for (double us : e.getValue()) {
          maxMs = Math.max(maxMs, us / 1000);
        }
        mostSamples = Math.max(mostSamples, e.getValue().length);
      }
    }
    double xMax = Math.ceil(maxMs);
    int decades = (int) Math.ceil(Math.log10(mostSamples));
    BufferedImage image =
        new BufferedImage(
            LEFT + models.size() * PANEL_W,
            TOP + PANEL_H + BOTTOM + 22 * configs.size(),
            BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, image.getWidth(), image.getHeight());
    int i = 0;
    for (Map.Entry<String, Map<String, double[]>> model : models.entrySet()) {
      Panel p = new Panel(LEFT + i * PANEL_W, TOP, PANEL_W - 40, PANEL_H - 40, xMax, decades);
      p.axes(g, model.getKey(), deadlineMs);
      for (int c = 0; c < configs.size(); c++) {
        double[] values = model.getValue().get(configs.get(c));
        if (values != null) {
          p.curve(g, TailCurve.of(values), PALETTE[c % PALETTE.length]);
        }
      }
      i++;
    }
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
    int y = TOP + PANEL_H + 20;
    for (int c = 0; c < configs.size(); c++) {
      g.setColor(PALETTE[c % PALETTE.length]);
      g.setStroke(new BasicStroke(3f));
      g.drawLine(LEFT, y + 22 * c - 5, LEFT + 30, y + 22 * c - 5);
      g.setColor(Color.BLACK);
      g.drawString(configs.get(c), LEFT + 40, y + 22 * c);
    }
    g.dispose();
    return image;
  }

  /** One model's axes: x linear in ms, y = fraction of frames at least that slow, log10. */
  private record Panel(int x0, int y0, int w, int h, double xMax, int decades) {
    int px(double ms) {
      return x0 + (int) Math.round(w * Math.min(ms, xMax) / xMax);
    }

    int py(double fraction) {
      double d = Math.min(decades, -Math.log10(fraction));
      return y0 + (int) Math.round(h * d / decades);
    }

    void axes(Graphics2D g, String title, double deadlineMs) {
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      g.setStroke(new BasicStroke(1f));
      for (int d = 0; d <= decades; d++) {
        int y = py(Math.pow(10, -d));
        g.setColor(new Color(0xe0e0e0));
        g.drawLine(x0, y, x0 + w, y);
        g.setColor(Color.DARK_GRAY);
        g.drawString(d == 0 ? "1" : "1e-" + d, x0 - 40, y + 4);
      }
      int step = xMax > 20 ? 5 : 1;
      for (int ms = 0; ms <= xMax; ms += step) {
        int x = px(ms);
        g.setColor(new Color(0xe0e0e0));
        g.drawLine(x, y0, x, y0 + h);
        g.setColor(Color.DARK_GRAY);
        g.drawString(Integer.toString(ms), x - 4, y0 + h + 16);
      }
      g.setColor(Color.BLACK);
      g.drawRect(x0, y0, w, h);
      g.drawString("latency, ms (frame release to class on the host)", x0, y0 + h + 34);
      g.drawString("fraction of frames at least this slow", x0, y0 - 8);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
      g.drawString(title, x0 + w / 2 - 30, y0 - 28);
      if (!Double.isNaN(deadlineMs)) {
        g.setColor(Color.RED);
        g.setStroke(
            new BasicStroke(
                1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[] {6f, 4f}, 0f));
        g.drawLine(px(deadlineMs), y0, px(deadlineMs), y0 + h);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString("deadline", px(deadlineMs) - 56, y0 + 14);
      }
    }

    void curve(Graphics2D g, TailCurve t, Color color) {
      Path2D.Double path = new Path2D.Double();
      double[] x = t.latencies();
      double[] y = t.slowerFraction();
      // A step: y[i] of the frames took longer than x[i - 1], and at least x[i].
      path.moveTo(px(0), py(y[0]));
      path.lineTo(px(x[0] / 1000), py(y[0]));
      for (int i = 1; i < x.length; i++) {
        path.lineTo(px(x[i - 1] / 1000), py(y[i]));
        path.lineTo(px(x[i] / 1000), py(y[i]));
      }
      g.setColor(color);
      g.setStroke(new BasicStroke(2f));
      g.draw(path);
    }
  }
}
