package io.smslice.operator.webhook;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplate;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.config.Allocation;
import io.smslice.operator.config.OperatorConfig;
import io.smslice.operator.dra.ResourceClaimSpecs;
import io.smslice.operator.pods.SlicePods;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Mutating admission webhook for pods: a pod annotated {@code smslice.io/claim} is held behind a
 * scheduling gate (the operator lifts it once the claim is Bound and the pod pinned to the claim's
 * node) and gets the claim's extended resource on the chosen container. It never waits: it reads
 * the claim once, so every replica can answer and a claim created with its pods costs nothing. A
 * pod whose annotations cannot be followed is denied with the reason. With allocation dra, a pod of
 * a green claim gets the claim's ResourceClaim instead (DraPodPatches).
 */
@Path("/mutate-pods")
public class PodMutationWebhook {
  private final KubernetesClient client;
  private final OperatorConfig config;

  @Inject
  public PodMutationWebhook(KubernetesClient client, OperatorConfig config) {
    this.client = client;
    this.config = config;
  }

  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public String mutate(String body, @Context HttpServerRequest http) {
    if (config.webhookRequireTls() && !http.isSSL()) {
      throw new NotFoundException("the webhook is served over HTTPS only");
    }
    var serialization = client.getKubernetesSerialization();
    AdmissionReview review = serialization.unmarshal(body, AdmissionReview.class);
    if (review.getRequest() == null) {
      throw new jakarta.ws.rs.BadRequestException("AdmissionReview without a request");
    }
    var request = review.getRequest();
    Pod pod = serialization.convertValue(request.getObject(), Pod.class);
    AdmissionResponse response = answer(pod, request.getNamespace());
    response.setUid(request.getUid());
    AdmissionReview out = new AdmissionReview();
    out.setApiVersion(
        review.getApiVersion() == null ? "admission.k8s.io/v1" : review.getApiVersion());
    out.setKind("AdmissionReview");
    out.setResponse(response);
    return serialization.asJson(out);
  }

