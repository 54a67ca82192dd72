package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.Container;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.examples.workload.LatencyStats;
import io.smslice.examples.workload.Workload;
import io.smslice.examples.workload.WorkloadContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The demo's container runtime: runs an example workload named by the container's first argument in
 * a thread of this JVM, with the environment Allocate returned. There is no container, so a path
 * inside a mount is mapped back to the host directory it comes from; and there is no cluster DNS,
 * so the voter's Service address is given as the loopback port the voter listens on.
 */
final class InProcessRuntime implements ContainerRuntime {
  private final RunningWorkloads running;
  private final BooleanSupplier stopping;
  private final Consumer<String> log;
  private final int voterPort;

  InProcessRuntime(
      RunningWorkloads running, BooleanSupplier stopping, Consumer<String> log, int voterPort) {
    this.running = running;
    this.stopping = stopping;
    this.log = log;
    this.voterPort = voterPort;
  }

  @Override
  public Exit start(Launch launch) {
    Container container = launch.container();
    String pod = launch.pod().getMetadata().getName();
    String claim =
        launch.pod().getMetadata().getAnnotations() == null
            ? "-"
            : launch
                .pod()
                .getMetadata()
                .getAnnotations()
                .getOrDefault(SmsliceApi.CLAIM_ANNOTATION, "-");
    List<String> args = container.getArgs() == null ? List.of() : container.getArgs();
    Supplier<Workload> workload = args.isEmpty() ? null : Workload.ALL.get(args.get(0));
    LatencyStats stats = new LatencyStats();
    RunningWorkloads.Entry entry =
        new RunningWorkloads.Entry(pod, claim, args.isEmpty() ? "-" : args.get(0), stats);
    running.add(entry);
    CountDownLatch done = new CountDownLatch(1);
    AtomicBoolean ok = new AtomicBoolean();
    if (workload == null) {
      // Not an example workload (the MIG tenant's plain CUDA image): the demo runs no images.
      entry.state =
          "image " + container.getImage() + " is not run by the demo; " + describe(launch);
      Thread.ofVirtual()
          .start(
              () -> {
                waitForStop();
                ok.set(true);
                done.countDown();
              });
      return () -> awaitDone(done, ok);
    }
    WorkloadContext context =
        new WorkloadContext(
            args.subList(1, args.size()),
            environment(launch),
            stats,
            stopping,
            s -> entry.state = s);
    Thread.ofPlatform()
        .name("pod-" + pod)
        .daemon()
        .start(
            () -> {
              try {
                workload.get().run(context);
                ok.set(true);
                entry.state = entry.state + "; exited 0";
              } catch (Exception | Error e) {
                entry.state = "failed: " + e;
                log.accept("runtime: " + pod + " failed: " + e);
              } finally {
                done.countDown();
              }
            });
    return () -> awaitDone(done, ok);
  }

  private static boolean awaitDone(CountDownLatch done, AtomicBoolean ok)
      throws InterruptedException {
    done.await();
    return ok.get();
  }

  private void waitForStop() {
    while (!stopping.getAsBoolean()) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** The container's environment: its own variables, then Allocate's, with mounts mapped. */
  private Map<String, String> environment(Launch launch) {
    Map<String, String> env = new LinkedHashMap<>();
    if (launch.container().getEnv() != null) {
      launch.container().getEnv().forEach(v -> env.put(v.getName(), v.getValue()));
    }
    launch.envs().forEach((k, v) -> env.put(k, launch.hostPath(v)));
    env.computeIfPresent("VOTER_URL", (k, v) -> "http://127.0.0.1:" + voterPort);
    env.computeIfPresent("VOTER_PORT", (k, v) -> Integer.toString(voterPort));
    return env;
  }

  private static String describe(Launch launch) {
    List<String> parts = new ArrayList<>();
    launch.envs().forEach((k, v) -> parts.add(k + "=" + v));
    return parts.isEmpty() ? "no devices allocated" : "allocated " + String.join(" ", parts);
  }
}
