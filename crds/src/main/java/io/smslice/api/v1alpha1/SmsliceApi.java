package io.smslice.api.v1alpha1;

/** Names shared by every component that reads or writes smslice objects. */
public final class SmsliceApi {
  public static final String GROUP = "smslice.io";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /** Pod annotation that names the SliceClaim (same namespace) whose slice the pod uses. */
  public static final String CLAIM_ANNOTATION = GROUP + "/claim";

  /** Label the operator sets on a bound claim so that node agents watch only their own claims. */
  public static final String NODE_LABEL = GROUP + "/node";

  /** Node label that picks a named node-side configuration (GPU modes, resource names). */
  public static final String NODE_CONFIG_LABEL = GROUP + "/config";

  /** Finalizer that keeps a claim until its slice is freed. */
  public static final String CLAIM_FINALIZER = GROUP + "/release-slice";

  private SmsliceApi() {}
}
