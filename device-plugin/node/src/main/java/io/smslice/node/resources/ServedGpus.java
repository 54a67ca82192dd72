package io.smslice.node.resources;

import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.health.GpuHealthMonitor;
import io.smslice.node.kubelet.v1beta1.Device;
import java.util.List;
import java.util.Optional;

/** The node's discovered GPUs with their live health, shared by the resource managers. */
public final class ServedGpus {
  static final String HEALTHY = "Healthy";
  static final String UNHEALTHY = "Unhealthy";

  private final List<DiscoveredGpu> gpus;
  private final GpuHealthMonitor health;

  public ServedGpus(List<DiscoveredGpu> gpus, GpuHealthMonitor health) {
    this.gpus = List.copyOf(gpus);
    this.health = health;
  }

  public List<DiscoveredGpu> all() {
    return gpus;
  }

  public List<DiscoveredGpu> inMode(GpuMode mode) {
    return gpus.stream().filter(g -> g.mode() == mode).toList();
  }

  public Optional<DiscoveredGpu> byUuid(String uuid) {
    return gpus.stream().filter(g -> g.uuid().equalsIgnoreCase(uuid)).findFirst();
  }

  Device device(String id, String gpuUuid) {
    return Device.newBuilder()
        .setID(id)
        .setHealth(health.condition(gpuUuid).healthy() ? HEALTHY : UNHEALTHY)
        .build();
  }

  void onHealthChange(Runnable listener) {
    health.addListener(conditions -> listener.run());
  }
}
