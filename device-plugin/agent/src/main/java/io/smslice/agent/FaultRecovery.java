package io.smslice.agent;

import io.smslice.agent.server.ClaimRuntime;
import io.smslice.gpu.GpuBackend;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * In-agent fault recovery. A faulting kernel poisons the GPU's one shared context, so every claim
 * on that GPU loses its device state: end all their sessions (the culprit's with FAULT, the others'
 * with DEVICE_LOST), reset the GPU, and make each claim a fresh green context.
 */
final class FaultRecovery implements ClaimRuntime.FaultListener, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(FaultRecovery.class.getName());

  /** Serves a GPU's claims somewhere else when this process cannot use the GPU any more. */
  interface Relocation {
    /** True when the GPU's claims serve again; {@code seen} is when the fault was reported. */
    boolean relocate(String gpuUuid, long seen);
  }

  private final GpuBackend backend;
  private final Function<String, List<ClaimRuntime>> claimsOnGpu;
  private final Set<String> recovering = ConcurrentHashMap.newKeySet();
  private volatile Consumer<String> unrecoverable = gpu -> {};
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          Thread.ofPlatform().name("fault-recovery").daemon().factory());

  private final Relocation relocation;

  FaultRecovery(
      GpuBackend backend, Function<String, List<ClaimRuntime>> claimsOnGpu, Relocation relocation) {
    this.backend = backend;
    this.claimsOnGpu = claimsOnGpu;
    this.relocation = relocation;
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
    List<ClaimRuntime> claims = claimsOnGpu.apply(gpu);
    try {
      for (ClaimRuntime claim : claims) {
        if (!claim.released()) {
          claim.loseDevice("GPU " + gpu + " was reset after a fault").get();
        }
      }
      backend.resetDevice(gpu);
      for (ClaimRuntime claim : claims) {
        if (claim.released()) {
          continue; // released meanwhile: nothing to rebuild
        }
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
          System.Logger.Level.WARNING,
          "GPU {0} cannot be used again by this process ({1}); moving its claims to worker"
              + " processes",
          gpu,
          e.getMessage());
      if (!relocation.relocate(gpu, seen)) {
        LOG.log(
            System.Logger.Level.ERROR,
            "GPU {0}: its claims stay down until the agent restarts",
            gpu);
        unrecoverable.accept(gpu);
      }
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
