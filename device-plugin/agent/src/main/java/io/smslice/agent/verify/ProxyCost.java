package io.smslice.agent.verify;

import static io.smslice.agent.verify.Report.f;

import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuModule;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.LaunchGeometry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The agent's cost against the same work done in-process through the cuda backend (JCuda on a green
 * stream of the same SM groups), measured side by side in one run.
 */
final class ProxyCost {
  static final int SYNC_ROUNDS = 20_000;
  static final int ASYNC_LAUNCHES = 100_000;
  static final long COPY_BYTES = 32L << 20;
  static final int COPY_ROUNDS = 20;

  private final Report report;

  ProxyCost(Report report) {
    this.report = report;
  }

  private record Numbers(
      double syncP50, double syncP99, double launchesPerSecond, double h2d, double d2h) {}

  void compare(
      GpuBackend backend, String gpu, List<Integer> groups, SmsliceClient client, byte[] kernels)
      throws GpuException {
    Numbers direct = inProcess(backend, gpu, groups, kernels);
    Numbers proxied = throughAgent(client, kernels);
    double syncRatio = proxied.syncP50 / direct.syncP50;
    report.check(
        "proxy cost: launch+sync p50, agent / in-process JCuda green stream",
        f(
            "%.3f (%.1f us vs %.1f us; p99 %.1f vs %.1f us)",
            syncRatio, proxied.syncP50, direct.syncP50, proxied.syncP99, direct.syncP99),
        "<= 1.3",
        syncRatio <= 1.3);
    double rateRatio = proxied.launchesPerSecond / direct.launchesPerSecond;
    report.check(
        "proxy cost: async launch rate, agent / in-process",
        f(
            "%.3f (%.0f/s vs %.0f/s)",
            rateRatio, proxied.launchesPerSecond, direct.launchesPerSecond),
        ">= 0.8",
        rateRatio >= 0.8);
    double h2d = proxied.h2d / direct.h2d;
    double d2h = proxied.d2h / direct.d2h;
    report.check(
        "proxy cost: copy bandwidth, shared memory / in-process pinned (32 MiB)",
        f(
            "H2D %.3f (%.1f vs %.1f GB/s), D2H %.3f (%.1f vs %.1f GB/s)",
            h2d, proxied.h2d, direct.h2d, d2h, proxied.d2h, direct.d2h),
        ">= 0.9 both",
        h2d >= 0.9 && d2h >= 0.9);
  }

  private static Numbers inProcess(
      GpuBackend backend, String gpu, List<Integer> groups, byte[] kernels) throws GpuException {
    GreenContext context = backend.createGreenContext(gpu, groups);
    context.makeCurrent();
    GpuStream stream = context.createStream();
    GpuModule module = context.loadModule(kernels);
    GpuFunction empty = module.function("empty");
    LaunchGeometry one = LaunchGeometry.of(1, 1);
    for (int i = 0; i < 1000; i++) {
      stream.launch(empty, one, List.of());
      stream.synchronize();
    }
    Samples sync = new Samples(SYNC_ROUNDS);
    for (int i = 0; i < SYNC_ROUNDS; i++) {
      long start = System.nanoTime();
      stream.launch(empty, one, List.of());
      stream.synchronize();
      sync.add(System.nanoTime() - start);
    }
    long start = System.nanoTime();
    for (int i = 0; i < ASYNC_LAUNCHES; i++) {
      stream.launch(empty, one, List.of());
    }
    stream.synchronize();
    double rate = ASYNC_LAUNCHES / ((System.nanoTime() - start) / 1e9);

    Arena arena = Arena.ofShared();
    MemorySegment host = arena.allocate(COPY_BYTES, 4096);
    context.registerHost(host);
    long device = context.allocate(COPY_BYTES);
    double[] gbs = new double[2];
    for (int direction = 0; direction < 2; direction++) {
      for (int warm = 0; warm < 3; warm++) {
        copy(stream, direction, host, device);
      }
      long t0 = System.nanoTime();
      for (int i = 0; i < COPY_ROUNDS; i++) {
        copy(stream, direction, host, device);
      }
      gbs[direction] = COPY_BYTES * (double) COPY_ROUNDS / (System.nanoTime() - t0);
    }
    context.unregisterHost(host);
    context.free(device);
    module.close();
    stream.close();
    context.close();
    arena.close();
    return new Numbers(sync.percentileMicros(50), sync.percentileMicros(99), rate, gbs[0], gbs[1]);
  }

  private static void copy(GpuStream stream, int direction, MemorySegment host, long device)
      throws GpuException {
    if (direction == 0) {
      stream.copyToDevice(device, host);
    } else {
      stream.copyToHost(host, device);
    }
    stream.synchronize();
  }

  private static Numbers throughAgent(SmsliceClient client, byte[] kernels) {
    Stream stream = client.createStream();
    Kernel empty = client.kernel(client.loadModule(kernels), "empty");
    for (int i = 0; i < 1000; i++) {
      client.launch(empty, stream, 1, 1);
      client.synchronize(stream);
    }
    Samples sync = new Samples(SYNC_ROUNDS);
    for (int i = 0; i < SYNC_ROUNDS; i++) {
      long start = System.nanoTime();
      client.launch(empty, stream, 1, 1);
      client.synchronize(stream);
      sync.add(System.nanoTime() - start);
    }
    long start = System.nanoTime();
    for (int i = 0; i < ASYNC_LAUNCHES; i++) {
      client.launch(empty, stream, 1, 1);
    }
    client.synchronize(stream);
    double rate = ASYNC_LAUNCHES / ((System.nanoTime() - start) / 1e9);

    Buffer device = client.allocate(COPY_BYTES);
    double[] gbs = new double[2];
    for (int direction = 0; direction < 2; direction++) {
      for (int warm = 0; warm < 3; warm++) {
        copy(client, stream, direction, device);
      }
      long t0 = System.nanoTime();
      for (int i = 0; i < COPY_ROUNDS; i++) {
        copy(client, stream, direction, device);
      }
      gbs[direction] = COPY_BYTES * (double) COPY_ROUNDS / (System.nanoTime() - t0);
    }
    client.free(device);
    return new Numbers(sync.percentileMicros(50), sync.percentileMicros(99), rate, gbs[0], gbs[1]);
  }

  private static void copy(SmsliceClient client, Stream stream, int direction, Buffer device) {
    if (direction == 0) {
      client.copyFromStaging(stream, device, 0, 0, COPY_BYTES);
    } else {
      client.copyToStaging(stream, device, 0, 0, COPY_BYTES);
    }
    client.synchronize(stream);
  }
}
