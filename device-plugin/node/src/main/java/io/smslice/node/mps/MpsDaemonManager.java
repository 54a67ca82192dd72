package io.smslice.node.mps;

import io.smslice.gpu.MpsServers;
import io.smslice.node.metrics.NodeMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The MPS control daemons of this node, one per GPU that needs one (MPS-mode GPUs, and green GPUs
 * whose claims run as worker processes). Pipes and logs live under the run directory, {@code
 * mps/<gpu-uuid>/pipe} and {@code .../log}.
 */
public final class MpsDaemonManager implements MpsServers, AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(15);
  private final List<String> command;
  private final Function<String, Path> directoryOf;
  private final NodeMetrics metrics;
  private final Map<String, MpsDaemon> daemons = new ConcurrentHashMap<>();
  private volatile Optional<Integer> version;

  /**
   * @param command the control program, without arguments ({@code nvidia-cuda-mps-control})
   * @param directoryOf a GPU's MPS directory
   */
  public MpsDaemonManager(
      List<String> command, Function<String, Path> directoryOf, NodeMetrics metrics) {
    this.command = List.copyOf(command);
    this.directoryOf = directoryOf;
    this.metrics = metrics;
  }

  /** Starts the GPU's daemon unless it runs already. */
  public void start(String gpuUuid) throws IOException {
    MpsDaemon d =
        daemons.computeIfAbsent(
            gpuUuid,
            u -> new MpsDaemon(u, command, directoryOf.apply(u), () -> metrics.mpsDaemonStart(u)));
    if (!d.running()) {
      d.start();
    }
  }

  /** The control program's version (see {@link MpsControlVersion}), asked once. */
  public Optional<Integer> controlVersion() {
    Optional<Integer> v = version;
    if (v == null) {
      v = MpsControlVersion.query(command);
      version = v;
    }
    return v;
  }

  public boolean running(String gpuUuid) {
    MpsDaemon d = daemons.get(gpuUuid);
    return d != null && d.running();
  }

  /** The daemon's process id, or -1. */
  public long pid(String gpuUuid) {
    MpsDaemon d = daemons.get(gpuUuid);
    return d == null ? -1 : d.pid();
  }

  @Override
  public Path pipeDirectory(String gpuUuid) {
    MpsDaemon d = daemons.get(gpuUuid);
    return d != null ? d.pipe() : directoryOf.apply(gpuUuid).resolve("pipe");
  }

  /** Stops and starts the GPU's daemon; returns once the new one takes clients. */
  @Override
  public void restart(String gpuUuid) throws IOException {
    MpsDaemon d = daemons.get(gpuUuid);
    if (d == null) {
      throw new IllegalArgumentException("no MPS daemon is managed for GPU " + gpuUuid);
    }
    d.stop();
    d.start();
    d.awaitReady(READY_TIMEOUT);
  }

  /** Waits until the GPU's daemon takes clients (its control pipe exists). */
  public void awaitReady(String gpuUuid, Duration timeout) throws IOException {
    MpsDaemon d = daemons.get(gpuUuid);
    if (d == null) {
      throw new IllegalArgumentException("no MPS daemon is managed for GPU " + gpuUuid);
    }
    d.awaitReady(timeout);
  }

  @Override
  public void close() {
    daemons.values().parallelStream().forEach(MpsDaemon::stop);
  }
}
