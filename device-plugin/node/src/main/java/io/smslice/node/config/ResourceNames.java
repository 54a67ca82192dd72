package io.smslice.node.config;

/** Kubelet extended resource names, one per way a GPU is shared. */
public record ResourceNames(String sm, String mig, String mps) {
  public static final ResourceNames DEFAULTS =
      new ResourceNames("smslice.io/sm", "smslice.io/mig", "smslice.io/mps");
}
