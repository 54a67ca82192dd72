package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplate;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Gives a pod that names a SliceClaimTemplate its own claim: a SliceClaim made from the template,
 * owned by the pod (Kubernetes' garbage collector removes it with the pod, and the claim's
 * finalizer frees its slice), whose name is then written to the pod's {@code smslice.io/claim}
 * annotation. From there the pod goes the way of any claim pod.
 */
final class PerPodClaims {
  /** Label on a per-pod claim naming its template. */
  static final String TEMPLATE_LABEL = SmsliceApi.GROUP + "/claim-template";

  private final KubernetesClient client;

  PerPodClaims(KubernetesClient client) {
    this.client = client;
  }

  /** Makes the pod's claim and names it on the pod; empty when done, else why the pod waits. */
  Optional<PodVerdict.Wait> ensure(Pod pod, String template) {
    String ns = pod.getMetadata().getNamespace();
    SliceClaimTemplate t =
        client.resources(SliceClaimTemplate.class).inNamespace(ns).withName(template).get();
    if (t == null || t.getSpec() == null || t.getSpec().getSpec() == null) {
      return Optional.of(
          new PodVerdict.Wait(
              "ClaimTemplateNotFound",
              "SliceClaimTemplate " + ns + "/" + template + " does not exist; the pod waits"));
    }
    String name = claimName(pod.getMetadata().getName(), ns);
    SliceClaim claim = new SliceClaim();
    claim.setMetadata(
        new ObjectMetaBuilder()
            .withName(name)
            .withNamespace(ns)
            .addToLabels(TEMPLATE_LABEL, template)
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("v1")
                    .withKind("Pod")
                    .withName(pod.getMetadata().getName())
                    .withUid(pod.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build())
            .build());
    claim.setSpec(t.getSpec().getSpec());
    try {
      client.resource(claim).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      SliceClaim existing = client.resources(SliceClaim.class).inNamespace(ns).withName(name).get();
      if (existing == null) {
        return Optional.of(
            new PodVerdict.Wait(
                "PredecessorClaimReleasing",
                "SliceClaim "
                    + ns
                    + "/"
                    + name
                    + " was being removed; the pod's claim is made next"));
      }
      if (!ownedBy(existing, pod.getMetadata().getUid())) {
        if (predecessorOf(existing, pod)) {
          return Optional.of(releasePredecessors(existing, pod));
        }
        return Optional.of(
            new PodVerdict.Wait(
                "ClaimNameTaken",
                "SliceClaim "
                    + ns
                    + "/"
                    + name
                    + " exists and belongs to something else; rename it or the pod"));
      }
    }
    client
        .pods()
        .inNamespace(ns)
        .withName(pod.getMetadata().getName())
        .edit(
            p -> {
              p.getMetadata().getAnnotations().put(SmsliceApi.CLAIM_ANNOTATION, name);
              return p;
            });
    return Optional.empty();
  }

  private static boolean ownedBy(SliceClaim claim, String uid) {
    return claim.getMetadata().getOwnerReferences().stream().anyMatch(o -> uid.equals(o.getUid()));
  }

  /**
   * A claim made for an earlier pod of the same name (a StatefulSet's pod deleted and made again):
   * its controller is a Pod of this name with another uid, so that pod is gone, and the garbage
   * collector removes the claim in its own time.
   */
  private static boolean predecessorOf(SliceClaim claim, Pod pod) {
    return claim.getMetadata().getOwnerReferences().stream()
        .anyMatch(
            o ->
                Boolean.TRUE.equals(o.getController())
                    && "v1".equals(o.getApiVersion())
                    && "Pod".equals(o.getKind())
                    && pod.getMetadata().getName().equals(o.getName())
                    && !pod.getMetadata().getUid().equals(o.getUid()));
  }

  /** Deletes the predecessor's claim now instead of waiting for the garbage collector. */
  private PodVerdict.Wait releasePredecessors(SliceClaim claim, Pod pod) {
    if (claim.getMetadata().getDeletionTimestamp() == null) {
      client.resource(claim).delete();
    }
    return new PodVerdict.Wait(
        "PredecessorClaimReleasing",
        "SliceClaim "
            + claim.getMetadata().getNamespace()
            + "/"
            + claim.getMetadata().getName()
            + " of an earlier pod named "
            + pod.getMetadata().getName()
            + " is being released; this pod's own claim is made once it is gone");
  }

  /**
   * {@code <pod>-slice}, shortened with a digest of the pod's name when it would not fit: the
   * allocation ledger records each claim under {@code <namespace>.<name>}, a ConfigMap key of at
   * most 253 characters.
   */
  static String claimName(String pod, String namespace) {
    String plain = pod + "-slice";
    int limit = 252 - namespace.length();
    if (plain.length() <= limit) {
      return plain;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(pod.getBytes(StandardCharsets.UTF_8));
      String suffix = "-" + HexFormat.of().formatHex(digest, 0, 8) + "-slice";
      return pod.substring(0, limit - suffix.length()).replaceAll("[.-]+$", "") + suffix;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
