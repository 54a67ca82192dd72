package io.smslice.examples.observability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smslice.examples.plot.SeriesPlot;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs every query of the Grafana dashboard through a Prometheus' HTTP API over a time range, as
 * Grafana would with "All" claims selected, and writes what came back: a Markdown table (series,
 * and each one's minimum, maximum and last value), the queries as Prometheus recording rules (for
 * {@code promtool check rules}) and a PNG of the transparent-claims row's panels.
 *
 * <p>{@code DashboardOverPrometheus <dashboard.json> <prometheus URL> <start s> <end s> <step s>
 * <out.md> <out.rules.yml> <out.png>}
 */
public final class DashboardOverPrometheus {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LEGEND = Pattern.compile("\\{\\{\\s*([a-zA-Z_0-9]+)\\s*}}");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\((\\w+)(\\{[^}]*})?,\\s*(\\w+)\\)");

  private DashboardOverPrometheus() {}

  /** One query's answer: each series' legend and its (time, value) points. */
  record Answer(String error, Map<String, List<double[]>> series) {}

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println(
          "usage: DashboardOverPrometheus <dashboard.json> <prometheus URL> <start s> <end s>"
              + " <step s> <out.md> <out.rules.yml> <out.png>");
      System.exit(2);
    }
    JsonNode dashboard = JSON.readTree(Path.of(args[0]).toFile());
    String url = args[1];
    long start = Long.parseLong(args[2]);
    long end = Long.parseLong(args[3]);
    long step = Long.parseLong(args[4]);
    HttpClient http = HttpClient.newHttpClient();
    StringBuilder md = new StringBuilder();
    StringBuilder rules = new StringBuilder("groups:\n  - name: smslice-dashboard\n    rules:\n");
    List<SeriesPlot.Panel> plotted = new ArrayList<>();
    int errors = 0;
    md.append("| panel | query (variables: All claims, $__rate_interval = ")
        .append(4 * step)
        .append("s) | series | min / max / last of each |\n|---|---|---|---|\n");
    boolean transparentRow = false;
    for (JsonNode panel : dashboard.path("panels")) {
      if (panel.path("type").asText().equals("row")) {
        transparentRow = panel.path("title").asText().startsWith("Transparent");
      }
      Map<String, List<double[]>> panelSeries = new LinkedHashMap<>();
      for (JsonNode target : panel.path("targets")) {
        String expr = substitute(target.path("expr").asText(), step, end - start);
        rules
            .append("      - record: smslice:dashboard:panel")
            .append(panel.path("id").asInt())
            .append(target.path("refId").asText())
            .append("\n        expr: '")
            .append(expr.replace("'", "''"))
            .append("'\n");
        Answer a =
            rangeQuery(http, url, expr, start, end, step, target.path("legendFormat").asText(""));
        String cells;
        if (a.error() != null) {
          errors++;
          cells = "error | " + a.error().replace("|", "\\|");
        } else {
          cells = a.series().size() + " | " + summary(a.series());
          panelSeries.putAll(a.series());
        }
        md.append("| ")
            .append(panel.path("title").asText())
            .append(" | `")
            .append(expr.replace("|", "\\|"))
            .append("` | ")
            .append(cells)
            .append(" |\n");
      }
      if (transparentRow && !panelSeries.isEmpty()) {
        plotted.add(
            new SeriesPlot.Panel(
                panel.path("title").asText(),
                panel.path("fieldConfig").path("defaults").path("unit").asText(""),
                panelSeries));
      }
    }
    md.append("\nTemplate variables (Grafana's label_values, asked of Prometheus' label API):\n\n");
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      Matcher m = LABEL_VALUES.matcher(variable.path("definition").asText(""));
      if (m.matches()) {
        String match =
            m.group(1) + (m.group(2) == null ? "" : m.group(2).replace("$namespace", ".*"));
        JsonNode values =
            get(
                http,
                url
                    + "/api/v1/label/"
                    + m.group(3)
                    + "/values?match[]="
                    + encode(match)
                    + "&start="
                    + start
                    + "&end="
                    + end);
        md.append("- `$")
            .append(variable.path("name").asText())
            .append("`: ")
            .append(values.path("data"))
            .append('\n');
      }
    }
    Files.writeString(Path.of(args[5]), md);
    Files.writeString(Path.of(args[6]), rules);
    SeriesPlot.write(plotted, start, end, Path.of(args[7]));
    System.out.println(
        (errors == 0 ? "every query ran" : errors + " queries failed")
            + "; "
            + plotted.size()
            + " transparent-claim panels had data");
    System.exit(errors == 0 ? 0 : 1);
  }

  /** Grafana's variables as it fills them with "All" selected and a 4-scrape rate interval. */
  static String substitute(String expr, long step, long range) {
    return expr.replace("$namespace", ".*")
        .replace("$claim", ".*")
        .replace("$__rate_interval", 4 * step + "s")
        .replace("$__range", range + "s")
        .replace("$__interval", step + "s");
  }

  private static Answer rangeQuery(
      HttpClient http, String url, String expr, long start, long end, long step, String legend)
      throws IOException, InterruptedException {
    JsonNode answer =
        get(
            http,
            url
                + "/api/v1/query_range?query="
                + encode(expr)
                + "&start="
                + start
                + "&end="
                + end
                + "&step="
                + step);
    if (!answer.path("status").asText().equals("success")) {
      return new Answer(
          answer.path("errorType").asText() + ": " + answer.path("error").asText(), Map.of());
    }
    Map<String, List<double[]>> series = new LinkedHashMap<>();
    for (JsonNode s : answer.path("data").path("result")) {
      List<double[]> points = new ArrayList<>();
      for (JsonNode v : s.path("values")) {
        points.add(new double[] {v.get(0).asDouble(), Double.parseDouble(v.get(1).asText())});
      }
      series.put(legend(legend, s.path("metric")), points);
    }
    return new Answer(null, series);
  }

  private static String legend(String format, JsonNode labels) {
    if (format.isEmpty()) {
      return labels.toString();
    }
    Matcher m = LEGEND.matcher(format);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(labels.path(m.group(1)).asText("")));
    }
    m.appendTail(out);
    return out.toString().replaceAll("GPU-([0-9a-f]{8})-[0-9a-f-]+", "GPU-$1…");
  }

  private static String summary(Map<String, List<double[]>> series) {
    List<String> parts = new ArrayList<>();
    series.forEach(
        (name, points) -> {
          double min = points.stream().mapToDouble(p -> p[1]).min().orElse(Double.NaN);
          double max = points.stream().mapToDouble(p -> p[1]).max().orElse(Double.NaN);
          double last = points.isEmpty() ? Double.NaN : points.getLast()[1];
          parts.add(
              name.replace("|", "\\|")
                  + ": "
                  + number(min)
                  + " / "
                  + number(max)
                  + " / "
                  + number(last));
        });
    return String.join("<br>", parts);
  }

  static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, "%.4g", v);
  }

  private static JsonNode get(HttpClient http, String uri)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(uri)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body());
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
