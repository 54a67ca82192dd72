package io.smslice.operator.it;

import static io.smslice.operator.it.Cluster.NS;
import static io.smslice.operator.it.Cluster.awaitPhase;
import static io.smslice.operator.it.Cluster.claim;
import static io.smslice.operator.it.Cluster.h200;
import static io.smslice.operator.it.Cluster.sliceNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.operator.pods.SlicePods;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The claim-gate controller against the CRUD mock API server: gated pods of a Bound claim are
 * pinned to its node and released to the kube-scheduler; the operator binds nothing itself.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = MockCluster.class)
class ClaimGateTest {
  @Inject KubernetesClient client;

  /** A pod as the webhook leaves it: labelled, gated, with the resource. */
  static Pod gated(String name, String claim, int sms) {
    var q = Map.of(SlicePods.SM_RESOURCE, new Quantity(Integer.toString(sms)));
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NS)
        .addToAnnotations(SmsliceApi.CLAIM_ANNOTATION, claim)
        .addToLabels(SlicePods.MANAGED_LABEL, "true")
        .endMetadata()
        .withNewSpec()
        .addNewSchedulingGate(SlicePods.GATE)
        .withNodeSelector(Map.of("disk", "ssd"))
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .withRequests(q)
        .withLimits(q)
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private Pod pod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private boolean released(String name) {
    Pod p = pod(name);
    return p != null && p.getSpec().getSchedulingGates().isEmpty();
  }

