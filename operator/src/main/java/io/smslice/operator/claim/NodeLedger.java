package io.smslice.operator.claim;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The allocations of one node's GPUs, kept in one ConfigMap per node in the operator's namespace
 * and only ever replaced with a precondition on its resourceVersion. Every slice is written here
 * before the operator holds it, so two writers (two operators during a lease overlap, or a leader
 * with a stale view) cannot both take the same groups of a node: the second write is refused (409)
 * and its writer reads the cluster again. Claims' status bindings report what is here.
 */
public class NodeLedger {
  static final String LABEL = SmsliceApi.GROUP + "/allocations";
  static final String NODE_ANNOTATION = SmsliceApi.GROUP + "/node";
  private static final String PREFIX = "smslice-allocations-";

  private final KubernetesClient client;
  private final String namespace;

  /** A node's ledger as read: its allocations by claim key, and the version they were read at. */
  public record Snapshot(String node, String resourceVersion, Map<String, Binding> bindings) {
    public Snapshot {
      bindings = Map.copyOf(bindings);
    }
  }

  public NodeLedger(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /** The node's ledger as the API holds it now (not a cache). */
  public Snapshot read(String node) {
    ConfigMap cm = client.configMaps().inNamespace(namespace).withName(name(node)).get();
    return snapshot(node, cm);
  }

  /** Every node's ledger, by node name. */
  public Map<String, Snapshot> readAll() {
    Map<String, Snapshot> all = new HashMap<>();
    for (ConfigMap cm :
        client.configMaps().inNamespace(namespace).withLabel(LABEL, "true").list().getItems()) {
      var annotations = cm.getMetadata().getAnnotations();
      String node = annotations == null ? null : annotations.get(NODE_ANNOTATION);
      if (node != null) {
        all.put(node, snapshot(node, cm));
      }
    }
    return all;
  }

  /**
   * Replaces the node's allocations, if nobody changed them since {@code base} was read.
   *
   * @return false when someone did (nothing was written)
   */
  public boolean write(Snapshot base, Map<String, Binding> bindings) {
    Map<String, String> data = new TreeMap<>();
    bindings.forEach(
        (claim, b) -> data.put(dataKey(claim), client.getKubernetesSerialization().asJson(b)));
    ConfigMap cm =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName(name(base.node()))
            .withNamespace(namespace)
            .withResourceVersion(base.resourceVersion())
            .addToLabels(LABEL, "true")
            .addToAnnotations(NODE_ANNOTATION, base.node())
            .endMetadata()
            .withData(data)
            .build();
    try {
      if (base.resourceVersion() == null) {
        client.resource(cm).create();
      } else {
        client.resource(cm).update();
      }
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false;
      }
      throw e;
    }
  }

  private Snapshot snapshot(String node, ConfigMap cm) {
    if (cm == null) {
      return new Snapshot(node, null, Map.of());
    }
    Map<String, Binding> bindings = new LinkedHashMap<>();
    if (cm.getData() != null) {
      cm.getData()
          .forEach(
              (k, v) ->
                  bindings.put(
                      claimKey(k),
                      client.getKubernetesSerialization().unmarshal(v, Binding.class)));
    }
    return new Snapshot(node, cm.getMetadata().getResourceVersion(), bindings);
  }

  /** ConfigMap keys allow [-._a-zA-Z0-9]; namespaces have no dot, so the first one splits. */
  static String dataKey(String claimKey) {
    return claimKey.replaceFirst("/", ".");
  }

  static String claimKey(String dataKey) {
    return dataKey.replaceFirst("\\.", "/");
  }

  /** One object per node; long node names are shortened with a digest to stay a valid name. */
  static String name(String node) {
    String plain = PREFIX + node;
    if (plain.length() <= 253) {
      return plain;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(node.getBytes(StandardCharsets.UTF_8));
      return PREFIX + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
