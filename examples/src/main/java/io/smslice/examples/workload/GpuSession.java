package io.smslice.examples.workload;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Module;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * A workload's session with the agent serving its claim: the example kernels loaded (PTX built
 * ahead from kernels.cu, so no compiler is needed where it runs) and one stream.
 */
final class GpuSession implements AutoCloseable {
  private static final String PTX = "/io/smslice/examples/kernels/kernels.ptx";
  private static final int SMID_BLOCKS = 1024;

  final SmsliceClient client;
  final Stream stream;
  private final Module module;
  private Buffer smids;

  private GpuSession(SmsliceClient client) {
    this.client = client;
    this.module = client.loadModule(ptx());
    this.stream = client.createStream();
  }

  /** Connects with the environment the device plugin's Allocate gave the container. */
  static GpuSession open(WorkloadContext context) {
    return new GpuSession(
        SmsliceClient.connect(
            Path.of(context.required("SMSLICE_SOCKET")),
            context.required("SMSLICE_CLAIM"),
            context.required("SMSLICE_TOKEN")));
  }

  Kernel kernel(String name) {
    return client.kernel(module, name);
  }

  /**
   * Runs {@code record_smid} over many blocks and counts the distinct SM ids they report: the
   * number of SMs this session's kernels can actually run on.
   */
  int smsSeen() {
    if (smids == null) {
      smids = client.allocate(4L * SMID_BLOCKS);
    }
    client.launch(kernel("record_smid"), stream, SMID_BLOCKS, 32, Arg.buffer(smids));
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment ids = arena.allocate(4L * SMID_BLOCKS);
      client.read(stream, smids, 0, ids);
      Set<Integer> distinct = new HashSet<>();
      for (int i = 0; i < SMID_BLOCKS; i++) {
        distinct.add(ids.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i));
      }
      return distinct.size();
    }
  }

  /**
   * Records a frame's latency: its wall clock from {@code startNanos}, and on a simulated GPU also
   * its modelled GPU-side latency since {@code modelledStart} (from {@link #modelledGpuNanos()}).
   */
  void recordFrame(LatencyStats stats, long startNanos, long modelledStart) {
    long wall = System.nanoTime() - startNanos;
    long modelled = modelledGpuNanos();
    if (modelled < 0) {
      stats.record(wall);
    } else {
      stats.record(wall, modelled - modelledStart);
    }
  }

  /** The session's modelled GPU time so far on a simulated GPU; -1 on a real one. */
  long modelledGpuNanos() {
    return client.modelledGpuNanos().orElse(-1);
  }

  /** The SMs of the claim now, as the agent reports them (they change when it is resized). */
  int claimSms() {
    return (int) client.usage()[2];
  }

  private static byte[] ptx() {
    try (InputStream in = GpuSession.class.getResourceAsStream(PTX)) {
      if (in == null) {
        throw new IllegalStateException("kernels missing from the jar: " + PTX);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
