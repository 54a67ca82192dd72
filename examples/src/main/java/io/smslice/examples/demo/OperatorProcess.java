package io.smslice.examples.demo;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator, run as it ships: its Quarkus fast-jar in a child JVM, pointed at the demo's API
 * server. Its log goes to a file; start-up waits for its readiness endpoint.
 */
final class OperatorProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final int httpPort;
  private final int webhookPort;

  private OperatorProcess(Process process, Path log, int httpPort, int webhookPort) {
    this.process = process;
    this.log = log;
    this.httpPort = httpPort;
    this.webhookPort = webhookPort;
  }

  static OperatorProcess start(Path fastJar, String apiServerUrl, Path workDir)
      throws IOException, InterruptedException {
    if (!Files.isRegularFile(fastJar)) {
      throw new IOException(
          "operator not built: "
              + fastJar
              + " is missing (run ./mvnw -q -DskipTests install -pl operator)");
    }
    int httpPort = freePort();
    int webhookPort = freePort();
    WebhookCertificate certificate = WebhookCertificate.create(workDir.resolve("webhook-tls"));
    Path log = workDir.resolve("operator.log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "--sun-misc-unsafe-memory-access=allow",
            "-Dquarkus.analytics.disabled=true",
            "-Dquarkus.kubernetes-client.api-server-url=" + apiServerUrl,
            "-Dquarkus.kubernetes-client.trust-certs=true",
            "-Dquarkus.kubernetes-client.namespace=default",
            "-Dquarkus.operator-sdk.enable-ssa=false",
            "-Dquarkus.http.host=127.0.0.1",
            "-Dquarkus.http.port=" + httpPort,
            "-Dquarkus.http.ssl-port=" + webhookPort,
            "-Dquarkus.http.ssl.certificate.files=" + certificate.certificate(),
            "-Dquarkus.http.ssl.certificate.key-files=" + certificate.key(),
            "-jar",
            fastJar.toString()));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .directory(workDir.toFile());
    builder
        .environment()
        .putAll(Map.of("POD_NAMESPACE", "default", "POD_NAME", "smslice-operator-demo"));
    OperatorProcess operator = new OperatorProcess(builder.start(), log, httpPort, webhookPort);
    operator.awaitReady(Duration.ofSeconds(60));
    return operator;
  }

  URI webhook() {
    return URI.create("https://127.0.0.1:" + webhookPort + "/mutate-pods");
  }

  Path log() {
    return log;
  }

  private void awaitReady(Duration timeout) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    URI ready = URI.create("http://127.0.0.1:" + httpPort + "/q/health/ready");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            "operator exited with " + process.exitValue() + " during start-up:\n" + tail());
      }
      try {
        if (http.send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode()
            == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    throw new IOException("operator not ready after " + timeout.toSeconds() + " s:\n" + tail());
  }

  /** The end of the operator's log, for error messages. */
  String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
