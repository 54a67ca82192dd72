package io.smslice.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.gpu.simulated.SimulatedBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the simulated backend models so that agent bugs show in fast tests: which green context a
 * stream, module, event or graph belongs to, and the order streams and events impose on work.
 */
class SimulatedOrderingTest {
  private static final byte[] PTX =
      ".visible .entry fill_u32() { ret; }\n.visible .entry record_smid() { ret; }\n"
          .getBytes(StandardCharsets.UTF_8);

  private final SimulatedBackend backend = SimulatedBackend.h200(1);
  private final String gpu = backend.devices().getFirst().uuid();

  private static List<KernelArg> fillArgs(long buffer, int value) {
    return List.of(new KernelArg.Pointer(buffer), new KernelArg.I32(value), new KernelArg.I32(1));
  }

  private static int read(GpuStream stream, long buffer) throws GpuException {
    MemorySegment out = Arena.ofAuto().allocate(4);
    stream.copyToHost(out, buffer);
    stream.synchronize();
    return out.get(ValueLayout.JAVA_INT, 0);
  }

  @Test
  void workOfAnotherStreamIsOrderedOnlyByAnEventWait() throws Exception {
    GreenContext context = backend.createGreenContext(gpu, List.of(0));
    GpuFunction fill = context.loadModule(PTX).function("fill_u32");
    GpuStream producer = context.createStream();
    GpuStream consumer = context.createStream();
    GpuEvent done = context.createEvent();
    long buffer = context.allocate(4);

    producer.launch(fill, LaunchGeometry.of(1, 1), fillArgs(buffer, 7));
    producer.record(done);
    // Recording on the consumer instead of waiting orders nothing: the fill has not run.
    consumer.record(context.createEvent());
    assertThat(read(consumer, buffer)).isZero();

    consumer.waitFor(done);
    assertThat(read(consumer, buffer)).isEqualTo(7);
  }

  @Test
  void aWaitIsForTheEventsRecordAtTheTimeOfTheWait() throws Exception {
    GreenContext context = backend.createGreenContext(gpu, List.of(0));
    GpuFunction fill = context.loadModule(PTX).function("fill_u32");
    GpuStream producer = context.createStream();
    GpuStream consumer = context.createStream();
    GpuEvent event = context.createEvent();
    long buffer = context.allocate(4);

    consumer.waitFor(event); // never recorded: complete at once
    producer.record(event);
    producer.launch(fill, LaunchGeometry.of(1, 1), fillArgs(buffer, 1));
    consumer.waitFor(event); // recorded before the fill
    assertThat(read(consumer, buffer)).isZero();
    event.synchronize();
    assertThat(read(consumer, buffer)).isZero();
    producer.synchronize();
    assertThat(read(consumer, buffer)).isEqualTo(1);
  }

  /** Recording the event again after the wait was issued, before the wait runs, changes nothing. */
  @Test
  void aLaterRecordDoesNotMoveAWaitAlreadyIssued() throws Exception {
    GreenContext context = backend.createGreenContext(gpu, List.of(0));
    GpuFunction fill = context.loadModule(PTX).function("fill_u32");
    GpuStream producer = context.createStream();
    GpuStream consumer = context.createStream();
    GpuEvent event = context.createEvent();
    long before = context.allocate(4);
    long after = context.allocate(4);

    producer.launch(fill, LaunchGeometry.of(1, 1), fillArgs(before, 1));
    producer.record(event);
    consumer.waitFor(event);
    producer.launch(fill, LaunchGeometry.of(1, 1), fillArgs(after, 2));
    producer.record(event);
    assertThat(read(consumer, before)).as("the fill before the wait's record").isEqualTo(1);
    assertThat(read(consumer, after)).as("the fill after it, not waited for").isZero();
    producer.synchronize();
    assertThat(read(consumer, after)).isEqualTo(2);
  }

  @Test
  void eventsRecordOnlyOnStreamsOfTheirContext() throws Exception {
    GreenContext a = backend.createGreenContext(gpu, List.of(0));
    GreenContext b = backend.createGreenContext(gpu, List.of(1));
    GpuEvent event = a.createEvent();
    assertThatThrownBy(() -> b.createStream().record(event))
        .hasMessageContaining("different contexts");
    GpuStream onA = a.createStream();
    onA.record(event);
    b.createStream().waitFor(event); // waits across contexts of one GPU are allowed
  }

