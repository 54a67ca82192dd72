package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.node.ServedClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.e2e.cluster.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the DRA tests make and read: ResourceClaims and pods as a user writes them, and the
 * allocation, the node's record of it, the agents' view and the containers' view.
 */
final class Dra {
  static final String DRIVER = "smslice.io";
  static final String DEVICE_CLASS = "sm.smslice.io";

  /**
   * The label of every claim and pod {@link #claim} and {@link #podWithClaims} write: its value is
   * the set the test puts them in, so that a test deletes a set by label.
   */
  static final String SET_LABEL = "smslice.io/test-set";

  /** A small image with a shell: the tenants print what their claim gave them, then sleep. */
  static final String IMAGE = "ghcr.io/smslice/smslice-node:0.1.0";

  private static final String REPORT =
      "echo \"claim=$SMSLICE_CLAIM gpu=$SMSLICE_GPU_UUID groups=$SMSLICE_SM_GROUPS\"; exec sleep"
          + " 100000";
  private static final Pattern SEEN = Pattern.compile("claim=(\\S*) gpu=(\\S*) groups=([0-9,]*)");

  /** A claim as the API server and the node record it. */
  record Prepared(
      String name,
      String pool,
      String device,
      String gpu,
      List<Integer> groups,
      int sms,
      int groupSize) {}

  /** A claim as a node's agent serves it (the SliceNode's claims). */
  record Served(String node, String gpu, List<Integer> groups) {}

  /** What a container printed of its claim. */
  record Seen(String claim, String gpu, List<Integer> groups) {}

  private Dra() {}

  static String claim(String name, int sms, String priority, String set) {
    return claimOf(name, set, devices(sms, priority, null));
  }

  /** A claim only the GPU with {@code gpuUuid} can meet (a CEL selector on its uuid attribute). */
  static String claimOnGpu(String name, int sms, String gpuUuid, String set) {
    String cel = "device.attributes[\"%s\"].uuid == \"%s\"".formatted(DRIVER, gpuUuid);
    return claimOf(name, set, devices(sms, null, cel));
  }

  private static String claimOf(String name, String set, String devices) {
    return """
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %s, labels: {smslice.io/test: dra, %s: %s}}
        spec:
        %s"""
        .formatted(name, SET_LABEL, set, devices.indent(2));
  }

  static String template(String name, int sms) {
    return """
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata: {name: %s}
        spec:
          spec:
        %s"""
        .formatted(name, devices(sms, null, null).indent(4));
  }

  /**
   * The devices of a claim's spec: one request "slice" for sms SMs of the device class, with the
   * CEL selector unless it is null, and, unless priority is null, a SliceConfig with that priority.
   */
  private static String devices(int sms, String priority, String cel) {
    String config =
        priority == null
            ? ""
            : """
              config:
              - opaque:
                  driver: %s
                  parameters: {apiVersion: smslice.io/v1alpha1, kind: SliceConfig, priority: %s}
            """
                .formatted(DRIVER, priority);
    return """
        devices:
          requests:
          - name: slice
            exactly:
              deviceClassName: %s
        %s      capacity:
                requests: {sms: "%d"}
        %s"""
        .formatted(
            DEVICE_CLASS,
            cel == null ? "" : "      selectors:\n      - cel: {expression: '" + cel + "'}\n",
            sms,
            config);
  }

  /** A pod with one container per claim, each container using only its own. */
  static String podWithClaims(String name, List<String> claims, String node, String set) {
    StringBuilder refs = new StringBuilder();
    StringBuilder containers = new StringBuilder();
    for (int i = 0; i < claims.size(); i++) {
      refs.append("  - {name: r").append(i).append(", resourceClaimName: ").append(claims.get(i));
      refs.append("}\n");
      containers
          .append("  - name: c")
          .append(i)
          .append("\n    image: ")
          .append(IMAGE)
          .append("\n    command: [sh, -c, '")
          .append(REPORT)
          .append("']\n    resources: {claims: [{name: r")
          .append(i)
          .append("}]}\n");
    }
    return """
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: %s, labels: {smslice.io/test: dra, %s: %s}}
        spec:
          terminationGracePeriodSeconds: 1
        %s  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
          resourceClaims:
        %s  containers:
        %s"""
        .formatted(
            name,
            SET_LABEL,
            set,
            node == null ? "" : "  nodeSelector: {kubernetes.io/hostname: " + node + "}\n",
            refs,
            containers);
  }

  /** A Deployment whose pods each get a claim of the template, on one node. */
  static String deployment(String name, int replicas, String template, String node) {
    return """
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: %1$s}
        spec:
          replicas: %2$d
          selector: {matchLabels: {app: %1$s}}
          template:
            metadata: {labels: {app: %1$s}}
            spec:
              terminationGracePeriodSeconds: 1
              nodeSelector: {kubernetes.io/hostname: %4$s}
              tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
              resourceClaims:
              - {name: slice, resourceClaimTemplateName: %3$s}
              containers:
              - name: main
                image: %5$s
                command: [sh, -c, '%6$s']
                resources: {claims: [{name: slice}]}
        """
        .formatted(name, replicas, template, node, IMAGE, REPORT);
  }

  static List<Pod> awaitRunning(
      TestCluster cluster, String ns, String selector, int count, Duration timeout) {
    Wait.until(
        timeout,
        count + " pods " + selector + " Running in " + ns,
        () -> {
          List<Pod> pods = pods(cluster, ns, selector);
          return pods.size() == count
              && pods.stream().allMatch(p -> "Running".equals(p.getStatus().getPhase()));
        });
    return pods(cluster, ns, selector);
  }

