package io.smslice.node.resources;

import io.smslice.node.kubelet.v1beta1.DeviceSpec;
import io.smslice.node.plugin.AllocationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The device nodes a container needs for a GPU or a MIG device. Only nodes that exist on the host
 * are listed: the runtime refuses a container whose device node is missing.
 */
public final class DeviceNodes {
  private final Path dev;
  private final Path migMinors;

  public DeviceNodes(Path dev, Path proc) {
    this.dev = dev;
    this.migMinors = proc.resolve("driver/nvidia-caps/mig-minors");
  }

  public List<DeviceSpec> forGpu(int minor) {
    List<DeviceSpec> specs = new ArrayList<>();
    for (String name : List.of("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools")) {
      add(specs, name);
    }
    if (minor >= 0) {
      add(specs, "nvidia" + minor);
    }
    return specs;
  }

  /** The parent GPU's nodes plus the capability nodes of the GPU and compute instance. */
  List<DeviceSpec> forMig(int parentMinor, int gpuInstance, int computeInstance)
      throws AllocationException {
    List<DeviceSpec> specs = forGpu(parentMinor);
    String gi = "gpu" + parentMinor + "/gi" + gpuInstance;
    for (String cap : List.of(gi + "/access", gi + "/ci" + computeInstance + "/access")) {
      int capMinor =
          capMinor(cap)
              .orElseThrow(
                  () ->
                      new AllocationException(
                          "smslice: the MIG device's capability "
                              + cap
                              + " is not in "
                              + migMinors
                              + "; was the MIG instance deleted? Ask the cluster admin."));
      add(specs, "nvidia-caps/nvidia-cap" + capMinor);
    }
    return specs;
  }

  private Optional<Integer> capMinor(String capability) {
    if (!Files.exists(migMinors)) {
      return Optional.empty();
    }
    try {
      return Files.readAllLines(migMinors).stream()
          .map(String::trim)
          .filter(l -> l.startsWith(capability + " "))
          .map(l -> Integer.parseInt(l.substring(capability.length()).trim()))
          .findFirst();
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  private void add(List<DeviceSpec> specs, String name) {
    Path host = dev.resolve(name);
    if (Files.exists(host)) {
      specs.add(
          DeviceSpec.newBuilder()
              .setHostPath(host.toString())
              .setContainerPath("/dev/" + name)
              .setPermissions("rw")
              .build());
    }
  }
}
