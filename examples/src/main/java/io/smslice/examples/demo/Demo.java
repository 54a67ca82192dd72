package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Isolation;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.examples.workload.LatencyStats;
import io.smslice.gpu.GpuBackend;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The embedded demo: a Kubernetes API (fabric8's mock server), the operator (its fast-jar, as a
 * child process), the node side (in this JVM, with the simulated GPU when there is no real one)
 * behind a demo kubelet, then every example of examples/ applied and run, with a live table, a live
 * resize, and a closing check of what happened.
 */
public final class Demo {
  static final String NODE = "gpu-node-1";
  static final String NAMESPACE = "default";
  static final String RESIZED_CLAIM = "trainer";
  static final int RESIZED_TO = 32;

  private final DemoOptions options;
  private final PrintStream out;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final EventLines log = new EventLines();
  private static volatile boolean interrupted;

  /** Each workload's statistics when the simulated GPUs' slicing was turned off; null before. */
  private volatile Map<String, LatencyStats.Snapshot> atWhatIf;

  /** The phases with the interference guard off and on; null before the pods. */
  private volatile GuardPhases guard;

  /** Per claim, the best-effort launches the guard held, read when the run ends. */
  private volatile Map<String, Long> guardHolds = Map.of();

  /** The PyTorch ensemble's votes and voter reports (--gpu). */
  private final EnsembleVotes ensemble = new EnsembleVotes();

  /** Example folders --gpu left out because the GPUs have no room for them. */
  private List<String> leftOut = List.of();

  /** The processes attached to the PyTorch containers' claims (--gpu); null before the pods. */
  private volatile AttachedTenants attached;

