package io.smslice.agent.server;

import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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

  /** Per-server limits. */
  public record Settings(long sharedDataBytes, int maxSessions, int maxFrameBytes) {}

  private final Spec spec;
  private final ClaimRuntime runtime;
  private final ClaimSocket socket;

  private ClaimServer(Spec spec, ClaimRuntime runtime, ClaimSocket socket) {
    this.spec = spec;
    this.runtime = runtime;
    this.socket = socket;
  }

  public static ClaimServer start(
      Spec spec,
      GpuBackend backend,
      Settings settings,
      TokenCheck tokens,
      ClaimRuntime.FaultListener faults)
      throws GpuException, IOException {
    Files.createDirectories(spec.directory());
    Path sessions = spec.directory().resolve(SESSION_DIRECTORY);
    Files.createDirectories(sessions);
    // Tenants may open a file whose name they were told, but not list the others.
    Files.setPosixFilePermissions(sessions, PosixFilePermissions.fromString("rwx--x--x"));
    Files.setPosixFilePermissions(spec.directory(), PosixFilePermissions.fromString("rwxr-xr-x"));
    ClaimRuntime runtime =
        ClaimRuntime.start(
            spec.key(),
            backend,
            spec.gpuUuid(),
            spec.groups(),
            spec.memoryQuota(),
            new ClaimRuntime.Limits(sessions, settings.sharedDataBytes(), settings.maxSessions()),
            faults);
    try {
      ClaimSocket socket =
          ClaimSocket.open(
              spec.directory().resolve(SOCKET_NAME),
              new ClaimSocket.Identity(spec.key(), backend.backendName(), backend.simulated()),
              tokens,
              runtime,
              settings.maxFrameBytes());
      return new ClaimServer(spec, runtime, socket);
    } catch (IOException e) {
      runtime.close();
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

  @Override
  public void close() {
    socket.close();
    runtime.close();
  }
}
