package io.smslice.operator.webhook;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.config.OperatorConfig;
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

/**
 * Mutating admission webhook for pods: a pod annotated {@code smslice.io/claim} gets our scheduler
 * and, when its claim is Bound (waiting a little for a claim created together with the pod), the
 * claim's extended resource. Reads the claim from the API, so every replica can answer.
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
  public String mutate(String body, @Context HttpServerRequest http) throws InterruptedException {
    if (config.webhookRequireTls() && !http.isSSL()) {
      throw new NotFoundException("the webhook is served over HTTPS only");
    }
    var serialization = client.getKubernetesSerialization();
    AdmissionReview review = serialization.unmarshal(body, AdmissionReview.class);
    if (review.getRequest() == null) {
      throw new jakarta.ws.rs.BadRequestException("AdmissionReview without a request");
    }
    var request = review.getRequest();
    AdmissionResponse response = new AdmissionResponse();
    response.setUid(request.getUid());
    response.setAllowed(true);
    Pod pod = serialization.convertValue(request.getObject(), Pod.class);
    var claimName = pod == null ? java.util.Optional.<String>empty() : SlicePods.claimName(pod);
    if (claimName.isPresent()) {
      String ns =
          pod.getMetadata().getNamespace() != null
              ? pod.getMetadata().getNamespace()
              : request.getNamespace();
      SliceClaim claim = awaitSettled(ns, claimName.get());
      SliceNode node = null;
      if (PodPatches.isBound(claim)) {
        node =
            client
                .resources(SliceNode.class)
                .withName(claim.getStatus().getBinding().getNode())
                .get();
      } else {
        response.setWarnings(
            List.of(
                "SliceClaim "
                    + ns
                    + "/"
                    + claimName.get()
                    + (claim == null ? " does not exist" : " is not Bound")
                    + ": the pod gets no smslice resource and will wait in Pending; create it"
                    + " again once the claim is Bound"));
      }
      String patch = serialization.asJson(PodPatches.forPod(pod, claim, node));
      response.setPatchType("JSONPatch");
      response.setPatch(Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
    }
    AdmissionReview out = new AdmissionReview();
    out.setApiVersion(
        review.getApiVersion() == null ? "admission.k8s.io/v1" : review.getApiVersion());
    out.setKind("AdmissionReview");
    out.setResponse(response);
    return serialization.asJson(out);
  }

  /** The claim once Bound or Failed, or as it is when the wait runs out (null: missing). */
  private SliceClaim awaitSettled(String ns, String name) throws InterruptedException {
    long deadline = System.nanoTime() + config.webhookClaimWait().toNanos();
    while (true) {
      SliceClaim claim = client.resources(SliceClaim.class).inNamespace(ns).withName(name).get();
      boolean settled =
          claim != null
              && claim.getStatus() != null
              && (claim.getStatus().getPhase() == Phase.Failed || PodPatches.isBound(claim));
      if (settled || System.nanoTime() > deadline) {
        return claim;
      }
      Thread.sleep(100);
    }
  }
}
