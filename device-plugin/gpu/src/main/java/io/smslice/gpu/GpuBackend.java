package io.smslice.gpu;

import java.util.List;

/**
 * Access to the GPUs of this node: the inventory, plus green contexts built from groups of each
 * GPU's one SM split. Implementations: {@code cuda} (the real driver) and {@code simulated} (CPU
 * execution of a few built-in kernels, for tests and demos).
 */
public interface GpuBackend extends GpuInventory, AutoCloseable {

  /** True when no GPU is used; logs and status must then say the work is simulated. */
  boolean simulated();

  /**
   * A green context confined to the given groups of the GPU's split. The context is bound to the
   * thread that calls {@link GreenContext#makeCurrent()}; use it from one thread at a time.
   */
  GreenContext createGreenContext(String gpuUuid, List<Integer> groupIds) throws GpuException;

  /**
   * Throws away everything the GPU's shared context held (memory, modules, green contexts), after a
   * fault left it unusable, so that new green contexts can be made.
   */
  void resetDevice(String gpuUuid) throws GpuException;

  /** The device with this UUID, or a clear error naming the ones that exist. */
  default GpuDevice device(String gpuUuid) throws GpuException {
    return devices().stream()
        .filter(d -> d.uuid().equals(gpuUuid))
        .findFirst()
        .orElseThrow(
            () ->
                new GpuException(
                    GpuError.INVALID_VALUE,
                    "no GPU "
                        + gpuUuid
                        + " on this node; known: "
                        + devices().stream().map(GpuDevice::uuid).toList()));
  }

  @Override
  void close();
}
