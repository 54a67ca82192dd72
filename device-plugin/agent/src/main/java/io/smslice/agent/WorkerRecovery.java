package io.smslice.agent;

import io.smslice.gpu.MpsServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Worker-mode fault recovery. MPS reports a fatal fault to every client of the GPU and refuses new
 * clients until all of them have exited, and an idle worker never sees the error: so every worker
 * of the GPU is stopped, and started again (tenants reconnect to the same sockets) once the GPU
 * takes new clients. Two causes, one path: a worker of the GPU died (this restarts the MPS server
 * itself), or the node saw a client fault on the GPU ({@link #hold}, then {@link #resume} once the
 * node has seen the other clients exit or restarted the MPS daemon). One recovery per GPU at a
 * time: a fault while one is under way joins it.
 */
final class WorkerRecovery implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(WorkerRecovery.class.getName());

  /** A GPU's stopped workers; {@code byNode} when the node decides when they start again. */
  private record Stopped(List<WorkerClaim> workers, long seen, boolean byNode) {}

  private final MpsServers mps;
  private final Function<String, List<WorkerClaim>> workersOnGpu;
  private final Map<String, Stopped> recovering = new ConcurrentHashMap<>();
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          Thread.ofPlatform().name("worker-recovery").daemon().factory());

  WorkerRecovery(MpsServers mps, Function<String, List<WorkerClaim>> workersOnGpu) {
    this.mps = mps;
    this.workersOnGpu = workersOnGpu;
  }

  void workerExited(BoundClaim claim, int exitCode) {
    LOG.log(
        System.Logger.Level.WARNING,
        "worker of claim {0} exited with code {1}; recovering GPU {2}",
        claim.key(),
        exitCode,
        claim.gpuUuid());
    String gpu = claim.gpuUuid();
    if (recovering.putIfAbsent(gpu, new Stopped(List.of(), System.nanoTime(), false)) != null) {
      return; // joins the recovery under way
    }
    worker.execute(
        () -> {
          Stopped stopped;
          try {
            stopped = stop(gpu, false);
            if (mps != null) {
              mps.restart(gpu);
            }
          } catch (Exception e) {
            recovering.remove(gpu);
            LOG.log(System.Logger.Level.ERROR, "GPU " + gpu + ": worker recovery failed", e);
            return;
          }
          start(gpu, stopped, " with the MPS server");
        });
  }

  /**
   * Stops the GPU's workers until {@link #resume}; returns once they are stopped. Joins (and
   * returns false) when a recovery of the GPU is already under way.
   */
  boolean hold(String gpu) {
    if (recovering.putIfAbsent(gpu, new Stopped(List.of(), System.nanoTime(), true)) != null) {
      LOG.log(System.Logger.Level.INFO, "GPU {0}: client fault joins the recovery under way", gpu);
      return false;
    }
    try {
      worker.submit(() -> stop(gpu, true)).get();
    } catch (ExecutionException e) {
      recovering.remove(gpu);
      throw new IllegalStateException("GPU " + gpu + ": stopping workers failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return true;
  }

  /** Starts the workers {@link #hold} stopped; nothing when the GPU is not held by the node. */
  void resume(String gpu) {
    worker.execute(
        () -> {
          Stopped stopped = recovering.get(gpu);
          if (stopped != null && stopped.byNode()) {
            start(gpu, stopped, "");
          }
        });
  }

  private Stopped stop(String gpu, boolean byNode) {
    List<WorkerClaim> workers = workersOnGpu.apply(gpu);
    workers.forEach(WorkerClaim::kill);
    Stopped stopped = new Stopped(workers, recovering.get(gpu).seen(), byNode);
    recovering.put(gpu, stopped);
    LOG.log(System.Logger.Level.WARNING, "GPU {0}: {1} worker(s) stopped", gpu, workers.size());
    return stopped;
  }

  private void start(String gpu, Stopped stopped, String what) {
    try {
      List<CompletableFuture<Void>> starts = new ArrayList<>();
      for (WorkerClaim claim : stopped.workers()) {
        starts.add(
            CompletableFuture.runAsync(
                () -> {
                  try {
                    claim.launch();
                  } catch (Exception e) {
                    throw new IllegalStateException(claim.binding().key() + ": " + e, e);
                  }
                }));
      }
      CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
      long nanos = System.nanoTime() - stopped.seen();
      stopped.workers().forEach(w -> w.recovered(nanos));
      LOG.log(
          System.Logger.Level.WARNING,
          "GPU {0}: {1} worker(s) restarted{2} {3} ms after the fault",
          gpu,
          stopped.workers().size(),
          what,
          nanos / 1e6);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "GPU " + gpu + ": worker recovery failed", e);
    } finally {
      recovering.remove(gpu);
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
    try {
      // A recovery still under way could otherwise serve claims after the agent released them.
      worker.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
