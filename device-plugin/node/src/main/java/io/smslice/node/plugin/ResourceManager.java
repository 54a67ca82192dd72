package io.smslice.node.plugin;

import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import java.util.List;

/** The devices of one extended resource, and how a container gets them. */
public interface ResourceManager {
  /** Extended resource name, for example smslice.io/sm. */
  String resourceName();

  /** Short name for the plugin's socket file: smslice-&lt;name&gt;.sock. */
  String socketName();

  /** Every device with its current health. */
  List<Device> devices();

  /** Calls {@code listener} whenever {@link #devices()} changes. */
  void addListener(Runnable listener);

  /** The devices the plugin would like a container to get; the kubelet may ignore it. */
  List<String> preferred(List<String> available, List<String> mustInclude, int size);

  /**
   * What to inject into each container of one Allocate, given the devices the kubelet chose for it;
   * all containers are served or none is.
   */
  List<ContainerAllocateResponse> allocate(List<List<String>> containers)
      throws AllocationException;
}
