package io.smslice.node.dra.cdi;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a container of a prepared claim gets: environment, bind mounts and device nodes (the CDI
 * spec's containerEdits).
 */
public record ContainerEdits(
    Map<String, String> env, List<Mount> mounts, List<DeviceNode> devices) {
  public ContainerEdits {
    env = new TreeMap<>(env);
    mounts = List.copyOf(mounts);
    devices = List.copyOf(devices);
  }

  public record Mount(String hostPath, String containerPath, boolean readOnly) {}

  /**
   * @param permissions cgroup device permissions, "rw" or "rwm"
   */
  public record DeviceNode(String hostPath, String path, String permissions) {}
}
