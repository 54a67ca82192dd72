package io.smslice.agent;

import io.smslice.gpu.MpsServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * Worker-mode fault recovery. MPS reports a fatal fault to every client of the GPU and refuses new
 * clients until all of them have exited: so when one worker dies, stop every worker of the GPU,
 * restart its MPS server, and start the workers again (tenants reconnect to the same sockets).
 */
final class WorkerRecovery implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(WorkerRecovery.class.getName());

  private final MpsServers mps;
  private final Function<String, List<WorkerClaim>> workersOnGpu;
  private final Set<String> recovering = ConcurrentHashMap.newKeySet();
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
    if (!recovering.add(claim.gpuUuid())) {
      return;
    }
    long seen = System.nanoTime();
    worker.execute(() -> recover(claim.gpuUuid(), seen));
  }

  private void recover(String gpu, long seen) {
    try {
      List<WorkerClaim> workers = workersOnGpu.apply(gpu);
      workers.forEach(WorkerClaim::kill);
      if (mps != null) {
        mps.restart(gpu);
      }
      List<CompletableFuture<Void>> starts = new ArrayList<>();
      for (WorkerClaim claim : workers) {
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
      long nanos = System.nanoTime() - seen;
      workers.forEach(w -> w.recovered(nanos));
      LOG.log(
          System.Logger.Level.WARNING,
          "GPU {0}: MPS server and {1} worker(s) restarted in {2} ms",
          gpu,
          workers.size(),
          nanos / 1e6);
    } catch (Exception e) {
      LOG.log(System.Logger.Level.ERROR, "GPU " + gpu + ": worker recovery failed", e);
    } finally {
      recovering.remove(gpu);
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
