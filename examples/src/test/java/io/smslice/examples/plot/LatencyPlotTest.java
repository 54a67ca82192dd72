package io.smslice.examples.plot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencyPlotTest {
  private static final String CSV =
      """
      config,run,frame,model,vote,latency_us,late
      timeslice,1,10,resnet18,3,4000.0,0
      timeslice,1,10,vit,3,900.0,0
      timeslice,1,11,resnet18,3,6000.0,1
      green,1,10,resnet18,3,1000.0,0
      """;

  @Test
  void samplesAreGroupedByModelThenConfiguration() throws IOException {
    LatencySamples s = LatencySamples.parse(new BufferedReader(new StringReader(CSV)), "test");
    assertThat(s.byModelThenConfig()).containsOnlyKeys("resnet18", "vit");
    assertThat(s.byModelThenConfig().get("resnet18").get("timeslice")).containsExactly(4000, 6000);
    assertThat(s.byModelThenConfig().get("resnet18").keySet())
        .containsExactly("timeslice", "green");
  }

  @Test
  void badRowsAreRefusedWithTheLineNumber() {
    String bad = "config,model,latency_us\ntimeslice,vit,fast\n";
    assertThatThrownBy(
            () -> LatencySamples.parse(new BufferedReader(new StringReader(bad)), "f.csv"))
        .hasMessageContaining("f.csv line 2")
        .hasMessageContaining("'fast'");
    assertThatThrownBy(
            () ->
                LatencySamples.parse(
                    new BufferedReader(new StringReader("config,latency_us\n")), "f.csv"))
        .hasMessageContaining("no column 'model'");
  }

  @Test
  void theTailReadsAsTheFractionOfFramesAtLeastThatSlow() {
    TailCurve t = TailCurve.of(new double[] {3, 1, 2, 2});
    assertThat(t.latencies()).containsExactly(1, 2, 3);
    assertThat(t.slowerFraction()).containsExactly(1.0, 0.75, 0.25);
  }

  @Test
  void drawsAPngFromAGzippedCsvWithOnePanelPerModel(@TempDir Path dir) throws IOException {
    Path csv = dir.resolve("latencies.csv.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(csv))) {
      out.write(CSV.getBytes(StandardCharsets.UTF_8));
    }
    Path png = dir.resolve("out.png");
    LatencyPlot.main(new String[] {csv.toString(), png.toString(), "5"});
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image.getWidth()).isGreaterThan(2 * 500);
    // the first configuration's colour is on the image: a curve was drawn, not only axes
    boolean red = false;
    for (int x = 0; x < image.getWidth() && !red; x++) {
      for (int y = 0; y < image.getHeight() && !red; y++) {
        red = (image.getRGB(x, y) & 0xffffff) == 0xd62728;
      }
    }
    assertThat(red).isTrue();
  }
}