  private AdmissionResponse answer(Pod pod, String requestNamespace) {
    AdmissionResponse response = new AdmissionResponse();
    response.setAllowed(true);
    var annotations = pod == null ? null : pod.getMetadata().getAnnotations();
    String claimName = annotations == null ? null : annotations.get(SmsliceApi.CLAIM_ANNOTATION);
    String template = annotations == null ? null : annotations.get(SlicePods.TEMPLATE_ANNOTATION);
    if (claimName == null && template == null) {
      return response;
    }
    if (claimName != null && template != null) {
      return deny(
          response,
          "the pod names both a SliceClaim ("
              + SmsliceApi.CLAIM_ANNOTATION
              + ") and a SliceClaimTemplate ("
              + SlicePods.TEMPLATE_ANNOTATION
              + "): name one");
    }
    String key = claimName != null ? SmsliceApi.CLAIM_ANNOTATION : SlicePods.TEMPLATE_ANNOTATION;
    String name = claimName != null ? claimName : template;
    String invalid = SlicePods.invalidClaimName(name);
    if (invalid != null) {
      return deny(
          response,
          "annotation "
              + key
              + " '"
              + name
              + "' "
              + invalid
              + ": write the name of a "
              + (claimName != null ? "SliceClaim" : "SliceClaimTemplate")
              + " in the pod's namespace");
    }
    if (template != null && template.length() > 63) {
      // Its per-pod claims carry the template's name as a label value, which holds 63 characters.
      return deny(
          response,
          "annotation "
              + SlicePods.TEMPLATE_ANNOTATION
              + " names a SliceClaimTemplate of "
              + template.length()
              + " characters: the claims made from it are labelled with its name, so it may have"
              + " at most 63; rename the template");
    }
    if (pod.getSpec().getContainers().isEmpty()) {
      return deny(response, "the pod has no containers to give the slice to");
    }
    int container;
    try {
      container = SlicePods.target(pod);
    } catch (IllegalArgumentException e) {
      return deny(response, e.getMessage());
    }
    String ns =
        pod.getMetadata().getNamespace() != null
            ? pod.getMetadata().getNamespace()
            : requestNamespace;
    SliceClaim claim =
        claimName == null
            ? null
            : client.resources(SliceClaim.class).inNamespace(ns).withName(claimName).get();
    SliceClaimTemplate t =
        template == null
            ? null
            : client.resources(SliceClaimTemplate.class).inNamespace(ns).withName(template).get();
    if (Allocation.of(config) == Allocation.DRA) {
      SliceClaimSpec spec =
          claim != null
              ? claim.getSpec()
              : t != null && t.getSpec() != null ? t.getSpec().getSpec() : null;
      boolean missing = claimName != null ? claim == null : t == null;
      if (missing || ResourceClaimSpecs.servedByDra(spec)) {
        return draAnswer(response, pod, ns, claimName, template, container, spec, missing);
      }
    }
    Optional<Map.Entry<String, Integer>> resource;
    if (claimName != null) {
      SliceNode node = null;
      if (PodPatches.isBound(claim)) {
        node =
            client
                .resources(SliceNode.class)
                .withName(claim.getStatus().getBinding().getNode())
                .get();
      }
      resource = PodPatches.resource(claim, node);
    } else {
      resource =
          t == null || t.getSpec() == null
              ? Optional.empty()
              : SlicePods.resourceBeforeBinding(t.getSpec().getSpec());
    }
    if (resource.isEmpty()) {
      response.setWarnings(
          List.of(
              (claimName != null ? "SliceClaim " : "SliceClaimTemplate ")
                  + ns
                  + "/"
                  + name
                  + " does not exist yet or its isolation does not fix the resource yet: the pod"
                  + " waits behind its scheduling gate without a smslice resource; once its claim"
                  + " is Bound the operator deletes it if a controller owns it (so it is made again"
                  + " with the resource), else create it again yourself"));
    }
    var serialization = client.getKubernetesSerialization();
    String patch =
        serialization.asJson(PodPatches.forPod(pod, resource, container, config.toleratedTaints()));
    response.setPatchType("JSONPatch");
    response.setPatch(Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
    return response;
  }

  /**
   * The DRA answer: the pod gets the ResourceClaim (or ResourceClaimTemplate) of the same name. A
   * claim that does not exist yet is taken to be green, so the pod waits for its ResourceClaim.
   */
  private AdmissionResponse draAnswer(
      AdmissionResponse response,
      Pod pod,
      String ns,
      String claimName,
      String template,
      int container,
      SliceClaimSpec spec,
      boolean missing) {
    Map<String, String> nodeLabels =
        spec == null || spec.getSelector() == null || spec.getSelector().getNodeLabels() == null
            ? Map.of()
            : spec.getSelector().getNodeLabels();
    String conflict = DraPodPatches.conflict(pod, nodeLabels);
    if (conflict != null) {
      return deny(response, conflict);
    }
    if (missing) {
      response.setWarnings(
          List.of(
              (claimName != null ? "SliceClaim " : "SliceClaimTemplate ")
                  + ns
                  + "/"
                  + (claimName != null ? claimName : template)
                  + " does not exist yet: the pod waits for the "
                  + (claimName != null ? "ResourceClaim" : "ResourceClaimTemplate")
                  + " of that name, which the operator makes for a Compute or Auto claim"
                  + " (Memory and Shared claims need the claim made before the pod)"));
    }
    var ops =
        DraPodPatches.forPod(
            pod, claimName, template, container, config.toleratedTaints(), nodeLabels);
    String patch = client.getKubernetesSerialization().asJson(ops);
    response.setPatchType("JSONPatch");
    response.setPatch(Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
    return response;
  }

  private static AdmissionResponse deny(AdmissionResponse response, String message) {
    response.setAllowed(false);
    response.setStatus(
        new StatusBuilder().withCode(400).withReason("BadRequest").withMessage(message).build());
    return response;
  }
}
