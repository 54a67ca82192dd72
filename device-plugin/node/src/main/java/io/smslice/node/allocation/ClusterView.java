package io.smslice.node.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.util.List;
import java.util.Optional;

/** What the allocation resolver reads from the Kubernetes API. */
public interface ClusterView {
  /** Pods whose spec.nodeName is this node. */
  List<Pod> podsOnNode(String nodeName);

  Optional<SliceClaim> claim(String namespace, String name);
}
