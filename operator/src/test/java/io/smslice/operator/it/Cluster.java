package io.smslice.operator.it;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Isolation;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.node.GpuHealth;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.api.v1alpha1.node.SliceNodeStatus;
import io.smslice.api.v1alpha1.node.SmGroup;
import io.smslice.operator.pods.SlicePods;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Objects for operator tests against fabric8's CRUD mock API server. */
public final class Cluster {
  public static final String NS = "test";

  private Cluster() {}

  /** Registers the project's generated CRDs (crds/*.yml) so the mock serves the kinds. */
  public static void installCrds(KubernetesClient client) {
    // From the operator module (surefire) the CRDs are at ../crds; from the root (exec:java), crds.
    Path dir = Files.isDirectory(Path.of("..", "crds")) ? Path.of("..", "crds") : Path.of("crds");
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yml")).sorted().toList()) {
        try (InputStream in = Files.newInputStream(f)) {
          CustomResourceDefinition crd =
              client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
          client.resource(crd).createOr(existing -> existing.update());
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the CRDs in " + dir.toAbsolutePath(), e);
    }
  }

  /** An H200-like green GPU: 15 groups of 8 SMs and a remainder group of 12. */
  public static NodeGpu h200(String uuid, int index, String product) {
    NodeGpu g = new NodeGpu();
    g.setIndex(index);
    g.setUuid(uuid);
    g.setProduct(product);
    g.setMode(GpuMode.Green);
    g.setSmCount(132);
    g.setMinPartitionSize(8);
    g.setCoscheduledAlignment(8);
    List<SmGroup> groups = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      groups.add(new SmGroup(i, 8));
    }
    groups.add(new SmGroup(15, 12));
    g.setSmGroups(groups);
    g.setMemory(new Quantity("141Gi"));
    g.setHealth(GpuHealth.Healthy);
    return g;
  }

  public static NodeGpu mps(String uuid, int index, String product) {
    NodeGpu g = h200(uuid, index, product);
    g.setMode(GpuMode.MPS);
    g.setSmGroups(new ArrayList<>());
    return g;
  }

  /** Creates (or replaces) a SliceNode with a heartbeat of {@code beat}. */
  public static SliceNode sliceNode(
      KubernetesClient client, String name, Instant beat, NodeGpu... gpus) {
    SliceNode sn = new SliceNode();
    sn.setMetadata(new ObjectMetaBuilder().withName(name).build());
    SliceNode created = client.resource(sn).createOr(existing -> existing.update());
    SliceNodeStatus status = new SliceNodeStatus();
    status.setGpus(new ArrayList<>(List.of(gpus)));
    status.setAgentVersion("test");
    status.setBackend("simulated");
    status.setHeartbeat(beat.toString());
    created.setStatus(status);
    return client.resource(created).updateStatus();
  }

  public static SliceClaim claim(String name, Integer sms, String product) {
    SliceClaim c = new SliceClaim();
    c.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NS).build());
    SliceClaimSpec spec = new SliceClaimSpec();
    spec.setSms(sms);
    spec.setIsolation(Isolation.Compute);
    spec.setPriority(Priority.Standard);
    if (product != null) {
      var selector = new io.smslice.api.v1alpha1.claim.GpuSelector();
      selector.setProduct(product);
      spec.setSelector(selector);
    }
    c.setSpec(spec);
    return c;
  }

  /** A pod as a user writes it: one container "main" running busybox, no smslice annotation. */
  public static Pod pod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NS)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .build();
  }

  /** {@link #pod} naming its SliceClaim. */
  public static Pod podOf(String name, String claim) {
    return annotated(pod(name), SmsliceApi.CLAIM_ANNOTATION, claim);
  }

  /** {@link #pod} naming its SliceClaimTemplate. */
  public static Pod podOfTemplate(String name, String template) {
    return annotated(pod(name), SlicePods.TEMPLATE_ANNOTATION, template);
  }

  private static Pod annotated(Pod pod, String annotation, String value) {
    return new PodBuilder(pod)
        .editMetadata()
        .addToAnnotations(annotation, value)
        .endMetadata()
        .build();
  }

  /** Edits a claim's spec, retrying when the operator wrote the claim in between (409). */
  public static void editSpec(
      KubernetesClient client, String name, java.util.function.Consumer<SliceClaimSpec> change) {
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(
            () -> {
              client
                  .resources(SliceClaim.class)
                  .inNamespace(NS)
                  .withName(name)
                  .edit(
                      c -> {
                        change.accept(c.getSpec());
                        return c;
                      });
              return true;
            });
  }

  public static SliceClaim get(KubernetesClient client, String name) {
    return client.resources(SliceClaim.class).inNamespace(NS).withName(name).get();
  }

  public static SliceClaim awaitPhase(KubernetesClient client, String name, Phase phase) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              SliceClaim c = get(client, name);
              return c != null && c.getStatus() != null && c.getStatus().getPhase() == phase;
            });
    return get(client, name);
  }
}
