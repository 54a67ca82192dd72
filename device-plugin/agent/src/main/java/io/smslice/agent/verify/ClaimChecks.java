package io.smslice.agent.verify;

import static io.smslice.agent.verify.Report.f;

import io.smslice.agent.Agent;
import io.smslice.agent.BoundClaim;
import io.smslice.client.Arg;
import io.smslice.client.DeviceLostException;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

/** Confinement, isolation, resize and fault recovery through the agent, in either run mode. */
final class ClaimChecks {
  static final long VICTIM_CYCLES = 250_000;
  static final long AGGRESSOR_CYCLES = 20_000_000;
  static final int SAMPLES = 3000;
  static final int WARMUP = 3000;

  private final Agent agent;
  private final GpuBackend backend;
  private final GpuDevice gpu;
  private final byte[] kernels;
  private final Report report;
  private final String mode;
  final List<Integer> victimGroups;
  final List<Integer> aggressorGroups;

  ClaimChecks(Agent agent, GpuBackend backend, byte[] kernels, Report report, String mode) {
    this.agent = agent;
    this.mode = mode;
    this.backend = backend;
    this.gpu = backend.devices().getFirst();
    this.kernels = kernels;
    this.report = report;
    int groups = gpu.split().size();
    // Victim: the two first groups (16 SMs on an H200); aggressor: every other group.
    victimGroups = List.of(0, 1);
    aggressorGroups = IntStream.range(2, groups).boxed().toList();
  }

  SmsliceClient serveAndConnect(String name, List<Integer> groups) throws Exception {
    agent.serve(new BoundClaim("verify", name, gpu.uuid(), groups, 8L << 30));
    String token = agent.issueToken("verify", name, "pod", "main");
    return SmsliceClient.connect(
        agent.endpoint("verify", name).orElseThrow().socket(), "verify/" + name, token);
  }

  /** Distinct %smid values of 4096 blocks launched through the claim. */
  static Set<Integer> smIds(SmsliceClient client, byte[] kernels) {
    Stream stream = client.createStream();
    Kernel record = client.kernel(client.loadModule(kernels), "record_smid");
    int blocks = 4096;
    Buffer ids = client.allocate(4L * blocks);
    client.launch(record, stream, blocks, 32, Arg.buffer(ids));
    MemorySegment out = Arena.ofAuto().allocate(4L * blocks);
    client.read(stream, ids, 0, out);
    Set<Integer> distinct = new HashSet<>();
    for (int id : out.toArray(ValueLayout.JAVA_INT)) {
      distinct.add(id);
    }
    return distinct;
  }

  void confinement(SmsliceClient victim, SmsliceClient aggressor) {
    int victimSms = gpu.split().get(0).sms() + gpu.split().get(1).sms();
    int aggressorSms = gpu.smCount() - victimSms;
    Set<Integer> a = smIds(victim, kernels);
    Set<Integer> b = smIds(aggressor, kernels);
    Set<Integer> both = new HashSet<>(a);
    both.retainAll(b);
    report.check(
        "confinement " + mode + ": victim claim distinct %smid",
        String.valueOf(a.size()),
        "= " + victimSms,
        a.size() == victimSms);
    report.check(
        "confinement " + mode + ": co-tenant claim distinct %smid",
        String.valueOf(b.size()),
        "= " + aggressorSms,
        b.size() == aggressorSms);
    if (mode.equals("in-agent")) {
      report.check(
          "confinement in-agent: SM sets of the two claims",
          both.isEmpty() ? "disjoint" : both.size() + " shared",
          "disjoint",
          both.isEmpty());
    } else {
      report.note(
          "under MPS %smid values are client-relative, so the two workers' SM sets are judged by"
              + " count and by the isolation timing, not by comparing ids");
    }
  }

