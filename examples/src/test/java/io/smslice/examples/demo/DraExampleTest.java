package io.smslice.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceClaim;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * examples/dra/: a ResourceClaimTemplate that asks smslice's DRA driver for SMs and memory the way
 * the driver publishes them, and a Deployment whose pods and containers name it correctly.
 */
class DraExampleTest {
  private static final Path DRA =
      Path.of("").toAbsolutePath().getParent().resolve("examples").resolve("dra");
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static List<HasMetadata> objects() throws Exception {
    List<HasMetadata> all = new ArrayList<>();
    try (var files = Files.list(DRA)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
        try (InputStream in = Files.newInputStream(f)) {
          Object parsed = SERIALIZATION.unmarshal(in);
          if (parsed instanceof List<?> list) {
            list.forEach(o -> all.add((HasMetadata) o));
          } else {
            all.add((HasMetadata) parsed);
          }
        }
      }
    }
    return all;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return (Map<String, Object>) o;
  }

  @Test
  @SuppressWarnings("unchecked")
  void theTemplateAsksOneSmsliceDeviceForSmsAndMemory() throws Exception {
    List<GenericKubernetesResource> templates =
        objects().stream()
            .filter(o -> o.getKind().equals("ResourceClaimTemplate"))
            .map(GenericKubernetesResource.class::cast)
            .toList();
    assertThat(templates).hasSize(1);
    GenericKubernetesResource t = templates.getFirst();
    assertThat(t.getApiVersion()).isEqualTo("resource.k8s.io/v1");
    var devices = map(map(map(t.getAdditionalProperties().get("spec")).get("spec")).get("devices"));
    var request = map(((List<?>) devices.get("requests")).getFirst());
    var exactly = map(request.get("exactly"));
    assertThat(exactly)
        .containsEntry("deviceClassName", "sm.smslice.io")
        .containsEntry("allocationMode", "ExactCount")
        .containsEntry("count", 1);
    var requests = map(map(exactly.get("capacity")).get("requests"));
    // The driver's capacities are sms (a count) and memory (bytes): no other key can be consumed.
    assertThat(requests.keySet()).isSubsetOf(Set.of("sms", "memory"));
    assertThat(Integer.parseInt((String) requests.get("sms"))).isPositive();
    assertThat(Quantity.getAmountInBytes(new Quantity((String) requests.get("memory"))))
        .isPositive();
    var config = map(((List<?>) devices.get("config")).getFirst());
    assertThat((List<Object>) config.get("requests")).containsExactly(request.get("name"));
    var opaque = map(config.get("opaque"));
    assertThat(opaque).containsEntry("driver", "smslice.io");
    var parameters = map(opaque.get("parameters"));
    assertThat(parameters)
        .containsEntry("apiVersion", "smslice.io/v1alpha1")
        .containsEntry("kind", "SliceConfig");
    assertThat(parameters.get("priority")).isIn("LatencyCritical", "Standard", "BestEffort");
  }

  @Test
  void theDeploymentsContainersUseThePodClaimMadeFromTheTemplate() throws Exception {
    List<HasMetadata> all = objects();
    Set<String> templates =
        all.stream()
            .filter(o -> o.getKind().equals("ResourceClaimTemplate"))
            .map(o -> o.getMetadata().getName())
            .collect(Collectors.toSet());
    List<Deployment> deployments =
        all.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast).toList();
    assertThat(deployments).hasSize(1);
    var pod = deployments.getFirst().getSpec().getTemplate();
    assertThat(deployments.getFirst().getSpec().getReplicas()).isGreaterThan(1);
    Set<String> podClaims =
        pod.getSpec().getResourceClaims().stream()
            .peek(c -> assertThat(templates).contains(c.getResourceClaimTemplateName()))
            .map(PodResourceClaim::getName)
            .collect(Collectors.toSet());
    for (Container c : pod.getSpec().getContainers()) {
      assertThat(c.getResources().getClaims())
          .extracting(ResourceClaim::getName)
          .isNotEmpty()
          .allSatisfy(name -> assertThat(podClaims).contains(name));
    }
    // A DRA pod needs neither the webhook's annotation nor the device plugin's resource.
    var annotations = pod.getMetadata().getAnnotations();
    assertThat(annotations == null ? Map.of() : annotations)
        .doesNotContainKeys("smslice.io/claim", "smslice.io/claim-template");
  }

  @Test
  void theDemoLeavesTheDraFolderOut() throws Exception {
    Path examples = DRA.getParent();
    Path root = examples.toRealPath();
    var loaded =
        ExampleObjects.files(examples, ".yaml").stream()
            .map(p -> root.relativize(p).toString())
            .toList();
    assertThat(loaded).isNotEmpty().noneMatch(p -> p.startsWith("dra/"));
  }
}
