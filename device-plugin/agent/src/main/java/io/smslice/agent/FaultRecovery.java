package io.smslice.agent;

import io.smslice.agent.server.ClaimRuntime;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * In-agent fault recovery. A faulting kernel poisons the GPU's one shared context, so every claim
 * on that GPU loses its device state: end all their sessions (the culprit's with FAULT, the others'
 * with DEVICE_LOST), reset the GPU, and make each claim a fresh green context.
 */
final class FaultRecovery implements ClaimRuntime.FaultListener, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(FaultRecovery.class.getName());

  private static final int RESET_ATTEMPTS = 3;

  private final GpuBackend backend;
  private final Function<String, List<ClaimRuntime>> claimsOnGpu;
  private final Set<String> recovering = ConcurrentHashMap.newKeySet();
  private volatile Consumer<String> unrecoverable = gpu -> {};
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          Thread.ofPlatform().name("fault-recovery").daemon().factory());

  FaultRecovery(GpuBackend backend, Function<String, List<ClaimRuntime>> claimsOnGpu) {
    this.backend = backend;
    this.claimsOnGpu = claimsOnGpu;
  }

  void onUnrecoverable(Consumer<String> listener) {
    unrecoverable = listener;
  }

  @Override
  public boolean contextLost(ClaimRuntime runtime) {
    String gpu = runtime.gpuUuid();
    if (!recovering.add(gpu)) {
      return false; // one recovery per fault resets every claim of the GPU
    }
    long seen = System.nanoTime();
    worker.execute(() -> recover(gpu, seen));
    return true;
  }

  private void recover(String gpu, long seen) {
    try {
      List<ClaimRuntime> claims = claimsOnGpu.apply(gpu);
      for (ClaimRuntime claim : claims) {
        claim.loseDevice("GPU " + gpu + " was reset after a fault").get();
      }
      resetWithRetries(gpu);
      for (ClaimRuntime claim : claims) {
        claim.rebuild().get();
        claim.metrics().recovered(System.nanoTime() - seen);
      }
      LOG.log(
          System.Logger.Level.WARNING,
          "GPU {0} recovered from a fault in {1} ms; {2} claim(s) serve again",
          gpu,
          (System.nanoTime() - seen) / 1_000_000.0,
          claims.size());
    } catch (Exception e) {
      LOG.log(
          System.Logger.Level.ERROR,
          "GPU "
              + gpu
              + " could not be recovered in this process; its claims stay down until the agent"
              + " restarts",
          e);
      unrecoverable.accept(gpu);
    } finally {
      recovering.remove(gpu);
    }
  }

  private void resetWithRetries(String gpu) throws GpuException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        backend.resetDevice(gpu);
        return;
      } catch (GpuException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            "reset of GPU {0}, attempt {1}: {2}",
            gpu,
            attempt,
            e.getMessage());
        if (attempt == RESET_ATTEMPTS) {
          throw e;
        }
        Thread.sleep(20L * attempt);
      }
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