  Demo(DemoOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /** Runs the demo from the command line; the exit status is 0 when every check passed. */
  public static int run(List<String> args) throws Exception {
    DemoOptions options;
    try {
      options = DemoOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("demo: " + e.getMessage());
      return 2;
    }
    Demo demo = new Demo(options, System.out);
    Thread main = Thread.currentThread();
    Thread hook =
        new Thread(
            () -> {
              interrupted = true;
              demo.stopping.set(true);
              try {
                main.join(20_000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      DemoReport report = demo.execute();
      demo.printSummary(report);
      return report.ok() ? 0 : 1;
    } catch (IOException | IllegalStateException e) {
      System.out.println();
      System.err.println("demo: " + e.getMessage());
      return 1;
    }
  }

  /**
   * Whether Ctrl-C (or SIGTERM) stopped the demo: the JVM is then shutting down already, and the
   * caller must halt with the status instead of calling System.exit, which would wait forever.
   */
  public static boolean interrupted() {
    return interrupted;
  }

  DemoReport execute() throws Exception {
    Path work = Files.createTempDirectory("smslice-demo-");
    Deque<AutoCloseable> open = new ArrayDeque<>();
    try {
      return execute(work, open);
    } finally {
      stopping.set(true);
      while (!open.isEmpty()) {
        try {
          open.pop().close();
        } catch (Exception e) {
          out.println("demo: while stopping: " + e);
        }
      }
    }
  }

  private DemoReport execute(Path work, Deque<AutoCloseable> open) throws Exception {
    Path repo = options.repository();
    Progress progress = new Progress(out, options.gpu() ? 8 : 7);
    DemoLogging.toFile(work.resolve("demo.log"));
    out.println("smslice demo: work directory " + work + " (logs: demo.log, operator.log)");

    progress.begin("starting the Kubernetes API (fabric8 mock server, CRUD mode)");
    MockCluster cluster = MockCluster.start();
    open.push(cluster);
    KubernetesClient client = cluster.client();
    progress.done(cluster.url());

    progress.begin("registering the CRDs and node " + NODE);
    List<String> crds = cluster.registerCrds(repo.resolve("crds"));
    cluster.createNode(NODE);
    progress.done(String.join(", ", crds));

    progress.begin("starting the demo kubelet (device-plugin Registration on a Unix socket)");
    RunningWorkloads workloads = new RunningWorkloads();
    int voterPort = freePort();
    Path pluginDir = work.resolve("kubelet/device-plugins");
    InProcessRuntime threads = new InProcessRuntime(workloads, stopping::get, log::add, voterPort);
    Files.createDirectories(work.resolve("pods"));
    ProcessRuntime processes =
        new ProcessRuntime(
            repo,
            options.python(),
            work.resolve("pods"),
            workloads,
            stopping::get,
            log::add,
            ensemble);
    open.push(processes);
    DemoKubelet kubelet =
        new DemoKubelet(
            client,
            NODE,
            pluginDir,
            launch ->
                ProcessRuntime.runs(launch.container())
                    ? processes.start(launch)
                    : threads.start(launch),
            log::add);
    kubelet.start();
    open.push(kubelet);
    progress.done(pluginDir.resolve("kubelet.sock").toString());

    GpuBackend backend;
    if (options.gpu()) {
      progress.begin("checking what --gpu needs (a GPU, the interposer, MPS, PyTorch with CUDA)");
      backend = DemoNode.openBackend(options);
      try {
        String found = GpuPrerequisites.check(options);
        progress.done(backend.devices().size() + " GPU(s), " + found);
      } catch (RuntimeException e) {
        backend.close();
        throw e;
      }
    } else {
      backend = DemoNode.openBackend(options);
    }
    progress.begin(
        options.gpu()
            ? "starting the node side (GPU discovery, MPS daemon, agent in worker mode, device"
                + " plugins, SliceNode)"
            : "starting the node side (GPU discovery, agent, device plugins, SliceNode)");
    DemoNode node = DemoNode.start(NODE, work, client, options, backend);
    open.push(node);
    node.awaitReady(client, kubelet, Duration.ofSeconds(30));
    progress.done(node.describe());

    progress.begin("starting the operator (" + repo.relativize(operatorJar(repo)) + ")");
    OperatorProcess operator = OperatorProcess.start(operatorJar(repo), cluster.url(), work);
    open.push(operator);
    progress.done("log " + operator.log());

    progress.begin("applying the claims of examples/");
    client.resources(SliceClaim.class);
    ExampleObjects examples;
    if (options.gpu()) {
      ExampleSelection selection =
          ExampleSelection.forGpus(
              repo.resolve("examples"), client.getKubernetesSerialization(), node.gpus());
      examples = selection.chosen();
      leftOut = selection.leftOut();
      processes.expose(examples.services());
      ensemble.expect(examples.pods());
      attached = new AttachedTenants(node, examples.pods());
    } else {
      examples = ExampleObjects.load(repo.resolve("examples"), client.getKubernetesSerialization());
    }
    ClaimHistory history = new ClaimHistory(client);
    open.push(history);
    for (SliceClaim claim : examples.claims()) {
      claim.getMetadata().setNamespace(NAMESPACE);
      client.resource(claim).create();
      awaitPlaced(client, claim);
    }
    progress.done(examples.claims().size() + " claims");
    leftOut.forEach(l -> progress.note("left out (no room on this machine's GPUs): " + l));

    open.push(new StandInScheduler(client, NAMESPACE, NODE));
    progress.begin("creating the pods (the demo calls the operator's webhook for the API server)");
    AdmissionCall admission =
        new AdmissionCall(operator.webhook(), client.getKubernetesSerialization());
    for (Pod pod : examples.pods()) {
      createPod(client, admission, pod);
    }
    progress.done(examples.pods().size() + " pods");
    progress.note(
        "No ReplicaSet or Job controller runs here: the demo made one pod per Deployment and Job.");
    progress.note(
        "Pods without a claim are bound to "
            + NODE
            + " by the demo (no kube-scheduler); pods with one wait behind a scheduling gate that"
            + " the operator lifts, then the demo's stand-in for the kube-scheduler binds them.");

    Map<String, Priority> priorities = new LinkedHashMap<>();
    for (SliceClaim claim : examples.claims()) {
      Priority p = claim.getSpec().getPriority();
      priorities.put(claim.getMetadata().getName(), p == null ? Priority.Standard : p);
    }
    guard = new GuardPhases(workloads, priorities, node.simulated(), ensemble::meanRate);
    long launchesBeforeResize =
        liveLoop(
            client,
            new LiveTable(client, workloads, node.gpuLabel(), node.simulated()),
            workloads,
            node);
    processes.close(); // the PyTorch processes end before the node's MPS daemon is stopped
    return report(client, kubelet, workloads, history, node, examples, launchesBeforeResize);
  }

  private static SliceClaim claim(KubernetesClient client, String name) {
    return client.resources(SliceClaim.class).inNamespace(NAMESPACE).withName(name).get();
  }

  /** The GPU a claim is bound to, or null. */
  private static String boundGpu(KubernetesClient client, String claim) {
    SliceClaim c = claim(client, claim);
    return c == null || c.getStatus() == null || c.getStatus().getBinding() == null
        ? null
        : c.getStatus().getBinding().getGpuUuid();
  }

  /**
   * Waits until the operator has decided about a claim, so that claims are placed in the order of
   * the example files, as if applied one by one: the detector first, then the batch job that fills
   * the rest of its GPU (best fit), then the others on the next GPU.
   */
  private static void awaitPlaced(KubernetesClient client, SliceClaim claim)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      SliceClaim now = claim(client, claim.getMetadata().getName());
      if (now != null && now.getStatus() != null && now.getStatus().getPhase() != null) {
        return;
      }
      Thread.sleep(50);
    }
  }

  /** Creates a pod as the API server would: admission first, then storage. */
  private void createPod(KubernetesClient client, AdmissionCall admission, Pod pod)
      throws IOException, InterruptedException {
    pod.getMetadata().setNamespace(NAMESPACE);
    boolean claimed =
        pod.getMetadata().getAnnotations() != null
            && pod.getMetadata().getAnnotations().containsKey(SmsliceApi.CLAIM_ANNOTATION);
    Pod admitted = admission.mutate(pod, NAMESPACE);
    if (!claimed) {
      admitted = new PodBuilder(admitted).editSpec().withNodeName(NODE).endSpec().build();
    }
    client.resource(admitted).create();
  }

  /**
   * Redraws the table every second until the time is up; resizes the trainer a quarter of the way;
   * half way lets the interference guard on; three quarters of the way, on the simulated GPU, turns
   * slicing off to show what it prevents.
   */
  private long liveLoop(
      KubernetesClient client, LiveTable table, RunningWorkloads workloads, DemoNode node)
      throws InterruptedException {
    long start = System.nanoTime();
    double planned = options.seconds() == 0 ? 30 : options.seconds();
    double resizeAt = Math.max(8, planned / 4.0);
    double guardAt = Math.max(resizeAt + 4, planned / 2.0);
    double whatIfAt = Math.max(guardAt + 4, planned * 3 / 4.0);
    guard.begin();
    long launchesBeforeResize = -1;
    String event = "";
    int frame = 0;
    while (!stopping.get()) {
      double t = (System.nanoTime() - start) / 1e9;
      if (options.seconds() > 0 && t >= options.seconds()) {
        break;
      }
      RunningWorkloads.Entry trainer = workloads.get(RESIZED_CLAIM);
      if (launchesBeforeResize < 0
          && t >= resizeAt
          && trainer != null
          && trainer.stats.snapshot().launches() > 0) {
        launchesBeforeResize = trainer.stats.snapshot().launches();
        client
            .resources(SliceClaim.class)
            .inNamespace(NAMESPACE)
            .withName(RESIZED_CLAIM)
            .edit(
                c -> {
                  c.getSpec().setSms(RESIZED_TO);
                  return c;
                });
        event =
            String.format(
                Locale.ROOT,
                "t=%.1fs: resize: patched %s spec.sms to %d (kubectl patch slc %s --type merge -p"
                    + " '{\"spec\":{\"sms\":%d}}')",
                t,
                RESIZED_CLAIM,
                RESIZED_TO,
                RESIZED_CLAIM,
                RESIZED_TO);
      }
      if (!guard.started() && t >= guardAt) {
        guard.guardOn();
        node.guard(true);
        event +=
            String.format(
                Locale.ROOT,
                "%st=%.1fs: GUARD ON: the agent turns the interference guard on where"
                    + " latency-critical and best-effort claims share a GPU; best-effort launches now"
                    + " wait while latency-critical work is in flight",
                event.isEmpty() ? "" : System.lineSeparator(),
                t);
      }
      if (atWhatIf == null && t >= whatIfAt && node.simulated()) {
        guard.end();
        node.guard(false);
        Map<String, LatencyStats.Snapshot> snapshots = new LinkedHashMap<>();
        workloads.all().forEach(e -> snapshots.put(e.pod, e.stats.snapshot()));
        atWhatIf = snapshots;
        node.stopSlicing();
        event +=
            String.format(
                Locale.ROOT,
                "%st=%.1fs: WHAT IF: slicing (and the guard) turned OFF on the simulated GPUs: every"
                    + " kernel now uses and waits for every SM, as without smslice; watch the"
                    + " deadline misses",
                event.isEmpty() ? "" : System.lineSeparator(),
                t);
      }
      if (attached != null) {
        attached.sample();
      }
      if (!options.headless() || frame % 5 == 0) {
        String screen =
            table.render(
                t,
                event
                    + ensembleSection()
                    + (options.headless() ? log.sinceLastCall() : log.latest(4)));
        out.print(options.headless() ? screen + System.lineSeparator() : "\033[H\033[2J" + screen);
        out.flush();
      }
      frame++;
      Thread.sleep(1000);
    }
    guard.end();
    guardHolds = node.guardHolds();
    stopping.set(true);
    for (RunningWorkloads.Entry e : workloads.all()) {
      for (int i = 0; i < 50 && e.state.startsWith("running"); i++) {
        Thread.sleep(100);
      }
    }
    out.print(
        table.render(
            (System.nanoTime() - start) / 1e9,
            "stopped" + (options.headless() ? log.sinceLastCall() : log.latest(4))));
    return launchesBeforeResize;
  }

  private String ensembleSection() {
    String section = ensemble.render();
    if (attached != null) {
      section += System.lineSeparator() + attached.render();
    }
    return section.isBlank() ? "" : System.lineSeparator() + section;
  }

  private DemoReport report(
      KubernetesClient client,
      DemoKubelet kubelet,
      RunningWorkloads workloads,
      ClaimHistory history,
      DemoNode node,
      ExampleObjects examples,
      long launchesBeforeResize) {
    List<String> problems = new ArrayList<>();
    Map<String, List<ClaimHistory.Step>> steps = new LinkedHashMap<>();
    for (SliceClaim claim : examples.claims()) {
      String name = claim.getMetadata().getName();
      List<ClaimHistory.Step> s = history.of(name);
      steps.put(name, s);
      boolean bound = s.stream().anyMatch(x -> x.phase().equals("Bound"));
      if (claim.getSpec().getIsolation() != Isolation.Memory && !bound) {
        problems.add("claim " + name + " never reached Bound: " + s);
      }
      if (claim.getSpec().getIsolation() == Isolation.Memory && !bound && node.offersMig()) {
        problems.add("MIG claim " + name + " never reached Bound on a node with MIG: " + s);
      }
    }
    String detectorGpu = boundGpu(client, "detector");
    String batchGpu = boundGpu(client, "batch");
    if (detectorGpu != null && batchGpu != null && !detectorGpu.equals(batchGpu)) {
      problems.add(
          "the detector (GPU "
              + detectorGpu
              + ") and the batch job (GPU "
              + batchGpu
              + ") were placed on different GPUs; the example is about sharing one");
    }
    Map<String, String> podNodes = new LinkedHashMap<>();
    Map<String, List<String>> allocations = kubelet.allocations();
    for (Pod pod : client.pods().inNamespace(NAMESPACE).list().getItems()) {
      String name = pod.getMetadata().getName();
      String nodeName = pod.getSpec().getNodeName();
      podNodes.put(name, nodeName == null ? "" : nodeName);
      boolean claimed =
          pod.getMetadata().getAnnotations() != null
              && pod.getMetadata().getAnnotations().containsKey(SmsliceApi.CLAIM_ANNOTATION);
      boolean wantsMig = name.equals("untrusted-tenant") && !node.offersMig();
      if (claimed && !wantsMig && !allocations.containsKey(NAMESPACE + "/" + name)) {
        problems.add("pod " + name + " was not allocated devices (node '" + nodeName + "')");
      }
    }
    DeadlinePhases deadlines = DeadlinePhases.of(atWhatIf, workloads.all());
    problems.addAll(deadlines.problems());
    if (node.simulated() && atWhatIf == null) {
      problems.add("the run ended before the what-if phase without slicing");
    }
    problems.addAll(guard.problems());
    if (node.simulated()
        && guardHolds.getOrDefault(NAMESPACE + "/" + GuardPhases.NEIGHBOUR, 0L) == 0) {
      problems.add("the guard never held " + GuardPhases.NEIGHBOUR + "'s launches");
    }
    Map<String, LatencyStats.Snapshot> snapshots = new LinkedHashMap<>();
    Map<String, String> states = new LinkedHashMap<>();
    for (RunningWorkloads.Entry e : workloads.all()) {
      LatencyStats.Snapshot s = e.stats.snapshot();
      snapshots.put(e.pod, s);
      states.put(e.pod, e.state);
      // The PyTorch processes' launches are judged by the ensemble's checks below.
      if (!e.kind.equals("-") && !e.kind.endsWith(".py") && s.launches() == 0) {
        problems.add("workload " + e.pod + " completed no launches: " + e.state);
      }
    }
    problems.addAll(ensemble.problems());
    if (attached != null) {
      problems.addAll(attached.problems());
    }
    List<ClaimHistory.Step> resized = history.of(RESIZED_CLAIM);
    boolean resizes = steps.containsKey(RESIZED_CLAIM); // --gpu may leave the example out
    if (resizes && launchesBeforeResize < 0) {
      problems.add("the resize was never requested (the " + RESIZED_CLAIM + " workload never ran)");
    } else if (resizes) {
      if (resized.stream().noneMatch(x -> x.phase().equals("Resizing"))) {
        problems.add("claim " + RESIZED_CLAIM + " never showed Resizing: " + resized);
      }
      if (resized.isEmpty()
          || !resized.getLast().equals(new ClaimHistory.Step("Bound", RESIZED_TO))) {
        problems.add(
            "claim "
                + RESIZED_CLAIM
                + " did not end Bound with "
                + RESIZED_TO
                + " SMs: "
                + resized);
      }
      LatencyStats.Snapshot after = snapshots.get(RESIZED_CLAIM);
      if (after == null || after.launches() <= launchesBeforeResize) {
        problems.add("the " + RESIZED_CLAIM + " workload made no launches after the resize");
      }
    }
    return new DemoReport(
        steps,
        podNodes,
        allocations,
        snapshots,
        states,
        launchesBeforeResize,
        node.backendName(),
        deadlines,
        guard,
        List.copyOf(problems));
  }

  private void printSummary(DemoReport report) {
    out.println();
    out.println("summary (GPU backend: " + report.backend() + ")");
    report.claimSteps().forEach((claim, steps) -> out.println("  claim " + claim + ": " + steps));
    report.allocations().forEach((pod, a) -> out.println("  allocated " + pod + ": " + a));
    if (options.gpu()) {
      printGpuSummary();
    }
    report
        .workloads()
        .forEach(
            (pod, s) ->
                out.printf(
                    Locale.ROOT,
                    "  workload %s: %d launches, p50 %.0f us, p99 %.0f us, %d deadline misses; %s%n",
                    pod,
                    s.launches(),
                    s.p50() / 1e3,
                    s.p99() / 1e3,
                    s.deadlineMisses(),
                    report.workloadStates().get(pod)));
    report.deadlines().lines().forEach(line -> out.println("  " + line));
    report.guard().lines().forEach(line -> out.println("  " + line));
    guardHolds.forEach(
        (claim, holds) ->
            out.println("  guard: held " + holds + " launches of best-effort claim " + claim));
    if (report.backend().equals("simulated")) {
      out.println(
          "  (SIMULATED: GPU time modelled from H200 measurements, not measured. The deadline"
              + " verdict uses each frame's modelled GPU-side latency; the wall-clock latencies"
              + " (table, workload lines) are measured through the agent and include this host's"
              + " CPU load, shown as 'this host added'; see docs/demo.md)");
    }
    if (report.ok()) {
      out.println(
          "all checks passed: claims bound, pods allocated, workloads launched"
              + (report.claimSteps().containsKey(RESIZED_CLAIM) ? ", resize done" : "")
              + (report.backend().equals("simulated")
                  ? ", deadlines met with slicing and missed without, the guarded inference's tail"
                      + " shorter with the guard on (modelled GPU time)"
                  : ""));
    } else {
      out.println("checks that FAILED:");
      report.problems().forEach(p -> out.println("  - " + p));
    }
  }

  /** What --gpu adds: the PyTorch voter's blocks, the attached processes, what was left out. */
  private void printGpuSummary() {
    out.println(
        "  (REAL GPU: the PyTorch models' latencies are their own, from a frame's release to its"
            + " vote, in transparent slices under the GPU's MPS daemon; see docs/demo.md)");
    ensemble.summary().forEach(line -> out.println("  " + line));
    if (attached != null) {
      attached.summary().forEach(line -> out.println("  " + line));
    }
    leftOut.forEach(line -> out.println("  left out (no room on this machine's GPUs): " + line));
  }

  private static Path operatorJar(Path repo) {
    return repo.resolve("operator/target/quarkus-app/quarkus-run.jar");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
