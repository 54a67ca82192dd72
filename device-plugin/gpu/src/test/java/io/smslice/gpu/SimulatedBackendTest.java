package io.smslice.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.gpu.simulated.SimulatedBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatedBackendTest {
  private static final byte[] PTX =
      (".version 8.0\n.target sm_90\n.visible .entry fill_u32(\n.param .u64 a)\n{ ret; }\n"
              + ".visible .entry load_u32() { ret; }\n.visible .entry record_smid() { ret; }\n"
              + ".visible .entry own_kernel() { ret; }\n")
          .getBytes(StandardCharsets.UTF_8);

  private final SimulatedBackend backend = SimulatedBackend.h200(2);
  private final String gpu = backend.devices().getFirst().uuid();

  @Test
  void inventoryIsH200Shaped() {
    assertThat(backend.simulated()).isTrue();
    assertThat(backend.backendName()).isEqualTo("simulated");
    GpuDevice device = backend.devices().getFirst();
    assertThat(device.smCount()).isEqualTo(132);
    assertThat(device.minPartitionSize()).isEqualTo(8);
    assertThat(device.split()).hasSize(16);
    assertThat(device.split().get(15)).isEqualTo(new SplitGroup(15, 12));
    assertThat(device.memoryBytes()).isEqualTo(141L << 30);
    assertThat(backend.devices().get(1).uuid()).isNotEqualTo(gpu);
  }

  @Test
  void eachSimulatedNodeHasItsOwnGpuUuids() {
    List<String> a =
        SimulatedBackend.h200(2, "node-a").devices().stream().map(GpuDevice::uuid).toList();
    List<String> b =
        SimulatedBackend.h200(2, "node-b").devices().stream().map(GpuDevice::uuid).toList();
    assertThat(a).doesNotContainAnyElementsOf(b).doesNotHaveDuplicates();
    assertThat(a)
        .allMatch(u -> u.matches("GPU-51a0a7ed-[0-9a-f]{4}-4[0-9a-f]{3}-8000-[0-9a-f]{12}"));
    assertThat(SimulatedBackend.h200(2, "node-a").devices().get(1).uuid()).isEqualTo(a.get(1));
    // without a node, the plain form tests and demos rely on
    assertThat(SimulatedBackend.h200Device(3).uuid())
        .isEqualTo("GPU-51a0a7ed-0000-4000-8000-000000000003");
    assertThat(SimulatedBackend.uuid(null, 3)).isEqualTo(SimulatedBackend.h200Device(3).uuid());
    assertThat(Backends.open("simulated", "node-a", 2).devices())
        .extracting(GpuDevice::uuid)
        .isEqualTo(a);
    assertThat(SimulatedBackend.h200WithUuid(a.get(1)).devices().getFirst().uuid())
        .isEqualTo(a.get(1));
  }

  @Test
  void greenContextSumsItsGroupsAndRejectsBadOnes() throws Exception {
    assertThat(backend.createGreenContext(gpu, List.of(0, 15)).smCount()).isEqualTo(20);
    assertThatThrownBy(() -> backend.createGreenContext(gpu, List.of()))
        .hasMessageContaining("at least one group");
    assertThatThrownBy(() -> backend.createGreenContext(gpu, List.of(3, 3)))
        .hasMessageContaining("repeated or not in the split");
    assertThatThrownBy(() -> backend.createGreenContext(gpu, List.of(16)))
        .hasMessageContaining("groups 0..15");
    assertThatThrownBy(() -> backend.createGreenContext("GPU-nope", List.of(0)))
        .hasMessageContaining("no GPU GPU-nope");
  }

  @Test
  void kernelsAndCopiesMoveRealBytes() throws Exception {
    GreenContext context = backend.createGreenContext(gpu, List.of(0, 1));
    GpuStream stream = context.createStream();
    GpuModule module = context.loadModule(PTX);
    long buffer = context.allocate(64);
    stream.launch(
        module.function("fill_u32"),
        LaunchGeometry.of(1, 16),
        List.of(new KernelArg.Pointer(buffer), new KernelArg.I32(7), new KernelArg.I32(16)));
    MemorySegment host = Arena.ofAuto().allocate(64);
    stream.copyToHost(host, buffer);
    stream.synchronize();
    assertThat(host.getAtIndex(ValueLayout.JAVA_INT, 15)).isEqualTo(7);

    long smids = context.allocate(4 * 64);
    stream.launch(
        module.function("record_smid"),
        LaunchGeometry.of(64, 32),
        List.of(new KernelArg.Pointer(smids)));
    MemorySegment ids = Arena.ofAuto().allocate(4 * 64);
    stream.copyToHost(ids, smids);
    stream.synchronize();
    assertThat(java.util.Arrays.stream(ids.toArray(ValueLayout.JAVA_INT)).distinct().count())
        .isEqualTo(16);

    assertThatThrownBy(() -> module.function("own_kernel"))
        .hasMessageContaining("no CPU implementation");
    assertThatThrownBy(() -> module.function("vector_add")).hasMessageContaining("no kernel");
  }

  @Test
  void elementwiseKernelsWriteEveryElementAndNoMore() throws Exception {
    byte[] ptx =
        (".version 8.0\n.target sm_90\n.visible .entry fill_u32() { ret; }\n"
                + ".visible .entry vector_add() { ret; }\n")
            .getBytes(StandardCharsets.UTF_8);
    GreenContext context = backend.createGreenContext(gpu, List.of(0, 1));
    GpuStream stream = context.createStream();
    GpuModule module = context.loadModule(ptx);
    int n = 10_001; // two whole chunks of the CPU implementation and a part of one
    long bytes = 4L * (n + 1);
    long a = context.allocate(bytes);
    long b = context.allocate(bytes);
    long c = context.allocate(bytes);
    MemorySegment host = Arena.ofAuto().allocate(bytes);
    for (int i = 0; i <= n; i++) {
      host.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
    }
    stream.copyToDevice(a, host);
    stream.copyToDevice(b, host);
    stream.fill(c, (byte) 0, bytes);
    stream.launch(
        module.function("vector_add"),
        LaunchGeometry.of((n + 255) / 256, 256),
        List.of(
            new KernelArg.Pointer(a),
            new KernelArg.Pointer(b),
            new KernelArg.Pointer(c),
            new KernelArg.I32(n)));
    stream.launch(
        module.function("fill_u32"),
        LaunchGeometry.of((n + 255) / 256, 256),
        List.of(new KernelArg.Pointer(a), new KernelArg.I32(-7), new KernelArg.I32(n)));
    MemorySegment sums = Arena.ofAuto().allocate(bytes);
    MemorySegment filled = Arena.ofAuto().allocate(bytes);
    stream.copyToHost(sums, c);
    stream.copyToHost(filled, a);
    stream.synchronize();

    for (int i = 0; i < n; i++) {
      assertThat(sums.getAtIndex(ValueLayout.JAVA_FLOAT, i)).as("sum %d", i).isEqualTo(2f * i);
      assertThat(filled.getAtIndex(ValueLayout.JAVA_INT, i)).as("fill %d", i).isEqualTo(-7);
    }
    assertThat(sums.getAtIndex(ValueLayout.JAVA_FLOAT, n)).isZero();
    assertThat(filled.getAtIndex(ValueLayout.JAVA_FLOAT, n)).isEqualTo((float) n);
  }

  @Test
  void graphsReplayCapturedWork() throws Exception {
    GreenContext context = backend.createGreenContext(gpu, List.of(2));
    GpuStream stream = context.createStream();
    long buffer = context.allocate(4);
    MemorySegment one = Arena.ofAuto().allocate(4);
    one.set(ValueLayout.JAVA_INT, 0, 41);
    stream.beginCapture();
    stream.copyToDevice(buffer, one);
    GpuGraph graph = stream.endCapture();
    MemorySegment out = Arena.ofAuto().allocate(4);
    stream.copyToHost(out, buffer);
    stream.synchronize();
    assertThat(out.get(ValueLayout.JAVA_INT, 0)).isZero();
    stream.launchGraph(graph);
    stream.copyToHost(out, buffer);
    stream.synchronize();
    assertThat(out.get(ValueLayout.JAVA_INT, 0)).isEqualTo(41);
  }

  @Test
  void illegalAddressPoisonsTheGpuUntilReset() throws Exception {
    GreenContext faulty = backend.createGreenContext(gpu, List.of(0));
    GreenContext neighbour = backend.createGreenContext(gpu, List.of(1));
    GpuStream stream = faulty.createStream();
    GpuFunction load = faulty.loadModule(PTX).function("load_u32");
    long out = faulty.allocate(4);
    // The launch is accepted; the fault surfaces when the kernel runs, at the synchronization.
    stream.launch(
        load,
        LaunchGeometry.of(1, 1),
        List.of(new KernelArg.I64(0xdead0000L), new KernelArg.Pointer(out)));
    assertThatThrownBy(stream::synchronize)
        .isInstanceOfSatisfying(
            GpuException.class, e -> assertThat(e.error()).isEqualTo(GpuError.ILLEGAL_ADDRESS));
    assertThatThrownBy(() -> neighbour.allocate(4))
        .isInstanceOfSatisfying(GpuException.class, e -> assertThat(e.contextLost()).isTrue());

    backend.resetDevice(gpu);
    assertThatThrownBy(() -> neighbour.allocate(4)).hasMessageContaining("was reset");
    assertThat(backend.createGreenContext(gpu, List.of(1)).allocate(4)).isPositive();
    // The other GPU never noticed.
    String other = backend.devices().get(1).uuid();
    assertThat(backend.createGreenContext(other, List.of(0)).allocate(4)).isPositive();
  }

  @Test
  void outOfMemoryIsAClearError() throws Exception {
    GreenContext context = backend.createGreenContext(gpu, List.of(0));
    assertThatThrownBy(() -> context.allocate(200L << 30))
        .isInstanceOfSatisfying(
            GpuException.class, e -> assertThat(e.error()).isEqualTo(GpuError.OUT_OF_MEMORY));
  }
}