  private static List<Pod> pods(TestCluster cluster, String ns, String selector) {
    return cluster
        .client
        .pods()
        .inNamespace(ns)
        .withLabelSelector(selector)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  /** The smslice.io devices of every ResourceSlice, by "pool/device". */
  static Map<String, Map<String, Object>> devices(TestCluster cluster) {
    Map<String, Map<String, Object>> out = new HashMap<>();
    for (GenericKubernetesResource slice :
        cluster
            .client
            .genericKubernetesResources("resource.k8s.io/v1", "ResourceSlice")
            .list()
            .getItems()) {
      Map<String, Object> spec = map(slice.getAdditionalProperties().get("spec"));
      if (!DRIVER.equals(spec.get("driver"))) {
        continue;
      }
      String pool = (String) map(spec.get("pool")).get("name");
      for (Object d : list(spec.get("devices"))) {
        Map<String, Object> device = map(d);
        out.put(pool + "/" + device.get("name"), device);
      }
    }
    return out;
  }

  /**
   * Every allocated smslice.io claim of the namespace: the scheduler's allocation and the groups
   * the node recorded in the claim's status.
   */
  static Map<String, Prepared> prepared(TestCluster cluster, String ns) {
    Map<String, Map<String, Object>> devices = devices(cluster);
    Map<String, Prepared> out = new HashMap<>();
    for (GenericKubernetesResource claim :
        cluster
            .client
            .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
            .inNamespace(ns)
            .list()
            .getItems()) {
      Map<String, Object> status = map(claim.getAdditionalProperties().get("status"));
      Map<String, Object> allocation = map(status.get("allocation"));
      for (Object r : list(map(allocation.get("devices")).get("results"))) {
        Map<String, Object> result = map(r);
        if (!DRIVER.equals(result.get("driver"))) {
          continue;
        }
        String pool = (String) result.get("pool");
        String device = (String) result.get("device");
        Map<String, Object> recorded =
            list(status.get("devices")).stream()
                .map(Dra::map)
                .filter(d -> DRIVER.equals(d.get("driver")) && device.equals(d.get("device")))
                .map(d -> map(d.get("data")))
                .findFirst()
                .orElse(Map.of());
        Map<String, Object> attributes = map(devices.get(pool + "/" + device).get("attributes"));
        out.put(
            claim.getMetadata().getName(),
            new Prepared(
                claim.getMetadata().getName(),
                pool,
                device,
                (String) map(attributes.get("uuid")).get("string"),
                list(recorded.get("smGroups")).stream().map(g -> ((Number) g).intValue()).toList(),
                Integer.parseInt(String.valueOf(map(result.get("consumedCapacity")).get("sms"))),
                ((Number) map(attributes.get("smGroupSize")).get("int")).intValue()));
      }
    }
    return out;
  }

  /** No SM group of a GPU in two claims. */
  static void assertDisjoint(Collection<Prepared> claims) {
    Map<String, String> owner = new HashMap<>();
    List<String> doubled = new ArrayList<>();
    for (Prepared c : claims) {
      assertThat(c.groups()).as(c.name() + " has groups").isNotEmpty();
      for (int g : c.groups()) {
        String key = c.pool() + "/" + c.gpu() + "/" + g;
        String before = owner.put(key, c.name());
        if (before != null) {
          doubled.add(key + ": " + before + " and " + c.name());
        }
      }
    }
    assertThat(doubled).as("SM groups given to two claims").isEmpty();
  }

  /** The claims of the namespace the nodes' agents serve, from their SliceNodes. */
  static Map<String, Served> servedByAgents(TestCluster cluster, String ns) {
    Map<String, Served> out = new HashMap<>();
    for (SliceNode node : cluster.client.resources(SliceNode.class).list().getItems()) {
      if (node.getStatus() == null) {
        continue;
      }
      for (ServedClaim c : node.getStatus().getClaims()) {
        if (ns.equals(c.getNamespace()) && c.isServing()) {
          out.put(
              c.getName(),
              new Served(
                  node.getMetadata().getName(),
                  c.getGpuUuid(),
                  c.getSmGroups() == null ? List.of() : c.getSmGroups()));
        }
      }
    }
    return out;
  }

  /** What the container printed of the claim its CDI edits gave it. */
  static Seen seen(TestCluster cluster, String ns, String pod, String container) throws Exception {
    String log = cluster.kubectl("logs", "-n", ns, pod, "-c", container).check();
    Matcher m = SEEN.matcher(log);
    assertThat(m.find()).as(pod + "/" + container + " printed its claim: " + log).isTrue();
    List<Integer> groups =
        m.group(3).isEmpty()
            ? List.of()
            : Arrays.stream(m.group(3).split(",")).map(Integer::parseInt).toList();
    return new Seen(m.group(1), m.group(2), groups);
  }

  static boolean exists(TestCluster cluster, String ns, String claim) {
    return cluster
            .client
            .genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
            .inNamespace(ns)
            .withName(claim)
            .get()
        != null;
  }

  static List<String> eventMessages(TestCluster cluster, String ns, String kind, String name) {
    return cluster.client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(
            e ->
                kind.equals(e.getInvolvedObject().getKind())
                    && name.equals(e.getInvolvedObject().getName()))
        .map(e -> e.getReason() + ": " + e.getMessage())
        .toList();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object o) {
    return o instanceof List<?> l ? (List<Object>) l : List.of();
  }
}
