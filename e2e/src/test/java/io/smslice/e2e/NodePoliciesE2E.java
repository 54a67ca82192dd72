package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.smslice.api.v1alpha1.node.SliceNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The ValidatingAdmissionPolicies docs/install.md promises, enforced by the real API server against
 * the node side's own pod-bound service-account token: only its own SliceNode, only its own Node's
 * smslice labels.
 */
@Order(60)
@ExtendWith(ClusterExtension.class)
class NodePoliciesE2E {
  private static final String OTHER = "other-gpu-node";
  private static KubernetesClient asNodeSide;

  @BeforeAll
  static void tokenOfTheNodePod(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    String pod =
        cluster
            .kubectl(
                "get",
                "pods",
                "-n",
                Install.NAMESPACE,
                "-l",
                "app.kubernetes.io/component=node",
                "-o",
                "jsonpath={.items[0].metadata.name}")
            .check()
            .strip();
    // The kind of token the kubelet mounts into the pod: bound to it, naming its node.
    String token =
        cluster
            .kubectl(
                "create",
                "token",
                "smslice-node",
                "-n",
                Install.NAMESPACE,
                "--bound-object-kind",
                "Pod",
                "--bound-object-name",
                pod)
            .check()
            .strip();
    asNodeSide =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(cluster.client.getConfiguration())
                    .withClientCertData(null)
                    .withClientKeyData(null)
                    .withClientCertFile(null)
                    .withClientKeyFile(null)
                    .withOauthToken(token)
                    .build())
            .build();
    cluster
        .client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(OTHER).endMetadata().build())
        .create();
    SliceNode other = new SliceNode();
    other.getMetadata().setName(OTHER);
    cluster.client.resources(SliceNode.class).resource(other).create();
  }

  @AfterAll
  static void cleanUp(TestCluster cluster) {
    asNodeSide.close();
    cluster.client.resources(SliceNode.class).withName(OTHER).delete();
    cluster.client.nodes().withName(OTHER).delete();
  }

  @Test
  void theNodeSideWritesOnlyItsOwnSliceNode(TestCluster cluster) {
    String refusal =
        "the smslice node on "
            + TestCluster.NODE
            + " may write only the SliceNode "
            + TestCluster.NODE
            + ", not ";
    SliceNode own = asNodeSide.resources(SliceNode.class).withName(TestCluster.NODE).get();
    assertThat(own).isNotNull();
    // Its RBAC allows create and status updates of any SliceNode; the policy narrows both to its
    // own.
    SliceNode third = new SliceNode();
    third.getMetadata().setName("third-gpu-node");
    assertThatThrownBy(() -> asNodeSide.resources(SliceNode.class).resource(third).create())
        .hasMessageContaining(refusal + "third-gpu-node");
    SliceNode other = cluster.client.resources(SliceNode.class).withName(OTHER).get();
    other.setStatus(own.getStatus());
    assertThatThrownBy(() -> asNodeSide.resources(SliceNode.class).resource(other).updateStatus())
        .hasMessageContaining(refusal + OTHER);
  }

  @Test
  void theNodeSideChangesOnlyItsOwnNodesSmsliceLabels(TestCluster cluster) {
    asNodeSide.nodes().withName(TestCluster.NODE).edit(n -> label(n, "smslice.io/mode", "green"));
    assertThat(cluster.client.nodes().withName(TestCluster.NODE).get().getMetadata().getLabels())
        .containsEntry("smslice.io/mode", "green");
    assertThatThrownBy(
            () -> asNodeSide.nodes().withName(TestCluster.NODE).edit(n -> label(n, "team", "mine")))
        .hasMessageContaining(
            "may change only the labels smslice.io/mode, smslice.io/free-sms and");
    assertThatThrownBy(
            () ->
                asNodeSide
                    .nodes()
                    .withName(TestCluster.NODE)
                    .edit(
                        n -> {
                          n.getSpec().setUnschedulable(true);
                          return n;
                        }))
        .hasMessageContaining("spec (taints, cordon)");
    assertThatThrownBy(
            () ->
                asNodeSide.nodes().withName(OTHER).edit(n -> label(n, "smslice.io/mode", "green")))
        .hasMessageContaining("may label only the Node " + TestCluster.NODE + ", not " + OTHER);
  }

  private static Node label(Node node, String key, String value) {
    var labels = new java.util.HashMap<String, String>();
    if (node.getMetadata().getLabels() != null) {
      labels.putAll(node.getMetadata().getLabels());
    }
    labels.put(key, value);
    node.getMetadata().setLabels(labels);
    return node;
  }
}
