package io.smslice.operator.it;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The CRUD mock API server with smslice's CRDs and resource.k8s.io/v1 ResourceClaims and
 * ResourceClaimTemplates. The mock serves built-in kinds it knows nothing about only when they are
 * registered like CRDs (its API discovery comes from CRDs); the schema is open, as the tests write
 * what the kube-scheduler and the node would.
 */
public class DraMockCluster implements Consumer<KubernetesServer> {
  @Override
  public void accept(KubernetesServer server) {
    KubernetesClient client = server.getClient();
    Cluster.installCrds(client);
    for (String kind : new String[] {"ResourceClaim", "ResourceClaimTemplate"}) {
      client.resource(definition(kind)).create();
    }
  }

  private static CustomResourceDefinition definition(String kind) {
    String plural = kind.toLowerCase(java.util.Locale.ROOT) + "s";
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName(plural + ".resource.k8s.io")
        .endMetadata()
        .withNewSpec()
        .withGroup("resource.k8s.io")
        .withScope("Namespaced")
        .withNewNames()
        .withKind(kind)
        .withPlural(plural)
        .withSingular(kind.toLowerCase(java.util.Locale.ROOT))
        .endNames()
        .addNewVersion()
        .withName("v1")
        .withServed(true)
        .withStorage(true)
        .withNewSchema()
        .withNewOpenAPIV3Schema()
        .withType("object")
        .withXKubernetesPreserveUnknownFields(true)
        .withProperties(Map.of())
        .endOpenAPIV3Schema()
        .endSchema()
        .endVersion()
        .endSpec()
        .build();
  }
}
