package io.smslice.agent.server;

import io.smslice.agent.transparent.AttachedProcess;
import io.smslice.agent.transparent.AttachedProcesses;
import io.smslice.agent.transparent.HostPids;
import io.smslice.agent.transparent.SliceGeometry;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.GpuException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;

/**
 * Everything that serves one claim: its executor (green context, sessions) and its socket. The same
 * server runs inside the agent or, per claim, in a worker process.
 */
public final class ClaimServer implements AutoCloseable {
  public static final String SOCKET_NAME = "agent.sock";

  /** Sub-directory of the claim directory holding session files; listable by the agent only. */
  public static final String SESSION_DIRECTORY = "s";

  /** Where and how a claim is served. */
  public record Spec(
      String namespace,
      String name,
      String gpuUuid,
      List<Integer> groups,
      long memoryQuota,
      Path directory) {
    public String key() {
      return namespace + "/" + name;
    }
  }

  /**
   * Per-server limits, and whether the claim can serve unmodified programs.
   *
   * @param underMps the claim's CUDA work runs as a client of its GPU's MPS server, so unmodified
   *     programs that attach (themselves MPS clients) are confined by their own green contexts
   */
  public record Settings(
      long sharedDataBytes,
      int maxSessions,
      int maxFrameBytes,
      ConnectionLimits connections,
      boolean underMps) {
    /** In the agent's process: no MPS server, default connection limits. */
    public Settings(long sharedDataBytes, int maxSessions, int maxFrameBytes) {
      this(sharedDataBytes, maxSessions, maxFrameBytes, ConnectionLimits.DEFAULTS, false);
    }
  }

  private final Spec spec;
  private final ClaimRuntime runtime;
  private final ClaimSocket socket;
  private final AttachedProcesses attached;
  private final SessionDirectory sessions;

  private ClaimServer(
      Spec spec,
      ClaimRuntime runtime,
      ClaimSocket socket,
      AttachedProcesses attached,
      SessionDirectory sessions) {
    this.spec = spec;
    this.runtime = runtime;
    this.socket = socket;
    this.attached = attached;
    this.sessions = sessions;
  }

  public static ClaimServer start(
      Spec spec,
      GpuBackend backend,
      Settings settings,
      TokenCheck tokens,
      ClaimRuntime.FaultListener faults)
      throws GpuException, IOException {
    return start(spec, backend, settings, tokens, faults, HostPids.system());
  }

  /** As above, finding attached processes' host pids with {@code hostPids}. */
  public static ClaimServer start(
      Spec spec,
      GpuBackend backend,
      Settings settings,
      TokenCheck tokens,
      ClaimRuntime.FaultListener faults,
      HostPids hostPids)
      throws GpuException, IOException {
    GpuDevice device = backend.device(spec.gpuUuid());
    Files.createDirectories(spec.directory());
    // The claim directory is the mount root tenants see; its parent is the agent's alone.
    Files.setPosixFilePermissions(spec.directory(), PosixFilePermissions.fromString("rwxr-xr-x"));
    SessionDirectory sessions = SessionDirectory.open(spec.directory(), SESSION_DIRECTORY);
    ClaimRuntime runtime;
    try {
      runtime =
          ClaimRuntime.start(
              spec.key(),
              backend,
              spec.gpuUuid(),
              spec.groups(),
              spec.memoryQuota(),
              new ClaimRuntime.Limits(sessions, settings.sharedDataBytes(), settings.maxSessions()),
              faults);
    } catch (GpuException | RuntimeException e) {
      sessions.close();
      throw e;
    }
    AttachedProcesses attached =
        new AttachedProcesses(settings.connections().maxAttached(), hostPids, Clock.systemUTC());
    ClaimSocket.Transparent transparent =
        new ClaimSocket.Transparent(
            attached,
            () ->
                new SliceGeometry(
                    device.uuid(),
                    device.minPartitionSize(),
                    device.split().size(),
                    runtime.groups(),
                    runtime.sms()),
            settings.underMps()
                ? null
                : "claim "
                    + spec.key()
                    + " runs in the agent's own CUDA context and its GPU runs no MPS server for"
                    + " it: an unmodified program would be time-sliced with the agent, not"
                    + " confined to the claim's SMs (the node's runMode must be worker)");
    try {
      ClaimSocket socket =
          ClaimSocket.open(
              spec.directory().resolve(SOCKET_NAME),
              new ClaimSocket.Identity(spec.key(), backend.backendName(), backend.simulated()),
              tokens,
              runtime,
              settings.maxFrameBytes(),
              transparent,
              settings.connections());
      return new ClaimServer(spec, runtime, socket, attached, sessions);
    } catch (IOException e) {
      runtime.close();
      sessions.close();
      throw e;
    }
  }

  public Spec spec() {
    return spec;
  }

  public ClaimRuntime runtime() {
    return runtime;
  }

  public Path socketPath() {
    return socket.path();
  }

  /** The unmodified programs' processes attached to the claim now. */
  public List<AttachedProcess> attachedProcesses() {
    return attached.list();
  }

  @Override
  public void close() {
    socket.close();
    runtime.close();
    try {
      sessions.close();
    } catch (IOException e) {
      // Only a handle on a directory.
    }
  }
}
