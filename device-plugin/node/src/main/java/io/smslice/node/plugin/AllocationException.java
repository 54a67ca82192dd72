package io.smslice.node.plugin;

/**
 * An Allocate the plugin cannot serve. The kubelet puts the message on the pod (its status and
 * events), so it is written for the pod's owner: what is wrong and what to check.
 */
public class AllocationException extends Exception {
  public AllocationException(String message) {
    super(message);
  }
}
