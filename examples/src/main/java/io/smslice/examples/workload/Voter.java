package io.smslice.examples.workload;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The ensemble's voter: takes each model's ballot for a frame over HTTP ({@code POST /ballot}), and
 * decides each frame by majority (see {@link VoteTally}) once every ballot that could still be on
 * time has had its chance. A frame without two agreeing models in time is a deadline miss. It uses
 * no GPU.
 */
final class Voter implements Workload {
  @Override
  public void run(WorkloadContext context) throws IOException, InterruptedException {
    int port = Integer.parseInt(context.option("port", "VOTER_PORT").orElse("8080"));
    long periodMs = context.longOption("period-ms", "FRAME_PERIOD_MS", EnsembleModel.PERIOD_MS);
    long deadlineNanos = context.longOption("deadline-us", "DEADLINE_US", 10_000) * 1_000;
    context.stats().deadline(deadlineNanos);
    VoteTally tally = new VoteTally(List.of("a", "b", "c"), deadlineNanos);
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 16);
    server.createContext(
        "/ballot",
        exchange -> {
          int code = 204;
          try (InputStream body = exchange.getRequestBody()) {
            tally.add(Ballot.decode(new String(body.readAllBytes(), StandardCharsets.UTF_8)));
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
        long now = System.currentTimeMillis();
        tally.closeBefore((now - periodMs - deadlineNanos / 1_000_000) / periodMs, context.stats());
        context.state().accept(tally.summary());
      }
    } finally {
      server.stop(0);
    }
  }
}
