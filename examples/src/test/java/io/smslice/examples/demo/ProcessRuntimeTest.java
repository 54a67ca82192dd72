package io.smslice.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.smslice.examples.workload.LatencyStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The --gpu demo's runtime for the PyTorch examples image, without a GPU: the ensemble's real
 * manifests and real voter.py, with a stand-in serve_model.py that votes on the frame clock without
 * torch. Checks that the containers run as processes with Allocate's environment mapped to host
 * paths, that the models reach the voter through its Service's stand-in (whose votes fill the
 * models' statistics), and that the voter's reports reach the demo.
 */
class ProcessRuntimeTest {
  private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

  /** Votes for every frame with a fixed latency until SIGTERM; records its environment. */
  private static final String STAND_IN_MODEL =
      """
      import argparse, json, os, signal, sys, time
      import channel, schedule
      p = argparse.ArgumentParser()
      p.add_argument("--model"); p.add_argument("--voter"); p.add_argument("--period-ms", type=float)
      o = p.parse_args()
      signal.signal(signal.SIGTERM, signal.default_int_handler)
      with open("env-%s.json" % o.model, "w") as f:
          json.dump(dict(os.environ), f)
      period = int(o.period_ms * 1e6)
      sender = channel.Sender(o.voter)
      frame, served = schedule.latest_released(time.time_ns(), period) + 1, 0
      print("model %s: serving from frame %d" % (o.model, frame), flush=True)
      try:
          while True:
              time.sleep(max(0, schedule.release_ns(frame, period) - time.time_ns()) / 1e9)
              sender.send(channel.vote_line(o.model, frame, schedule.true_class(frame), 1_000_000))
              frame, served = frame + 1, served + 1
      except KeyboardInterrupt:
          sender.send(channel.end_line(o.model, served, 0))
      """;

  @TempDir Path tmp;

