package io.smslice.examples.plot;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Panels two a row, each series drawn in its colour. */
class SeriesPlotTest {
  @TempDir Path tmp;

  @Test
  void drawsEachPanelsSeries() throws Exception {
    Path png = tmp.resolve("panels.png");
    var rising = List.of(new double[] {100, 0}, new double[] {150, 5}, new double[] {200, 10});
    SeriesPlot.write(
        List.of(
            new SeriesPlot.Panel("a", "short", Map.of("rising", rising)),
            new SeriesPlot.Panel("b", "watt", Map.of("flat", List.of(new double[] {100, 1}))),
            new SeriesPlot.Panel("c", "bytes", Map.of())),
        100,
        200,
        png);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isEqualTo(1200);
    assertThat(image.getHeight()).isEqualTo(2 * 330);
    // The first series' colour appears inside the first panel's axes.
    boolean blue = false;
    for (int x = 80; x < 580 && !blue; x++) {
      for (int y = 30; y < 200 && !blue; y++) {
        blue = (image.getRGB(x, y) & 0xffffff) == 0x1f77b4;
      }
    }
    assertThat(blue).isTrue();
    assertThat(SeriesPlot.format(1.98e9, "hertz")).isEqualTo("1980 MHz");
  }
}
