package io.smslice.agent.verify;

import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A tenant written against the client library, for the interposer's GPU verification beside
 * unmodified programs (device-plugin/interposer/verify): connects with its claim's environment
 * (SMSLICE_SOCKET, SMSLICE_CLAIM, SMSLICE_TOKEN), counts the distinct %smid of its blocks, and
 * prints one line of key=value results.
 *
 * <ul>
 *   <li>{@code ClientTenant <kernels.ptx> latency}: the agent verification's victim, launch+sync
 *       latency of a small spin kernel.
 *   <li>{@code ClientTenant <kernels.ptx> load <stop file>}: keeps every SM of the claim busy until
 *       the stop file exists; writes {@code <stop file>.started} once loading.
 * </ul>
 */
public final class ClientTenant {
  private ClientTenant() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2 || (args[1].equals("load") && args.length < 3)) {
      System.err.println("usage: ClientTenant <kernels.ptx> latency | load <stop file>");
      System.exit(2);
    }
    byte[] kernels = Files.readAllBytes(Path.of(args[0]));
    try (SmsliceClient client = SmsliceClient.fromEnvironment()) {
      int sms = ClaimChecks.smIds(client, kernels).size();
      switch (args[1]) {
        case "latency" -> {
          Stream stream = client.createStream();
          Kernel spin = client.kernel(client.loadModule(kernels), "spin");
          Samples samples = ClaimChecks.victimLatency(client, stream, spin);
          System.out.printf(
              "p50_us=%.1f p99_us=%.1f samples=%d distinct_sms=%d%n",
              samples.percentileMicros(50), samples.percentileMicros(99), ClaimChecks.SAMPLES, sms);
        }
        case "load" -> {
          Path stop = Path.of(args[2]);
          AtomicBoolean running = new AtomicBoolean(true);
          Thread load =
              Thread.ofPlatform().start(() -> ClaimChecks.saturate(client, kernels, running));
          Files.writeString(Path.of(args[2] + ".started"), "");
          while (!Files.exists(stop)) {
            Thread.sleep(50);
          }
          running.set(false);
          load.join();
          System.out.printf("distinct_sms=%d%n", sms);
        }
        default -> {
          System.err.println("unknown command " + args[1]);
          System.exit(2);
        }
      }
    }
  }
}
