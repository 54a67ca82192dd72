package io.smslice.examples.workload;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The ensemble's voter: takes each model's ballot for a frame over HTTP ({@code POST /ballot}), and
 * decides the frame when two models agree. A frame is a deadline miss when no two models agreed
 * within the deadline; each model's late or missing ballots are counted too. It uses no GPU.
 */
final class Voter implements Workload {
  private static final List<String> MODELS = List.of("a", "b", "c");

  private final TreeMap<Long, Map<String, Ballot>> open = new TreeMap<>();
  private final Map<String, Long> modelMisses = new HashMap<>();
  private long decided;
  private long disagreements;
  private long late;
  private boolean allSeen;

  @Override
  public void run(WorkloadContext context) throws IOException, InterruptedException {
    int port = Integer.parseInt(context.option("port", "VOTER_PORT").orElse("8080"));
    long periodMs = context.longOption("period-ms", "FRAME_PERIOD_MS", EnsembleModel.PERIOD_MS);
    long deadlineNanos = context.longOption("deadline-us", "DEADLINE_US", 10_000) * 1_000;
    context.stats().deadline(deadlineNanos);
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 16);
    server.createContext(
        "/ballot",
        exchange -> {
          int code = 204;
          try (InputStream body = exchange.getRequestBody()) {
            Ballot ballot = Ballot.decode(new String(body.readAllBytes(), StandardCharsets.UTF_8));
            synchronized (this) {
              open.computeIfAbsent(ballot.frame(), f -> new HashMap<>())
                  .put(ballot.model(), ballot);
            }
          } catch (IllegalArgumentException e) {
            code = 400;
          }
          exchange.sendResponseHeaders(code, -1);
          exchange.close();
        });
    server.start();
    context.state().accept("listening on :" + port);
    try {
      while (!context.stopping().getAsBoolean()) {
        Thread.sleep(periodMs);
        // A frame is decided once every ballot that could still be on time has had its chance.
        long closeBefore =
            (System.currentTimeMillis() - periodMs - deadlineNanos / 1_000_000) / periodMs;
        synchronized (this) {
          decide(closeBefore, context.stats(), deadlineNanos);
        }
        context.state().accept(summary());
      }
    } finally {
      server.stop(0);
    }
  }

  private void decide(long closeBefore, LatencyStats stats, long deadlineNanos) {
    var frames = open.headMap(closeBefore);
    for (Map<String, Ballot> ballots : frames.values()) {
      // Frames before all three models first answered are start-up, not misses.
      allSeen |= ballots.keySet().containsAll(MODELS);
      if (!allSeen) {
        continue;
      }
      for (String model : MODELS) {
        Ballot b = ballots.get(model);
        if (b == null || b.latencyNanos() > deadlineNanos) {
          modelMisses.merge(model, 1L, Long::sum);
        }
      }
      Map<Long, List<Ballot>> byAnswer =
          ballots.values().stream()
              .filter(b -> b.latencyNanos() <= deadlineNanos)
              .collect(Collectors.groupingBy(Ballot::checksum));
      List<Ballot> majority =
          byAnswer.values().stream().filter(l -> l.size() >= 2).findFirst().orElse(null);
      decided++;
      if (majority == null) {
        // Two answers in time that differ are a disagreement; fewer than two is lateness.
        long onTime = byAnswer.values().stream().mapToLong(List::size).sum();
        if (onTime >= 2) {
          disagreements++;
        } else {
          late++;
        }
        stats.recordMiss();
      } else {
        // The frame was decided when the second agreeing model answered.
        long second =
            majority.stream()
                .mapToLong(Ballot::latencyNanos)
                .sorted()
                .skip(1)
                .findFirst()
                .orElseThrow();
        stats.record(second);
      }
    }
    frames.clear();
  }

  private String summary() {
    return "frames "
        + decided
        + ", no majority in time "
        + (disagreements + late)
        + " (disagreed "
        + disagreements
        + "), late or missing per model "
        + MODELS.stream()
            .map(m -> m + "=" + modelMisses.getOrDefault(m, 0L))
            .collect(Collectors.joining(" "));
  }
}
