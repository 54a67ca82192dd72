package io.smslice.examples.plot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * The per-vote latencies of the ensemble comparison (examples/ensemble/compare), as written by its
 * runner: a CSV, gzip-compressed when the name ends in .gz, with a header naming at least the
 * columns {@code config}, {@code model} and {@code latency_us}. Latencies are grouped by model,
 * then by configuration, in the order they first appear.
 */
public record LatencySamples(Map<String, Map<String, double[]>> byModelThenConfig) {

  public static LatencySamples read(Path csv) throws IOException {
    try (InputStream raw = Files.newInputStream(csv);
        InputStream in = csv.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      return parse(reader, csv.toString());
    }
  }

  static LatencySamples parse(BufferedReader reader, String source) throws IOException {
    String header = reader.readLine();
    if (header == null) {
      throw new IOException(source + " is empty: expected a header line");
    }
    List<String> columns = List.of(header.split(","));
    int config = column(columns, "config", source);
    int model = column(columns, "model", source);
    int latency = column(columns, "latency_us", source);
    Map<String, Map<String, List<Double>>> grouped = new LinkedHashMap<>();
    String line;
    int number = 1;
    while ((line = reader.readLine()) != null) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      String[] cells = line.split(",", -1);
      if (cells.length != columns.size()) {
        throw new IOException(
            source
                + " line "
                + number
                + ": "
                + cells.length
                + " cells, header has "
                + columns.size());
      }
      double us;
      try {
        us = Double.parseDouble(cells[latency]);
      } catch (NumberFormatException e) {
        throw new IOException(
            source + " line " + number + ": latency_us '" + cells[latency] + "' is not a number");
      }
      grouped
          .computeIfAbsent(cells[model], k -> new LinkedHashMap<>())
          .computeIfAbsent(cells[config], k -> new ArrayList<>())
          .add(us);
    }
    Map<String, Map<String, double[]>> out = new LinkedHashMap<>();
    grouped.forEach(
        (m, configs) -> {
          Map<String, double[]> perConfig = new LinkedHashMap<>();
          configs.forEach(
              (c, values) ->
                  perConfig.put(c, values.stream().mapToDouble(Double::doubleValue).toArray()));
          out.put(m, perConfig);
        });
    return new LatencySamples(out);
  }

  private static int column(List<String> columns, String name, String source) throws IOException {
    int i = columns.indexOf(name);
    if (i < 0) {
      throw new IOException(source + ": no column '" + name + "' in header " + columns);
    }
    return i;
  }
}
