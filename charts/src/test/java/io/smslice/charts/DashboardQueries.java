package io.smslice.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL of the Grafana dashboard's panels, with the labels each one groups, joins, filters or
 * names its legend by, and a check of its form: brackets that pair up outside strings, only
 * PromQL's functions and keywords, only the dashboard's own variables. Prometheus' parser itself
 * checks them in examples/observability/prometheus-run.sh (promtool and real queries).
 */
final class DashboardQueries {
  record Query(String panel, String expr, String legend) {
    Set<String> labels() {
      Set<String> out = new TreeSet<>();
      Matcher grouping = GROUPING.matcher(expr);
      while (grouping.find()) {
        for (String label : grouping.group(1).split(",")) {
          if (!label.isBlank()) {
            out.add(label.strip());
          }
        }
      }
      Matcher selector = SELECTOR.matcher(expr);
      while (selector.find()) {
        Matcher matcher = MATCHER.matcher(selector.group(1));
        while (matcher.find()) {
          out.add(matcher.group(1));
        }
      }
      Matcher legendLabel = LEGEND.matcher(legend);
      while (legendLabel.find()) {
        out.add(legendLabel.group(1));
      }
      return out;
    }
  }

  private static final Pattern GROUPING =
      Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
  private static final Pattern SELECTOR = Pattern.compile("\\{([^{}]*)}");
  private static final Pattern MATCHER =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)");
  private static final Pattern LEGEND = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");
  private static final Pattern CALL = Pattern.compile("\\b([a-z_]+)\\s*\\(");
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_]+)}?");

  /** PromQL's functions, aggregation operators and the keywords written before a parenthesis. */
  static final Set<String> PROMQL_CALLS =
      Set.of(
          "abs",
          "absent",
          "absent_over_time",
          "avg_over_time",
          "ceil",
          "changes",
          "clamp",
          "clamp_max",
          "clamp_min",
          "count_over_time",
          "day_of_month",
          "day_of_week",
          "delta",
          "deriv",
          "exp",
          "floor",
          "histogram_quantile",
          "hour",
          "idelta",
          "increase",
          "irate",
          "label_join",
          "label_replace",
          "last_over_time",
          "ln",
          "log10",
          "log2",
          "max_over_time",
          "min_over_time",
          "minute",
          "month",
          "predict_linear",
          "present_over_time",
          "quantile_over_time",
          "rate",
          "resets",
          "round",
          "scalar",
          "sgn",
          "sort",
          "sort_desc",
          "sqrt",
          "stddev_over_time",
          "stdvar_over_time",
          "sum_over_time",
          "time",
          "timestamp",
          "vector",
          "year",
          "sum",
          "min",
          "max",
          "avg",
          "group",
          "stddev",
          "stdvar",
          "count",
          "count_values",
          "bottomk",
          "topk",
          "quantile",
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "and",
          "or",
          "unless",
          "bool");

  /** The dashboard's template variables and Grafana's built-in ones it uses. */
  static final Set<String> VARIABLES =
      Set.of("namespace", "claim", "datasource", "__rate_interval", "__range", "__interval");

  private DashboardQueries() {}

  static List<Query> read(Path dashboard) throws IOException {
    JsonNode root = new ObjectMapper().readTree(dashboard.toFile());
    List<Query> out = new ArrayList<>();
    for (JsonNode panel : root.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        out.add(
            new Query(
                panel.path("title").asText(),
                target.path("expr").asText(),
                target.path("legendFormat").asText("")));
      }
    }
    return out;
  }

  /** What is wrong with the expression's form; empty when nothing is. */
  static List<String> problems(String expr) {
    List<String> problems = new ArrayList<>();
    if (expr.isBlank()) {
      problems.add("empty expression");
      return problems;
    }
    String code = withoutStrings(expr, problems);
    Deque<Character> open = new ArrayDeque<>();
    for (char c : code.toCharArray()) {
      switch (c) {
        case '(', '{', '[' -> open.push(c);
        case ')', '}', ']' -> {
          char expected = c == ')' ? '(' : c == '}' ? '{' : '[';
          if (open.isEmpty() || open.pop() != expected) {
            problems.add("unpaired '" + c + "'");
          }
        }
        default -> {}
      }
    }
    if (!open.isEmpty()) {
      problems.add("unclosed " + open);
    }
    Matcher call = CALL.matcher(code);
    while (call.find()) {
      if (!PROMQL_CALLS.contains(call.group(1))) {
        problems.add("not a PromQL function: " + call.group(1));
      }
    }
    Matcher variable = VARIABLE.matcher(expr);
    while (variable.find()) {
      if (!VARIABLES.contains(variable.group(1))) {
        problems.add("not a dashboard variable: $" + variable.group(1));
      }
    }
    return problems;
  }

  /** The expression with each string literal's content blanked out. */
  private static String withoutStrings(String expr, List<String> problems) {
    StringBuilder out = new StringBuilder();
    boolean inString = false;
    for (int i = 0; i < expr.length(); i++) {
      char c = expr.charAt(i);
      if (inString && c == '\\') {
        i++;
        continue;
      }
      if (c == '"') {
        inString = !inString;
        out.append(c);
      } else if (!inString) {
        out.append(c);
      }
    }
    if (inString) {
      problems.add("unterminated string");
    }
    return out.toString();
  }
}