  private boolean hasEvent(String object, String reason) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .anyMatch(
            e -> e.getInvolvedObject().getName().equals(object) && e.getReason().equals(reason));
  }

  /** Issue 12.1 and 12.3: pinned by node affinity and released; never bound by the operator. */
  @Test
  void gatedPodWaitsForItsClaimThenIsPinnedAndReleased() {
    client.resource(claim("gate-claim", 16, "P-gate")).create();
    client.resource(gated("gate-pod", "gate-claim", 16)).create();
    // The first reconcile of the class waits for the operator's informers to sync: under a loaded
    // CI machine that alone passed 20 s once.
    await().atMost(Duration.ofSeconds(60)).until(() -> hasEvent("gate-pod", "ClaimNotBound"));
    assertThat(released("gate-pod")).isFalse();

    sliceNode(client, "gate-1", Instant.now(), h200("GPU-gate-1", 0, "P-gate"));
    awaitPhase(client, "gate-claim", Phase.Bound);
    await().atMost(Duration.ofSeconds(20)).until(() -> released("gate-pod"));
    Pod p = pod("gate-pod");
    assertThat(p.getSpec().getNodeName()).as("the kube-scheduler binds, not the operator").isNull();
    var terms =
        p.getSpec()
            .getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    assertThat(terms).hasSize(1);
    assertThat(terms.getFirst().getMatchFields())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getKey()).isEqualTo("metadata.name");
              assertThat(r.getOperator()).isEqualTo("In");
              assertThat(r.getValues()).containsExactly("gate-1");
            });
    assertThat(p.getSpec().getNodeSelector()).containsExactly(Map.entry("disk", "ssd"));
    assertThat(p.getSpec().getContainers().getFirst().getResources().getRequests())
        .containsEntry(SlicePods.SM_RESOURCE, new Quantity("16"));
    await().atMost(Duration.ofSeconds(10)).until(() -> hasEvent("gate-pod", "ClaimBound"));
  }

  /** Issue 12.2: a claim serves one pod at a time; the next waits gated with a reason. */
  @Test
  void aSecondPodOfTheSameClaimWaitsUntilTheFirstIsGone() {
    sliceNode(client, "one-1", Instant.now(), h200("GPU-one-1", 0, "P-one"));
    client.resource(claim("one-claim", 16, "P-one")).create();
    awaitPhase(client, "one-claim", Phase.Bound);
    client.resource(gated("one-a", "one-claim", 16)).create();
    client.resource(gated("one-b", "one-claim", 16)).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                (released("one-a") || released("one-b"))
                    && (hasEvent("one-a", "ClaimInUse") || hasEvent("one-b", "ClaimInUse")));
    String first = released("one-a") ? "one-a" : "one-b";
    String second = first.equals("one-a") ? "one-b" : "one-a";
    assertThat(released(second)).isFalse();
    assertThat(
            client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals(second))
                .filter(e -> e.getReason().equals("ClaimInUse"))
                .findFirst()
                .orElseThrow()
                .getMessage())
        .contains("already serves pod " + first)
        .contains("one claim each");

    client.pods().inNamespace(NS).withName(first).delete();
    await().atMost(Duration.ofSeconds(20)).until(() -> released(second));
  }

  /** What a kubelet writes once it has admitted the pod (and so allocated its devices). */
  private void admit(String name) {
    client
        .pods()
        .inNamespace(NS)
        .withName(name)
        .editStatus(
            p -> {
              p.setStatus(
                  new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                      .withPhase("Pending")
                      .addNewContainerStatus()
                      .withName("main")
                      .withNewState()
                      .withNewWaiting()
                      .withReason("ContainerCreating")
                      .endWaiting()
                      .endState()
                      .endContainerStatus()
                      .build());
              return p;
            });
  }

  /**
   * The kubelet's Allocate names no pod: two pods with the same request on one node must not wait
   * for their kubelet at once, or the node side could give each the other's slice.
   */
  @Test
  void podsWithTheSameRequestOnOneNodeAreReleasedOneAfterTheOtherAsTheKubeletAdmitsThem() {
    sliceNode(client, "ord-1", Instant.now(), h200("GPU-ord-1", 0, "P-ord"));
    for (String c : java.util.List.of("ord-x", "ord-y", "ord-z")) {
      client.resource(claim(c, c.equals("ord-z") ? 32 : 16, "P-ord")).create();
      awaitPhase(client, c, Phase.Bound);
    }
    client.resource(gated("ord-a", "ord-x", 16)).create();
    client.resource(gated("ord-b", "ord-y", 16)).create();
    client.resource(gated("ord-c", "ord-z", 32)).create();

    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                (released("ord-a") || released("ord-b"))
                    && (hasEvent("ord-a", "AwaitingAllocateOrder")
                        || hasEvent("ord-b", "AwaitingAllocateOrder")));
    String first = released("ord-a") ? "ord-a" : "ord-b";
    String second = first.equals("ord-a") ? "ord-b" : "ord-a";
    assertThat(released(second)).isFalse();
    // A different request on the same node is told apart by its size: it does not wait.
    await().atMost(Duration.ofSeconds(20)).until(() -> released("ord-c"));
    assertThat(hasEvent("ord-c", "AwaitingAllocateOrder")).isFalse();

    admit(first);
    await().atMost(Duration.ofSeconds(20)).until(() -> released(second));
  }

  /** A pod admitted before its Auto claim fixed the resource is made again by its controller. */
  @Test
  void ownedPodWithTheWrongRequestIsDeletedForItsControllerToRecreate() {
    sliceNode(client, "re-1", Instant.now(), h200("GPU-re-1", 0, "P-re"));
    client.resource(claim("re-claim", 16, "P-re")).create();
    awaitPhase(client, "re-claim", Phase.Bound);
    Pod wrong =
        new PodBuilder(gated("re-pod", "re-claim", 40))
            .editMetadata()
            .addNewOwnerReference()
            .withApiVersion("apps/v1")
            .withKind("ReplicaSet")
            .withName("re-rs")
            .withUid("uid-re-rs")
            .withController(true)
            .endOwnerReference()
            .endMetadata()
            .build();
    client.resource(wrong).create();
    await().atMost(Duration.ofSeconds(20)).until(() -> pod("re-pod") == null);
    await().atMost(Duration.ofSeconds(10)).until(() -> hasEvent("re-claim", "PodRecreated"));
  }

  /** Issue 12.2: each pod of a replicated workload gets its own claim from a template. */
  @Test
  void aPodNamingAClaimTemplateGetsItsOwnClaimOwnedByThePod() {
    sliceNode(client, "tpl-1", Instant.now(), h200("GPU-tpl-1", 0, "P-tpl"));
    var template = new io.smslice.api.v1alpha1.claim.SliceClaimTemplate();
    template.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName("per-pod")
            .withNamespace(NS)
            .build());
    template.setSpec(new io.smslice.api.v1alpha1.claim.SliceClaimTemplateSpec());
    template.getSpec().setSpec(claim("unused", 16, "P-tpl").getSpec());
    client.resource(template).create();
    for (String name : java.util.List.of("rep-a", "rep-b")) {
      Pod p =
          new PodBuilder(gated(name, "unused", 16))
              .editMetadata()
              .withAnnotations(Map.of(SlicePods.TEMPLATE_ANNOTATION, "per-pod"))
              .withUid("uid-" + name)
              .endMetadata()
              .build();
      client.resource(p).create();
    }
    // Same request on one node: released one after the other, as each one's kubelet admits it.
    await().atMost(Duration.ofSeconds(30)).until(() -> released("rep-a") || released("rep-b"));
    String first = released("rep-a") ? "rep-a" : "rep-b";
    admit(first);
    await().atMost(Duration.ofSeconds(30)).until(() -> released("rep-a") && released("rep-b"));
    for (String name : java.util.List.of("rep-a", "rep-b")) {
      var claim = Cluster.get(client, name + "-slice");
      assertThat(claim.getStatus().getPhase()).isEqualTo(Phase.Bound);
      assertThat(claim.getSpec().getSms()).isEqualTo(16);
      assertThat(claim.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(
              o -> {
                // Kubernetes' garbage collector follows apiVersion, kind, name and uid: all must
                // name the pod, or the claim outlives it (or is collected with something else).
                assertThat(o.getApiVersion()).isEqualTo("v1");
                assertThat(o.getKind()).isEqualTo("Pod");
                assertThat(o.getName()).isEqualTo(name);
                assertThat(o.getUid()).isEqualTo(pod(name).getMetadata().getUid());
                assertThat(o.getController()).isTrue();
                assertThat(o.getBlockOwnerDeletion()).isTrue();
              });
      assertThat(pod(name).getMetadata().getAnnotations())
          .containsEntry(SmsliceApi.CLAIM_ANNOTATION, name + "-slice");
    }
    assertThat(Cluster.get(client, "rep-a-slice").getStatus().getBinding().getSmGroups())
        .doesNotContainAnyElementsOf(
            Cluster.get(client, "rep-b-slice").getStatus().getBinding().getSmGroups());
  }

  private void template(String name, String product) {
    var template = new io.smslice.api.v1alpha1.claim.SliceClaimTemplate();
    template.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(name)
            .withNamespace(NS)
            .build());
    template.setSpec(new io.smslice.api.v1alpha1.claim.SliceClaimTemplateSpec());
    template.getSpec().setSpec(claim("unused", 8, product).getSpec());
    client.resource(template).create();
  }

  private void templatePod(String name, String template) {
    client
        .resource(
            new PodBuilder(gated(name, "unused", 8))
                .editMetadata()
                .withAnnotations(Map.of(SlicePods.TEMPLATE_ANNOTATION, template))
                .endMetadata()
                .build())
        .create();
  }

  /** Whether the claim is owned by the pod of that name as it is now (the mock assigns uids). */
  private boolean ownedByPod(String claim, String podName) {
    Pod p = pod(podName);
    if (p == null) {
      return false;
    }
    String uid = p.getMetadata().getUid();
    var c =
        client
            .resources(io.smslice.api.v1alpha1.claim.SliceClaim.class)
            .inNamespace(NS)
            .withName(claim)
            .get();
    return c != null
        && c.getMetadata().getOwnerReferences().stream().anyMatch(o -> uid.equals(o.getUid()));
  }

  /**
   * A StatefulSet's pod deleted and made again under its name meets the claim of its predecessor
   * (the garbage collector has not removed it yet, or, as here, there is none): the claim is
   * released and the new pod gets one of its own.
   */
  @Test
  void aPodMadeAgainUnderItsNameGetsItsOwnClaimInPlaceOfItsPredecessors() {
    sliceNode(client, "heir-1", Instant.now(), h200("GPU-heir-1", 0, "P-heir"));
    template("heir", "P-heir");
    var predecessor = claim("heir-0-slice", 8, "P-heir");
    predecessor
        .getMetadata()
        .setOwnerReferences(
            java.util.List.of(
                new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                    .withApiVersion("v1")
                    .withKind("Pod")
                    .withName("heir-0")
                    .withUid("uid-heir-gone")
                    .withController(true)
                    .build()));
    client.resource(predecessor).create();
    awaitPhase(client, "heir-0-slice", Phase.Bound);

    templatePod("heir-0", "heir");
    await().atMost(Duration.ofSeconds(30)).until(() -> ownedByPod("heir-0-slice", "heir-0"));
    awaitPhase(client, "heir-0-slice", Phase.Bound);
    await().atMost(Duration.ofSeconds(30)).until(() -> released("heir-0"));
    assertThat(hasEvent("heir-0", "PredecessorClaimReleasing")).isTrue();
  }

  /** A claim of that name that is not a predecessor's is the user's: kept, and the pod waits. */
  @Test
  void aClaimOfThatNameThatBelongsToSomethingElseIsKeptAndThePodWaits() {
    client.resource(claim("other-0-slice", 8, "P-other")).create();
    template("other", "P-other");
    templatePod("other-0", "other");
    await().atMost(Duration.ofSeconds(30)).until(() -> hasEvent("other-0", "ClaimNameTaken"));
    assertThat(ownedByPod("other-0-slice", "other-0")).isFalse();
    assertThat(Cluster.get(client, "other-0-slice").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(released("other-0")).isFalse();
  }

  /** The template is made after the pod: the pod looks again and gets its claim. */
  @Test
  void aPodWhoseTemplateIsMadeLaterGetsItsClaim() {
    sliceNode(client, "late-1", Instant.now(), h200("GPU-late-1", 0, "P-late"));
    templatePod("late-0", "late");
    await().atMost(Duration.ofSeconds(60)).until(() -> hasEvent("late-0", "ClaimTemplateNotFound"));
    template("late", "P-late");
    await().atMost(Duration.ofSeconds(30)).until(() -> ownedByPod("late-0-slice", "late-0"));
    await().atMost(Duration.ofSeconds(30)).until(() -> released("late-0"));
  }
}