  @Test
  void theEnsembleRunsAsProcessesAndTheVotersReportsReachTheDemo() throws Exception {
    assumeTrue(python3Runs(), "python3 is not installed");
    Path repo = tmp.resolve("repo");
    Path scripts = repo.resolve("examples/ensemble/python");
    Files.createDirectories(scripts);
    for (String f : List.of("voter.py", "channel.py", "schedule.py", "tally.py", "stats.py")) {
      Files.copy(REPOSITORY.resolve("examples/ensemble/python").resolve(f), scripts.resolve(f));
    }
    Files.writeString(scripts.resolve("serve_model.py"), STAND_IN_MODEL);
    ExampleObjects examples =
        ExampleObjects.load(
            ExampleObjects.files(REPOSITORY.resolve("examples/ensemble/pytorch"), ".yml"),
            new KubernetesSerialization());
    List<Pod> pods = new ArrayList<>();
    for (Pod pod : examples.pods()) {
      if (!pod.getMetadata().getName().equals("ensemble-trainer")) {
        pods.add(shorterBlocks(pod));
      }
    }
    assertThat(pods).hasSize(4);
    assertThat(pods.getLast().getSpec().getContainers().getFirst().getArgs())
        .as("the voter's arguments as the manifest gives them")
        .contains("--models=resnet18,mobilenet,vit", "--deadline-ms=5");

    AtomicBoolean stopping = new AtomicBoolean();
    RunningWorkloads running = new RunningWorkloads();
    List<String> log = new CopyOnWriteArrayList<>();
    EnsembleVotes votes = new EnsembleVotes();
    votes.expect(pods);
    Path logs = Files.createDirectories(tmp.resolve("pods"));
    Path claimDir = Files.createDirectories(tmp.resolve("claims/resnet18"));
    List<ContainerRuntime.Exit> exits = new ArrayList<>();
    try (ProcessRuntime runtime =
        new ProcessRuntime(repo, "python3", logs, running, stopping::get, log::add, votes)) {
      runtime.expose(examples.services());
      for (Pod pod : pods) {
        boolean model = pod.getMetadata().getAnnotations() != null;
        Map<String, String> envs =
            model
                ? Map.of(
                    "SMSLICE_SOCKET", "/run/smslice/claim/agent.sock",
                    "SMSLICE_CLAIM", "default/" + pod.getMetadata().getName(),
                    "NVIDIA_VISIBLE_DEVICES", "GPU-0000")
                : Map.of();
        List<ContainerRuntime.HostMount> mounts =
            model
                ? List.of(new ContainerRuntime.HostMount("/run/smslice/claim", claimDir, false))
                : List.of();
        exits.add(
            runtime.start(
                new ContainerRuntime.Launch(
                    pod, pod.getSpec().getContainers().getFirst(), envs, mounts)));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (votes.summary().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      String said = log + " " + running.all().stream().map(e -> e.pod + ": " + e.state).toList();
      assertThat(votes.summary()).as(said).isNotEmpty();
      assertThat(votes.problems()).as(said).isEmpty();
      assertThat(votes.render()).contains("resnet18", "mobilenet", "vit", "ensemble:");
      LatencyStats.Snapshot resnet = running.get("ensemble-resnet18").stats.snapshot();
      assertThat(resnet.launches()).as("votes seen on their way to the voter").isPositive();
      assertThat(resnet.p50()).isEqualTo(1_000_000);
      assertThat(resnet.deadline()).isEqualTo(5_000_000);
      assertThat(running.get("ensemble-voter").state).contains("frames decided in time");

      String env = Files.readString(scripts.resolve("env-resnet18.json"));
      assertThat(env)
          .contains("\"SMSLICE_SOCKET\": \"" + claimDir.resolve("agent.sock") + "\"")
          .contains("\"CUDA_VISIBLE_DEVICES\": \"GPU-0000\"")
          .contains("\"PYTHONUNBUFFERED\": \"1\"");
      assertThat(Files.readString(scripts.resolve("env-vit.json")))
          .contains("\"SMSLICE_CLAIM\": \"default/ensemble-vit\"");

      stopping.set(true);
      for (ContainerRuntime.Exit exit : exits) {
        assertThat(exit.await()).as(said).isTrue();
      }
    }
    assertThat(Files.readString(logs.resolve("ensemble-voter.log"))).contains("voter: {");
  }

  @Test
  void aMissingScriptFailsThePodWithTheReason() throws Exception {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("broken")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .withImage(ProcessRuntime.IMAGE + ":0.1.0")
            .withArgs("no_such_script.py")
            .endContainer()
            .endSpec()
            .build();
    RunningWorkloads running = new RunningWorkloads();
    List<String> log = new CopyOnWriteArrayList<>();
    try (ProcessRuntime runtime =
        new ProcessRuntime(
            tmp, "python3", tmp, running, () -> false, log::add, new EnsembleVotes())) {
      ContainerRuntime.Exit exit =
          runtime.start(
              new ContainerRuntime.Launch(
                  pod, pod.getSpec().getContainers().getFirst(), Map.of(), List.of()));
      assertThat(exit.await()).isFalse();
    }
    assertThat(running.get("broken").state).contains("no script no_such_script.py");
    assertThat(log).anySatisfy(l -> assertThat(l).contains("broken failed to start"));
  }

  /** The voter's blocks of 2000 frames (10 s) shortened to 100 frames, with a short grace. */
  private static Pod shorterBlocks(Pod pod) {
    List<String> args =
        pod.getSpec().getContainers().getFirst().getArgs().stream()
            .map(a -> a.equals("--frames=2000") ? "--frames=100" : a)
            .toList();
    if (args.getFirst().equals("voter.py")) {
      args = new ArrayList<>(args);
      args.add("--grace-ms=200");
    }
    pod.getSpec().getContainers().getFirst().setArgs(args);
    return pod;
  }

  private static boolean python3Runs() {
    try {
      Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }
}