  /** Victim launch+sync latency through the agent, alone and beside a saturating co-tenant. */
  void isolation(SmsliceClient victim, SmsliceClient aggressor) throws Exception {
    Stream stream = victim.createStream();
    Kernel spin = victim.kernel(victim.loadModule(kernels), "spin");
    Samples alone = victimLatency(victim, stream, spin);
    AtomicBoolean running = new AtomicBoolean(true);
    Thread load = Thread.ofPlatform().start(() -> saturate(aggressor, kernels, running));
    Thread.sleep(200);
    Samples loaded = victimLatency(victim, stream, spin);
    running.set(false);
    load.join();
    double ratio = loaded.percentileMicros(99) / alone.percentileMicros(99);
    report.check(
        "isolation " + mode + ": victim p99 with co-tenant / alone",
        f(
            "%.3f (p99 %.1f us vs %.1f us; p50 %.1f vs %.1f us)",
            ratio,
            loaded.percentileMicros(99),
            alone.percentileMicros(99),
            loaded.percentileMicros(50),
            alone.percentileMicros(50)),
        "<= 1.05",
        ratio <= 1.05);
  }

  /** Launch+sync latency of a small spin kernel: 16 blocks, about 130 us of work. */
  static Samples victimLatency(SmsliceClient victim, Stream stream, Kernel spin) {
    // Warm up: a freshly started worker JVM is still compiling its hot path.
    for (int i = 0; i < WARMUP; i++) {
      victim.launch(spin, stream, 16, 256, Arg.i64(VICTIM_CYCLES));
      victim.synchronize(stream);
    }
    Samples samples = new Samples(SAMPLES);
    for (int i = 0; i < SAMPLES; i++) {
      long start = System.nanoTime();
      victim.launch(spin, stream, 16, 256, Arg.i64(VICTIM_CYCLES));
      victim.synchronize(stream);
      samples.add(System.nanoTime() - start);
    }
    return samples;
  }

  /** Keeps every SM of the claim busy with spin kernels until running turns false. */
  static void saturate(SmsliceClient aggressor, byte[] kernels, AtomicBoolean running) {
    Stream stream = aggressor.createStream();
    Kernel spin = aggressor.kernel(aggressor.loadModule(kernels), "spin");
    // Two kernels in flight so the co-tenant's SMs never go idle between launches.
    aggressor.launch(spin, stream, 1056, 256, Arg.i64(AGGRESSOR_CYCLES));
    while (running.get()) {
      aggressor.launch(spin, stream, 1056, 256, Arg.i64(AGGRESSOR_CYCLES));
      aggressor.synchronize(stream);
      aggressor.launch(spin, stream, 1056, 256, Arg.i64(AGGRESSOR_CYCLES));
    }
    aggressor.synchronize(stream);
  }

  /** Resizes the victim back and forth with a live session and checks it still computes. */
  void resize(SmsliceClient victim) throws Exception {
    Stream stream = victim.createStream();
    Kernel fill = victim.kernel(victim.loadModule(kernels), "fill_u32");
    Buffer buffer = victim.allocate(64);
    victim.launch(fill, stream, 1, 16, Arg.buffer(buffer), Arg.i32(41), Arg.i32(16));
    victim.synchronize(stream);
    List<Integer> larger = List.of(0, 1, 2, 3);
    Samples agentPart = new Samples(10);
    boolean kept = true;
    for (int i = 0; i < 10; i++) {
      List<Integer> groups = i % 2 == 0 ? larger : victimGroups;
      agent.serve(new BoundClaim("verify", "victim", gpu.uuid(), groups, 8L << 30));
      agentPart.add(agent.metrics("verify", "victim").orElseThrow().lastResizeNanos());
      MemorySegment out = Arena.ofAuto().allocate(4);
      victim.read(stream, buffer, 0, out);
      kept &= out.get(ValueLayout.JAVA_INT, 0) == 41 + i;
      victim.launch(fill, stream, 1, 16, Arg.buffer(buffer), Arg.i32(42 + i), Arg.i32(16));
      victim.synchronize(stream);
      kept &= victim.usage()[2] == groups.stream().mapToInt(g -> gpu.split().get(g).sms()).sum();
    }
    double max = agentPart.percentileMicros(100) / 1000;
    report.check(
        "resize " + mode + ": agent part (new green context serving), 10 resizes 16<->32 SMs",
        f(
            "max %.2f ms, median %.2f ms; session, memory and kernels kept: %s",
            max, agentPart.percentileMicros(50) / 1000, kept),
        "<= 10 ms, kept",
        max <= 10 && kept);
  }

