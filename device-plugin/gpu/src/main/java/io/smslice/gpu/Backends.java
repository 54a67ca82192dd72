package io.smslice.gpu;

import io.smslice.gpu.cuda.CudaBackend;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.util.Optional;

/** Picks a backend by name: {@code cuda}, {@code simulated} or {@code auto}. */
public final class Backends {
  private static final System.Logger LOG = System.getLogger(Backends.class.getName());

  private Backends() {}

  /**
   * {@code auto} is cuda when libcuda.so.1 loads and shows a device, else the simulated backend
   * (one H200-shaped GPU), and the log says which and why. {@code cuda} fails with the reason when
   * no GPU can be used.
   */
  public static GpuBackend open(String name) {
    return open(name, null, 1);
  }

  /**
   * As {@link #open(String)}; a simulated backend has {@code simulatedGpus} GPUs whose UUIDs carry
   * {@code nodeName} (null: the plain form), so that simulated nodes of one cluster have distinct
   * GPUs.
   */
  public static GpuBackend open(String name, String nodeName, int simulatedGpus) {
    switch (name) {
      case "simulated" -> {
        LOG.log(System.Logger.Level.WARNING, "GPU backend: simulated (configured); no GPU is used");
        return simulated(nodeName, simulatedGpus);
      }
      case "cuda", "auto" -> {
        StringBuilder whyNot = new StringBuilder();
        Optional<CudaBackend> cuda = CudaBackend.open(whyNot);
        if (cuda.isPresent()) {
          LOG.log(
              System.Logger.Level.INFO,
              "GPU backend: cuda, {0} GPU(s)",
              cuda.get().devices().size());
          return cuda.get();
        }
        if (name.equals("cuda")) {
          throw new IllegalStateException(
              "backend cuda requested but no GPU can be used: "
                  + whyNot
                  + ". Check that the NVIDIA driver is installed and libcuda.so.1 is visible"
                  + " (LD_LIBRARY_PATH, the NVIDIA container runtime), or set backend: simulated.");
        }
        LOG.log(
            System.Logger.Level.WARNING,
            "GPU backend: simulated (auto: no usable CUDA driver: {0}); work is simulated on the CPU",
            whyNot);
        return simulated(nodeName, simulatedGpus);
      }
      default ->
          throw new IllegalArgumentException(
              "unknown GPU backend '" + name + "': use auto, cuda or simulated");
    }
  }

  private static GpuBackend simulated(String nodeName, int count) {
    return nodeName == null ? SimulatedBackend.h200(count) : SimulatedBackend.h200(count, nodeName);
  }
}
