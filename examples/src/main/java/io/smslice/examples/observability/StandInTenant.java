package io.smslice.examples.observability;

import io.smslice.agent.guard.ClaimGuard;
import io.smslice.agent.guard.GpuGuard;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.protocol.Frames;
import io.smslice.protocol.GuardLayout;
import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A stand-in for an unmodified program in a transparent claim, for runs on the simulated GPU where
 * no CUDA program can run: one process doing what the interposer does for one (ATTACH on the
 * claim's socket, held open as the registration; a slot in the GPU's guard file with the claim's
 * priority; a green context of the groups ATTACH answered), then spin kernels on its own simulated
 * GPU. It allocates the given device memory and writes that figure to its report file, which the
 * simulated NVML lists as the process's memory.
 *
 * <p>{@code StandInTenant <socket> <claim ns/name> <token> <priority> <guard file> <MiB> <spin
 * cycles> <period us (0: back to back)> <report file>}; it runs until its parent exits.
 */
public final class StandInTenant {
  private static final String PTX = "/io/smslice/examples/kernels/kernels.ptx";

  private StandInTenant() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 9) {
      System.err.println(
          "usage: StandInTenant <socket> <claim> <token> <priority> <guard file> <MiB>"
              + " <spin cycles> <period us> <report file>");
      System.exit(2);
    }
    String claim = args[1];
    String priority = args[3];
    long memory = Long.parseLong(args[5]) << 20;
    long cycles = Long.parseLong(args[6]);
    long periodNanos = Long.parseLong(args[7]) * 1000;
    Path report = Path.of(args[8]);
    try (SocketChannel attached = attach(Path.of(args[0]), claim, args[2])) {
      Slice slice = slice(Frames.read(attached, 1 << 16));
      SimulatedBackend gpu = SimulatedBackend.h200(1);
      try (GreenContext context = gpu.createGreenContext(slice.gpu(), slice.groups());
          GpuStream stream = context.createStream();
          ClaimGuard guard = joinGuard(Path.of(args[4]), claim, priority).orElse(null)) {
        context.allocate(memory);
        Files.writeString(report, Long.toString(memory));
        GpuFunction spin = context.loadModule(ptx()).function("spin");
        LaunchGeometry geometry = LaunchGeometry.of(slice.sms(), 256);
        List<KernelArg> spinArgs = List.of(new KernelArg.I64(cycles));
        ProcessHandle parent = ProcessHandle.current().parent().orElseThrow();
        while (parent.isAlive()) {
          long start = System.nanoTime();
          if (guard != null) {
            guard.beforeQueue();
          }
          stream.launch(spin, geometry, spinArgs);
          if (guard != null) {
            guard.queued(stream, context);
          }
          if (periodNanos > 0) {
            // A latency-critical frame: wait for it, then sleep to the next period.
            if (guard != null) {
              guard.awaitOldest();
            }
            stream.synchronize();
            long left = periodNanos - (System.nanoTime() - start);
            if (left > 0) {
              Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            }
          }
        }
        stream.synchronize();
      }
    }
  }

  private record Slice(String gpu, List<Integer> groups, int sms) {}

  /** The interposer's ATTACH (docs/tenant-protocol.md). */
  private static SocketChannel attach(Path socket, String claim, String token) throws Exception {
    ByteBuffer payload = ByteBuffer.allocate(4096);
    Frames.putString(payload, claim);
    Frames.putString(payload, token);
    payload.putInt((int) ProcessHandle.current().pid());
    Frames.putString(payload, Files.readAllLines(Path.of("/proc/self/cgroup")).getFirst());
    Frames.putString(payload, "stand-in-tenant");
    // The claim's worker may be restarting (after a fault): try for 30 s, as a restarted pod would.
    long deadline = System.nanoTime() + 30_000_000_000L;
    SocketChannel channel;
    while (true) {
      channel = SocketChannel.open(StandardProtocolFamily.UNIX);
      try {
        channel.connect(UnixDomainSocketAddress.of(socket));
        break;
      } catch (java.io.IOException e) {
        channel.close();
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
    Frames.write(channel, Op.ATTACH.code, payload.flip());
    return channel;
  }

  private static Slice slice(ByteBuffer answer) {
    if (answer == null) {
      throw new IllegalStateException("the agent closed the claim socket without answering ATTACH");
    }
    Status status = Status.of(answer.get());
    if (status != Status.OK) {
      throw new IllegalStateException(
          "ATTACH refused (" + status + "): " + StandardCharsets.UTF_8.decode(answer));
    }
    String gpu = Frames.getString(answer);
    answer.getInt(); // minimum partition
    answer.getInt(); // split entries
    int count = answer.getInt();
    List<Integer> groups = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      groups.add(answer.getInt());
    }
    return new Slice(gpu, groups, answer.getInt());
  }

  /** A slot with the claim's priority, as the interposer's guard.c takes one. */
  private static Optional<ClaimGuard> joinGuard(Path file, String claim, String priority)
      throws Exception {
    int role =
        switch (priority) {
          case "LatencyCritical" -> GuardLayout.ROLE_LATENCY_CRITICAL;
          case "BestEffort" -> GuardLayout.ROLE_BEST_EFFORT;
          default -> 0;
        };
    if (role == 0 || !Files.exists(file)) {
      return Optional.empty();
    }
    return GpuGuard.open(file).join(claim, role);
  }

  private static byte[] ptx() throws Exception {
    try (InputStream in = StandInTenant.class.getResourceAsStream(PTX)) {
      if (in == null) {
        throw new IllegalStateException(PTX + " is missing from the classpath");
      }
      return in.readAllBytes();
    }
  }
}
