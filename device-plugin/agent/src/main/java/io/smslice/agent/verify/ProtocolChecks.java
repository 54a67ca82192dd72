package io.smslice.agent.verify;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Event;
import io.smslice.client.Handles.Graph;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Module;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.client.SmsliceException;
import io.smslice.protocol.Status;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Every tenant operation once, through the agent, with its result checked. */
final class ProtocolChecks {
  private ProtocolChecks() {}

  /** Names of the checks that failed (empty when all passed). */
  static List<String> run(SmsliceClient client, SmsliceClient neighbour, byte[] kernels) {
    List<String> failed = new ArrayList<>();
    Stream stream = client.createStream();
    Stream second = client.createStream();
    Module module = client.loadModule(kernels);
    Kernel add = client.kernel(module, "vector_add");
    Kernel fill = client.kernel(module, "fill_u32");
    int n = 1 << 16;
    Buffer a = client.allocate(4L * n);
    Buffer b = client.allocate(4L * n);
    Buffer c = client.allocate(4L * n);
    float[] x = new float[n];
    float[] y = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = i;
      y[i] = 2 * i;
    }
    client.write(stream, a, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, x));
    client.write(stream, b, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, y));
    client.launch(
        add, stream, n / 256, 256, Arg.buffer(a), Arg.buffer(b), Arg.buffer(c), Arg.i32(n));
    float[] sum = floats(client, stream, c, n);
    boolean addOk = true;
    for (int i = 0; i < n; i++) {
      addOk &= sum[i] == 3f * i;
    }
    expect(failed, "copies + vector_add", addOk);

    client.fill(stream, a, 0, 4L * n, (byte) 0);
    client.launch(fill, stream, 1, 64, Arg.buffer(a, 4), Arg.i32(0x3f800000), Arg.i32(64));
    client.copy(stream, b, 0, a, 0, 4L * n);
    float[] copied = floats(client, stream, b, 66);
    expect(
        failed,
        "memset + fill_u32 at an offset + device copy",
        copied[0] == 0 && copied[1] == 1f && copied[64] == 1f && copied[65] == 0);

    Event event = client.createEvent();
    client.launch(fill, stream, n / 256, 256, Arg.buffer(c), Arg.i32(7), Arg.i32(n));
    client.record(event, stream);
    client.waitFor(second, event);
    client.copy(second, a, 0, c, 0, 4L * n);
    client.synchronize(event);
    client.synchronize(second);
    int[] ordered = ints(client, second, a, n);
    expect(failed, "events order two streams", Arrays.stream(ordered).allMatch(v -> v == 7));

    client.beginCapture(stream);
    client.launch(fill, stream, n / 256, 256, Arg.buffer(c), Arg.i32(0x40000000), Arg.i32(n));
    client.launch(
        add, stream, n / 256, 256, Arg.buffer(c), Arg.buffer(c), Arg.buffer(b), Arg.i32(n));
    Graph graph = client.endCapture(stream);
    client.launchGraph(graph, stream);
    int[] replay = ints(client, stream, b, 4);
    expect(
        failed,
        "graph capture + replay",
        Float.intBitsToFloat(replay[0]) == 4f && Float.intBitsToFloat(replay[3]) == 4f);
    client.destroy(graph);
    client.destroy(event);
    client.destroy(second);

    expect(
        failed,
        "memory quota enforced",
        status(() -> client.allocate(client.info().memoryQuota())) == Status.QUOTA_EXCEEDED);
    Stream theirs = neighbour.createStream();
    Kernel theirFill = neighbour.kernel(neighbour.loadModule(kernels), "fill_u32");
    // c is the first session's buffer; the neighbour session has none.
    neighbour.launch(theirFill, theirs, 1, 1, Arg.buffer(c), Arg.i32(1), Arg.i32(1));
    expect(
        failed,
        "foreign buffer handle refused",
        status(() -> neighbour.synchronize(theirs)) == Status.NOT_FOUND);
    client.free(a);
    client.free(b);
    client.free(c);
    client.unload(module);
    expect(
        failed,
        "unloaded module's kernels gone",
        status(() -> client.kernel(module, "fill_u32")) == Status.NOT_FOUND);
    return failed;
  }

  private static void expect(List<String> failed, String name, boolean ok) {
    System.out.println("[verify] protocol " + name + ": " + (ok ? "ok" : "FAILED"));
    if (!ok) {
      failed.add(name);
    }
  }

  private static Status status(Runnable call) {
    try {
      call.run();
      return Status.OK;
    } catch (SmsliceException e) {
      return e.status();
    }
  }

  private static float[] floats(SmsliceClient client, Stream stream, Buffer buffer, int n) {
    MemorySegment out = Arena.ofAuto().allocate(4L * n);
    client.read(stream, buffer, 0, out);
    return out.toArray(ValueLayout.JAVA_FLOAT);
  }

  private static int[] ints(SmsliceClient client, Stream stream, Buffer buffer, int n) {
    MemorySegment out = Arena.ofAuto().allocate(4L * n);
    client.read(stream, buffer, 0, out);
    return out.toArray(ValueLayout.JAVA_INT);
  }
}
