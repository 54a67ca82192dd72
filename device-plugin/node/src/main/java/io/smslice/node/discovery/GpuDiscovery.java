package io.smslice.node.discovery;

import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.GpuInventory;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.nvml.NvmlGpu;
import io.smslice.node.nvml.NvmlMigDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Merges the GPU backend's inventory (SM count and split geometry from the CUDA driver) with NVML
 * (UUID, name, memory, MIG mode and instances, device minor) by GPU UUID, and applies each GPU's
 * configured mode. A mode the hardware cannot serve (green on a MIG-enabled GPU, mig without MIG
 * mode) turns the GPU off and says why; it never fails start-up.
 */
public final class GpuDiscovery {
  private static final Logger LOG = Logger.getLogger(GpuDiscovery.class.getName());

  private GpuDiscovery() {}

  public static List<DiscoveredGpu> discover(GpuInventory inventory, Nvml nvml, NodeConfig config) {
    Map<String, GpuDevice> cuda = new LinkedHashMap<>();
    inventory.devices().forEach(d -> cuda.put(key(d.uuid()), d));
    List<DiscoveredGpu> result = new ArrayList<>();
    List<NvmlGpu> nvmlGpus = nvml.gpus();
    for (NvmlGpu n : nvmlGpus) {
      GpuDevice d = cuda.remove(key(n.uuid()));
      int index = d != null ? d.index() : n.index();
      GpuMode wanted = config.modeOf(index, n.uuid());
      merge(n, d, index, wanted).ifPresent(result::add);
    }
    for (GpuDevice d : cuda.values()) {
      LOG.warning(
          "GPU " + d.uuid() + " is known to the CUDA backend but not to NVML; it is not offered");
    }
    return result;
  }

  private static java.util.Optional<DiscoveredGpu> merge(
      NvmlGpu n, GpuDevice d, int index, GpuMode wanted) {
    String note = null;
    GpuMode mode = wanted;
    if (n.migEnabled() && wanted != GpuMode.MIG && wanted != GpuMode.Off) {
      note = "MIG is enabled but the config asks for " + wanted + ": set this GPU's mode to mig";
      mode = GpuMode.Off;
    } else if (!n.migEnabled() && wanted == GpuMode.MIG) {
      note =
          "the config asks for mig but MIG mode is disabled on this GPU: enable it or change mode";
      mode = GpuMode.Off;
    } else if (d == null && (wanted == GpuMode.Green || wanted == GpuMode.MPS)) {
      note = "the CUDA backend does not list this GPU, so it cannot run in " + wanted + " mode";
      mode = GpuMode.Off;
    }
    if (note != null) {
      LOG.warning("GPU " + n.uuid() + ": " + note);
    }
    int smCount =
        d != null ? d.smCount() : n.migDevices().stream().mapToInt(NvmlMigDevice::sms).sum();
    if (smCount < 1) {
      LOG.warning("GPU " + n.uuid() + ": no SM count from CUDA or MIG instances; not offered");
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        new DiscoveredGpu(
            index,
            n.uuid(),
            n.name(),
            mode,
            n.memoryBytes(),
            smCount,
            d != null ? d.minPartitionSize() : null,
            d != null ? d.coscheduledAlignment() : null,
            d != null && mode == GpuMode.Green ? d.split() : List.of(),
            mode == GpuMode.MIG ? n.migDevices() : List.of(),
            n.minorNumber(),
            note));
  }

  private static String key(String uuid) {
    String u = uuid.toLowerCase(Locale.ROOT);
    return u.startsWith("gpu-") ? u : "gpu-" + u;
  }
}
