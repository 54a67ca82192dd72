package io.smslice.agent.verify;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The verification's one table: what was measured, the value, the target, pass or fail. */
final class Report {
  private record Row(String check, String measured, String target, String verdict) {}

  private final List<Row> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  void check(String check, String measured, String target, boolean pass) {
    rows.add(new Row(check, measured, target, pass ? "PASS" : "FAIL"));
    System.out.println(
        "[verify] "
            + check
            + ": "
            + measured
            + " (target "
            + target
            + ") "
            + (pass ? "PASS" : "FAIL"));
  }

  void notMeasured(String check, String why) {
    rows.add(new Row(check, "not measured", "-", why));
    System.out.println("[verify] " + check + ": not measured: " + why);
  }

  void note(String line) {
    notes.add(line);
    System.out.println("[verify] " + line);
  }

  static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  String render(String header) {
    StringBuilder out = new StringBuilder(header).append("\n\n");
    out.append("| check | measured | target | result |\n|---|---|---|---|\n");
    for (Row row : rows) {
      out.append("| ")
          .append(row.check())
          .append(" | ")
          .append(row.measured())
          .append(" | ")
          .append(row.target())
          .append(" | ")
          .append(row.verdict())
          .append(" |\n");
    }
    if (!notes.isEmpty()) {
      out.append("\nNotes:\n");
      notes.forEach(n -> out.append("- ").append(n).append('\n'));
    }
    return out.toString();
  }
}