  @Test
  void kernelsRunOnTheSmsOfTheirStreamsContext() throws Exception {
    GreenContext first = backend.createGreenContext(gpu, List.of(0));
    GreenContext second = backend.createGreenContext(gpu, List.of(3));
    GpuStream stream = second.createStream();
    long ids = second.allocate(4 * 32);
    stream.launch(
        second.loadModule(PTX).function("record_smid"),
        LaunchGeometry.of(32, 1),
        List.of(new KernelArg.Pointer(ids)));
    MemorySegment out = Arena.ofAuto().allocate(4 * 32);
    stream.copyToHost(out, ids);
    stream.synchronize();
    // Group 3 of the H200 split holds SMs 24..31.
    assertThat(Arrays.stream(out.toArray(ValueLayout.JAVA_INT)).distinct().sorted().toArray())
        .containsExactly(24, 25, 26, 27, 28, 29, 30, 31);
    GpuFunction ofFirst = first.loadModule(PTX).function("record_smid");
    assertThatThrownBy(
            () ->
                stream.launch(
                    ofFirst, LaunchGeometry.of(1, 1), List.of(new KernelArg.Pointer(ids))))
        .hasMessageContaining("loaded in another context");
  }

  @Test
  void objectsOfADestroyedContextFailButItsMemoryStays() throws Exception {
    GreenContext old = backend.createGreenContext(gpu, List.of(0));
    GpuFunction fill = old.loadModule(PTX).function("fill_u32");
    GpuStream stream = old.createStream();
    GpuEvent event = old.createEvent();
    long buffer = old.allocate(4);
    stream.launch(fill, LaunchGeometry.of(1, 1), fillArgs(buffer, 9));
    stream.beginCapture();
    stream.launch(fill, LaunchGeometry.of(1, 1), fillArgs(buffer, 10));
    GpuGraph graph = stream.endCapture();
    old.close(); // queued work finishes first

    assertThatThrownBy(stream::synchronize).hasMessageContaining("destroyed");
    assertThatThrownBy(() -> stream.record(event)).hasMessageContaining("destroyed");
    assertThatThrownBy(old::createStream).hasMessageContaining("destroyed");
    GreenContext next = backend.createGreenContext(gpu, List.of(1));
    GpuStream moved = next.createStream();
    assertThat(read(moved, buffer)).isEqualTo(9);
    assertThatThrownBy(() -> moved.launch(fill, LaunchGeometry.of(1, 1), fillArgs(buffer, 1)))
        .hasMessageContaining("another context");
    assertThatThrownBy(() -> moved.launchGraph(graph)).hasMessageContaining("another context");
  }

  @Test
  void aFullQueueRunsItsOldestWorkAndDestroyingAStreamFinishesIt() throws Exception {
    GreenContext context = backend.createGreenContext(gpu, List.of(0));
    GpuFunction fill = context.loadModule(PTX).function("fill_u32");
    GpuStream stream = context.createStream();
    GpuStream reader = context.createStream();
    long first = context.allocate(4);
    long last = context.allocate(4);
    stream.launch(fill, LaunchGeometry.of(1, 1), fillArgs(first, 1));
    for (int i = 0; i < 1025; i++) {
      stream.launch(fill, LaunchGeometry.of(1, 1), fillArgs(last, 2));
    }
    assertThat(read(reader, first)).isEqualTo(1);
    assertThat(read(reader, last)).isEqualTo(2); // 1,024 still queued, the oldest two ran
    stream.launch(fill, LaunchGeometry.of(1, 1), fillArgs(last, 3));
    assertThat(read(reader, last)).isEqualTo(2);
    stream.close();
    assertThat(read(reader, last)).isEqualTo(3);
  }

  @Test
  void freeWaitsForTheContextsQueuedWork() throws Exception {
    GreenContext context = backend.createGreenContext(gpu, List.of(0));
    GpuStream stream = context.createStream();
    long buffer = context.allocate(4);
    long other = context.allocate(4);
    stream.fill(other, (byte) 5, 4);
    context.free(buffer);
    assertThat(read(context.createStream(), other)).isEqualTo(0x05050505);
  }
}
