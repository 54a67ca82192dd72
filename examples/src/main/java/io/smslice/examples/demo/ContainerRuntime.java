package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Starts a container the demo kubelet has allocated devices for. */
interface ContainerRuntime {

  /** A bind mount: the host directory and where the container sees it. */
  record HostMount(String containerPath, Path hostPath, boolean readOnly) {}

  /** Everything the runtime needs: the pod, the container, and what Allocate said to add. */
  record Launch(Pod pod, Container container, Map<String, String> envs, List<HostMount> mounts) {
    /**
     * A path as the container would see it, mapped back to the host path it comes from (there is no
     * container); a value inside no mount is returned as it is.
     */
    String hostPath(String value) {
      for (HostMount m : mounts) {
        if (value.equals(m.containerPath()) || value.startsWith(m.containerPath() + "/")) {
          return m.hostPath() + value.substring(m.containerPath().length());
        }
      }
      return value;
    }
  }

  /** A started container. */
  interface Exit {
    /** Blocks until the container ends; true when it ended without error. */
    boolean await() throws InterruptedException;
  }

  Exit start(Launch launch);
}