  static final int SECRET = 0x5a5a5a5a;

  /** The co-tenant's kernel reads the victim's buffer by its device address. */
  Buffer victimSecret(SmsliceClient victim) {
    Stream stream = victim.createStream();
    Buffer secret = victim.allocate(4);
    victim.write(stream, secret, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_INT, SECRET));
    victim.synchronize(stream);
    return secret;
  }

  /**
   * In-agent, claims share one address space: the docs say a hostile kernel can read a neighbour's
   * buffer. The row checks that this documented limit is what happens; reading anything else (or
   * faulting) fails it, and the docs must then change.
   */
  void crossClaimReadInAgent(SmsliceClient victim, SmsliceClient reader) {
    String outcome;
    Integer read = null;
    try {
      long address = victim.deviceAddress(victimSecret(victim));
      Stream stream = reader.createStream();
      Kernel load = reader.kernel(reader.loadModule(kernels), "load_u32");
      Buffer out = reader.allocate(4);
      reader.launch(load, stream, 1, 1, Arg.i64(address), Arg.buffer(out));
      MemorySegment value = Arena.ofAuto().allocate(4);
      reader.read(stream, out, 0, value);
      read = value.get(ValueLayout.JAVA_INT, 0);
      outcome = f("read 0x%08x", read);
    } catch (RuntimeException e) {
      outcome = "the read failed: " + e.getMessage();
    }
    checkCrossRead(report, outcome, read);
  }

  static void checkCrossRead(Report report, String outcome, Integer read) {
    report.check(
        "in-agent: co-tenant kernel reads the victim's buffer by address (documented limit)",
        outcome,
        f("reads 0x%08x, as docs/tenant-protocol.md says in-agent mode allows", SECRET),
        read != null && read == SECRET);
  }

  /**
   * A kernel of one claim loads from {@code address} (an unmapped one, or, under workers, the other
   * claim's buffer); time until the other claim computes again.
   */
  void fault(SmsliceClient culprit, SmsliceClient victim, long address, String what) {
    Stream stream = culprit.createStream();
    Kernel load = culprit.kernel(culprit.loadModule(kernels), "load_u32");
    Buffer out = culprit.allocate(4);
    culprit.launch(load, stream, 1, 1, Arg.i64(address), Arg.buffer(out));
    long faultSeen;
    String culpritError;
    try {
      culprit.synchronize(stream);
      culpritError = "no error";
      faultSeen = System.nanoTime();
    } catch (DeviceLostException e) {
      faultSeen = System.nanoTime();
      culpritError = e.status().name();
    }
    long servingAgain = -1;
    String victimError = "none";
    SmsliceClient current = victim;
    long target = mode.equals("in-agent") ? 1000 : 5000;
    long deadline = faultSeen + 3 * target * 1_000_000L;
    while (System.nanoTime() < deadline) {
      try {
        Stream s = current.createStream();
        Kernel fill = current.kernel(current.loadModule(kernels), "fill_u32");
        Buffer b = current.allocate(4);
        current.launch(fill, s, 1, 1, Arg.buffer(b), Arg.i32(1), Arg.i32(1));
        current.synchronize(s);
        servingAgain = System.nanoTime();
        break;
      } catch (DeviceLostException e) {
        if (victimError.equals("none")) {
          victimError = e.status().name();
        }
        try {
          current.reconnect(Duration.ofMillis(200));
        } catch (RuntimeException retry) {
          // The claim is not back yet; keep trying until the deadline.
        }
      }
    }
    double millis = servingAgain < 0 ? Double.NaN : (servingAgain - faultSeen) / 1e6;
    long agentNanos = agent.metrics("verify", "victim").map(m -> m.lastRecoveryNanos()).orElse(0L);
    report.check(
        "fault " + mode + ": " + what + "; other claim serves again",
        f(
            "%.1f ms (agent recovery %.1f ms); culprit got %s, other claim got %s",
            millis, agentNanos / 1e6, culpritError, victimError),
        "culprit refused; < " + target + " ms",
        servingAgain > 0 && millis < target && !culpritError.equals("no error"));
    culprit.reconnect(Duration.ofSeconds(15));
  }
}
