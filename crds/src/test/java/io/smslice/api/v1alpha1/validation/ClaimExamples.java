package io.smslice.api.v1alpha1.validation;

/** SliceClaim manifests for the validation tests, as users would write them. */
final class ClaimExamples {
  private ClaimExamples() {}

  /** A claim with the given spec body (YAML lines indented under spec:). */
  static String claim(String spec) {
    return """
        apiVersion: smslice.io/v1alpha1
        kind: SliceClaim
        metadata:
          name: detector
          namespace: vision
        spec:
        """
        + spec.indent(2);
  }

  /** A claim with a spec and a status, as the API server stores it after binding. */
  static String bound(String spec, String status) {
    return claim(spec) + "status:\n" + status.indent(2);
  }

  static final String BINDING =
      """
      phase: Bound
      binding:
        node: gpu-node-1
        gpuUuid: GPU-0c1d
        mode: Green
        smGroups: [0, 1]
        sms: 16
      """;
}
