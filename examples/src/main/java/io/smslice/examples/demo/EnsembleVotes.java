package io.smslice.examples.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.examples.workload.LatencyStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PyTorch ensemble as the demo shows it: each model's votes as they pass the voter's Service
 * (the latency the model itself measured, from the frame's release to its vote), and the voter's
 * own reports, one per block of frames (per-model p50/p99/max, late and missing votes, frames the
 * ensemble could not decide in time).
 */
final class EnsembleVotes implements ProcessRuntime.Listener {
  static final String MODEL_SCRIPT = "serve_model.py";
  static final String VOTER_SCRIPT = "voter.py";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, LatencyStats> models = new ConcurrentHashMap<>();
  private final List<JsonNode> blocks = new CopyOnWriteArrayList<>();
  private volatile long deadlineNanos = 5_000_000;
  private volatile List<String> expected = List.of();

  /** A co-tenant's progress line (progress.py): its rate over the last few seconds. */
  private static final Pattern RATE = Pattern.compile("([0-9.]+) [a-z]+/s");

  private record Rate(long at, double perSecond) {}

  private final Map<String, List<Rate>> rates = new ConcurrentHashMap<>();

  /** Reads the voter's deadline and models from the pods the demo will run. */
  void expect(List<Pod> pods) {
    for (Pod pod : pods) {
      for (Container c : pod.getSpec().getContainers()) {
        List<String> args = c.getArgs() == null ? List.of() : c.getArgs();
        if (ProcessRuntime.runs(c) && !args.isEmpty() && args.getFirst().equals(VOTER_SCRIPT)) {
          option(args, "--deadline-ms")
              .ifPresent(v -> deadlineNanos = Math.round(Double.parseDouble(v) * 1e6));
          option(args, "--models")
              .ifPresent(
                  v ->
                      expected = List.of(v.split(",")).stream().filter(m -> !m.isEmpty()).toList());
        }
      }
    }
  }

  boolean expected() {
    return !expected.isEmpty();
  }

  @Override
  public LatencyStats started(String pod, List<String> args) {
    LatencyStats stats = new LatencyStats();
    if (!args.isEmpty() && args.getFirst().equals(MODEL_SCRIPT)) {
      stats.deadline(deadlineNanos);
      option(args, "--model").ifPresent(m -> models.put(m, stats));
    }
    return stats;
  }

  @Override
  public void datagram(String text) {
    // channel.py's vote line: vote <model> <frame> <class> <latency_ns>
    String[] parts = text.strip().split(" ");
    if (parts.length == 5 && parts[0].equals("vote")) {
      LatencyStats stats = models.get(parts[1]);
      if (stats != null) {
        try {
          stats.record(Long.parseLong(parts[4]));
        } catch (NumberFormatException e) {
          // Not a vote after all; the voter counts what it drops.
        }
      }
    }
  }

  @Override
  public String line(String pod, String line) {
    Matcher rate = RATE.matcher(line.strip());
    if (rate.matches()) {
      rates
          .computeIfAbsent(pod, p -> new CopyOnWriteArrayList<>())
          .add(new Rate(System.nanoTime(), Double.parseDouble(rate.group(1))));
      return null;
    }
    if (!line.startsWith("voter: {")) {
      return null;
    }
    try {
      JsonNode block = JSON.readTree(line.substring("voter: ".length()));
      blocks.add(block);
      JsonNode e = block.path("ensemble");
      return String.format(
          Locale.ROOT,
          "block %d: %d of %d frames decided in time",
          blocks.size(),
          e.path("decided_on_time").asLong(),
          block.path("frames").asLong());
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /**
   * The mean of the rates a pod printed between two moments (System.nanoTime), each over the few
   * seconds before it; empty when it printed none then.
   */
  OptionalDouble meanRate(String pod, long from, long to) {
    return rates.getOrDefault(pod, List.of()).stream()
        .filter(r -> r.at() > from && r.at() <= to)
        .mapToDouble(Rate::perSecond)
        .average();
  }

  /** The latest block the voter reported, for the live screen. */
  String render() {
    if (!expected()) {
      return "";
    }
    List<String> lines = new ArrayList<>();
    if (blocks.isEmpty()) {
      lines.add(
          "PyTorch ensemble: the voter reports each block of frames once it closes; none yet");
    } else {
      JsonNode b = blocks.getLast();
      lines.add(
          String.format(
              Locale.ROOT,
              "PyTorch ensemble, the voter's block %d (frames %d.., %d frames, deadline %.1f ms):",
              blocks.size(),
              b.path("first_frame").asLong(),
              b.path("frames").asLong(),
              deadlineNanos / 1e6));
      lines.add(
          String.format(
              Locale.ROOT,
              "  %-10s %6s %8s %8s %8s %6s %8s %7s",
              "MODEL",
              "VOTES",
              "P50",
              "P99",
              "MAX",
              "LATE",
              "MISSING",
              "MISSES"));
      b.path("models")
          .properties()
          .forEach(
              m ->
                  lines.add(
                      String.format(
                          Locale.ROOT,
                          "  %-10s %6d %8s %8s %8s %6d %8d %6.2f%%",
                          m.getKey(),
                          m.getValue().path("count").asLong(),
                          millis(m.getValue().path("p50_us")),
                          millis(m.getValue().path("p99_us")),
                          millis(m.getValue().path("max_us")),
                          m.getValue().path("late_votes").asLong(),
                          m.getValue().path("missing_votes").asLong(),
                          100 * m.getValue().path("miss_rate").asDouble())));
      lines.add("  " + ensemble(b));
    }
    return String.join(System.lineSeparator(), lines);
  }

  /** One line per block the voter reported, for the closing summary. */
  List<String> summary() {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      JsonNode b = blocks.get(i);
      List<String> parts = new ArrayList<>();
      b.path("models")
          .properties()
          .forEach(
              m ->
                  parts.add(
                      String.format(
                          Locale.ROOT,
                          "%s p50 %s p99 %s max %s, %d late + %d missing",
                          m.getKey(),
                          millis(m.getValue().path("p50_us")),
                          millis(m.getValue().path("p99_us")),
                          millis(m.getValue().path("max_us")),
                          m.getValue().path("late_votes").asLong(),
                          m.getValue().path("missing_votes").asLong())));
      lines.add(
          String.format(
              Locale.ROOT,
              "PyTorch voter block %d (frames %d.., %d): %s; %s",
              i + 1,
              b.path("first_frame").asLong(),
              b.path("frames").asLong(),
              String.join("; ", parts),
              ensemble(b)));
    }
    return lines;
  }

  /** What went wrong with the ensemble, empty when every model voted and the voter reported. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    for (String model : expected) {
      LatencyStats stats = models.get(model);
      if (stats == null || stats.snapshot().launches() == 0) {
        problems.add("PyTorch model " + model + " sent the voter no vote");
      }
    }
    if (expected() && blocks.isEmpty()) {
      problems.add("the PyTorch voter reported no block of frames (the run was too short?)");
    }
    return problems;
  }

  private static String ensemble(JsonNode b) {
    JsonNode e = b.path("ensemble");
    return String.format(
        Locale.ROOT,
        "ensemble: %d undecided in time (%.2f%%), %d decided correctly",
        e.path("undecided").asLong(),
        100 * e.path("miss_rate").asDouble(),
        e.path("decided_correctly").asLong());
  }

  private static String millis(JsonNode us) {
    return us.isNumber() ? String.format(Locale.ROOT, "%.2fms", us.asDouble() / 1000) : "-";
  }

  private static java.util.Optional<String> option(List<String> args, String name) {
    return args.stream()
        .filter(a -> a.startsWith(name + "="))
        .map(a -> a.substring(name.length() + 1))
        .findFirst();
  }
}
