package io.smslice.node.dra.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.smslice.agent.ClaimStatus;
import io.smslice.node.dra.DraDriver;
import io.smslice.node.dra.DraTestbed;
import io.smslice.node.dra.TestKubelet;
import io.smslice.node.health.GpuCondition;
import io.smslice.node.kubelet.dra.v1.Claim;
import io.smslice.node.kubelet.dra.v1.Device;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourceResponse;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourcesResponse;
import io.smslice.node.kubelet.drahealth.v1alpha1.DeviceHealth;
import io.smslice.node.kubelet.drahealth.v1alpha1.HealthStatus;
import io.smslice.node.kubelet.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRA kubelet plugin as the kubelet sees it: registration and the DRA v1 calls over the real
 * Unix sockets, the real agent serving the claims (simulated GPUs), ResourceClaims in the mock API
 * server.
 */
@EnableKubernetesMockClient(crud = true)
class DraKubeletPluginTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  KubernetesClient client;
  @TempDir Path tmp;
  DraTestbed node;
  TestKubelet kubelet;

  @BeforeEach
  void start() throws Exception {
    node = new DraTestbed(tmp, client);
    kubelet = new TestKubelet(node.registrationSocket());
  }

  @AfterEach
  void stop() {
    kubelet.close();
    node.close();
  }

  @Test
  void getInfoNamesTheDriverItsEndpointAndTheV1Service() {
    assertThat(kubelet.info().getType()).isEqualTo("DRAPlugin");
    assertThat(kubelet.info().getName()).isEqualTo("smslice.io");
    assertThat(kubelet.info().getEndpoint()).isEqualTo(node.draSocket().toString());
    assertThat(kubelet.info().getSupportedVersionsList())
        .containsExactly("v1.DRAPlugin", "v1alpha1.DRAResourceHealth");
    assertThat(node.plugin.registrationStatus().getPluginRegistered()).isTrue();
    assertThat(
            node.metrics.counter("smslice_node_dra_registrations_total", "result=\"registered\""))
        .isEqualTo(1);
  }

  @Test
  void prepareServesTheClaimOnItsGroupsAndHandsTheContainerItsSocketThroughCdi() throws Exception {
    String uid = node.claim("ml", "detector", 16);
    NodePrepareResourceResponse r = kubelet.prepareOne("ml", "detector", uid);

    assertThat(r.getError()).isEmpty();
    Device d = r.getDevices(0);
    assertThat(d.getPoolName()).isEqualTo(DraTestbed.NODE);
    assertThat(d.getDeviceName()).isEqualTo("gpu-0");
    assertThat(d.getRequestNamesList()).containsExactly("slice");
    assertThat(d.getCdiDeviceIdsList()).containsExactly("smslice.io/claim=" + uid);
    assertThat(d.hasShareId()).isTrue();
    ClaimStatus served = only(node.agent.claimStatuses());
    assertThat(served.key()).isEqualTo("ml/detector");
    assertThat(served.gpuUuid()).isEqualTo(node.gpus.get(0).uuid());
    assertThat(served.groups()).containsExactly(0, 1);

    JsonNode cdi = JSON.readTree(node.cdiDir().resolve("smslice.io-" + uid + ".json").toFile());
    assertThat(cdi.path("kind").asText()).isEqualTo("smslice.io/claim");
    assertThat(cdi.path("devices").get(0).path("name").asText()).isEqualTo(uid);
    List<String> env = new ArrayList<>();
    cdi.path("devices").get(0).path("containerEdits").path("env").forEach(e -> env.add(e.asText()));
    assertThat(env)
        .contains(
            "SMSLICE_CLAIM=ml/detector",
            "SMSLICE_GPU_UUID=" + served.gpuUuid(),
            "SMSLICE_SM_GROUPS=0,1",
            "SMSLICE_SOCKET=/run/smslice/claim/"
                + node.agent.endpoint("ml", "detector").orElseThrow().socket().getFileName());
    String token =
        env.stream().filter(e -> e.startsWith("SMSLICE_TOKEN=")).findFirst().orElseThrow();
    assertThat(token).hasSize("SMSLICE_TOKEN=".length() + 64);
    JsonNode mount = cdi.path("devices").get(0).path("containerEdits").path("mounts").get(0);
    assertThat(mount.path("hostPath").asText())
        .isEqualTo(node.agent.endpoint("ml", "detector").orElseThrow().directory().toString());
    assertThat(mount.path("containerPath").asText()).isEqualTo("/run/smslice/claim");

    JsonNode status = node.read("ml", "detector").path("status").path("devices").get(0);
    assertThat(status.path("driver").asText()).isEqualTo("smslice.io");
    assertThat(status.path("device").asText()).isEqualTo("gpu-0");
    assertThat(status.path("shareID").asText()).isEqualTo(d.getShareId());
    assertThat(status.path("conditions").get(0).path("type").asText()).isEqualTo("Ready");
    assertThat(status.path("data").path("smGroups").toString()).isEqualTo("[0,1]");
    assertThat(status.path("data").path("sms").asLong()).isEqualTo(16);
    assertThat(Files.readString(node.checkpointFile())).contains(uid);
  }

  @Test
  void aRepeatedPrepareAnswersTheSameAndServesOnce() {
    String uid = node.claim("ml", "a", 24);
    NodePrepareResourceResponse first = kubelet.prepareOne("ml", "a", uid);
    NodePrepareResourceResponse again = kubelet.prepareOne("ml", "a", uid);
    assertThat(again).isEqualTo(first);
    assertThat(only(node.agent.claimStatuses()).groups()).containsExactly(0, 1, 2);
    assertThat(node.metrics.counter("smslice_node_dra_prepares_total", "result=\"repeated\""))
        .isEqualTo(1);
  }

  @Test
  void unprepareReleasesTheClaimAndItsFilesAndAnUnknownUidIsDone() throws Exception {
    String uid = node.claim("ml", "a", 8);
    kubelet.prepareOne("ml", "a", uid);
    Path cdi = node.cdiDir().resolve("smslice.io-" + uid + ".json");
    assertThat(cdi).exists();

    var r =
        kubelet.unprepare(
            TestKubelet.claim("ml", "a", uid), TestKubelet.claim("ml", "gone", "no-such-uid"));
    assertThat(r.getClaimsOrThrow(uid).getError()).isEmpty();
    assertThat(r.getClaimsOrThrow("no-such-uid").getError()).isEmpty();
    assertThat(node.agent.claimStatuses()).isEmpty();
    assertThat(cdi).doesNotExist();
    assertThat(Files.readString(node.checkpointFile())).doesNotContain(uid);
    // its groups are free again
    String next = node.claim("ml", "b", 8);
    kubelet.prepareOne("ml", "b", next);
    assertThat(only(node.agent.claimStatuses()).groups()).containsExactly(0);
  }

  @Test
  void claimsTheNodeCannotServeGetAReasonEachAndAnEvent() throws Exception {
    String ok = node.claim("ml", "ok", 8);
    String elsewhere = node.claim("ml", "elsewhere", "node-b", "gpu-0", "8", "0", null);
    String typo =
        node.claim(
            "ml",
            "typo",
            DraTestbed.NODE,
            "gpu-0",
            "8",
            "0",
            JSON.readTree(
                "{\"apiVersion\":\"smslice.io/v1alpha1\",\"kind\":\"SliceConfig\",\"priorty\":\"BestEffort\"}"));
    String tooBig = node.claim("ml", "big", DraTestbed.NODE, "gpu-0", "128", "0", null);
    String realUid = node.claim("ml", "renamed", 8);

    NodePrepareResourcesResponse r =
        kubelet.prepare(
            TestKubelet.claim("ml", "ok", ok),
            TestKubelet.claim("ml", "elsewhere", elsewhere),
            TestKubelet.claim("ml", "typo", typo),
            TestKubelet.claim("ml", "big", tooBig),
            TestKubelet.claim("ml", "renamed", "an-older-uid"),
            TestKubelet.claim("ml", "missing", "uid-of-missing"));

    assertThat(r.getClaimsOrThrow(ok).getError()).isEmpty();
    assertThat(r.getClaimsOrThrow(elsewhere).getError())
        .startsWith(
            "smslice: claim ml/elsewhere has no smslice.io device allocated on node node-a");
    assertThat(r.getClaimsOrThrow(typo).getError())
        .startsWith("smslice: claim ml/typo has unknown field(s) [priorty]");
    assertThat(r.getClaimsOrThrow(tooBig).getError())
        .startsWith(
            "smslice: claim ml/big asks for 128 SMs: on gpu-0 a claim takes a multiple of 8 SMs, at most 120");
    assertThat(r.getClaimsOrThrow("an-older-uid").getError())
        .startsWith("smslice: claim ml/renamed has uid " + realUid + ", not an-older-uid");
    assertThat(r.getClaimsOrThrow("uid-of-missing").getError())
        .isEqualTo("smslice: claim ml/missing does not exist");
    assertThat(only(node.agent.claimStatuses()).key()).isEqualTo("ml/ok");
    assertThat(node.cdiDir().resolve("smslice.io-" + typo + ".json")).doesNotExist();
    List<Event> events = client.v1().events().inNamespace("ml").list().getItems();
    assertThat(events)
        .filteredOn(e -> e.getInvolvedObject().getName().equals("typo"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getReason()).isEqualTo("PrepareFailed");
              assertThat(e.getInvolvedObject().getKind()).isEqualTo("ResourceClaim");
              assertThat(e.getInvolvedObject().getUid()).isEqualTo(typo);
              assertThat(e.getMessage()).contains("priorty");
            });
    assertThat(node.metrics.counter("smslice_node_dra_prepares_total", "result=\"error\""))
        .isEqualTo(5);
  }

  @Test
  void aMalformedCallIsRefusedWhole() {
    assertThatThrownBy(() -> kubelet.prepare(TestKubelet.claim("ml", "a", "")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("namespace, name and uid");
            });
    Claim twice = TestKubelet.claim("ml", "a", "u1");
    assertThatThrownBy(() -> kubelet.prepare(twice, twice))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getDescription()).contains("named twice"));
    assertThat(node.agent.claimStatuses()).isEmpty();
  }

  @Test
  void aRestartServesCheckpointedClaimsAgainOnTheirGroups() throws Exception {
    String a = node.claim("ml", "a", 16);
    String b = node.claim("ml", "b", 8);
    NodePrepareResourceResponse before = kubelet.prepareOne("ml", "a", a);
    kubelet.prepareOne("ml", "b", b);
    kubelet.close();
    node.stop();
    assertThat(node.registrationSocket()).doesNotExist();

    node.start();
    kubelet = new TestKubelet(node.registrationSocket());
    assertThat(node.agent.claimStatuses())
        .extracting(ClaimStatus::key, ClaimStatus::groups)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("ml/a", List.of(0, 1)),
            org.assertj.core.groups.Tuple.tuple("ml/b", List.of(2)));
    assertThat(kubelet.prepareOne("ml", "a", a)).isEqualTo(before);
    String c = node.claim("ml", "c", 8);
    kubelet.prepareOne("ml", "c", c);
    assertThat(node.agent.claimStatuses())
        .filteredOn(s -> s.key().equals("ml/c"))
        .singleElement()
        .satisfies(s -> assertThat(s.groups()).containsExactly(3));
  }

  /**
   * A node side stopped after its checkpoint but before the claim's status was written: the
   * kubelet's next prepare (after the restart) writes it.
   */
  @Test
  void aRepeatedPrepareWritesAStatusTheNodeSideNeverWrote() throws Exception {
    String uid = node.claim("ml", "a", 16);
    kubelet.prepareOne("ml", "a", uid);
    GenericKubernetesResource claim =
        client
            .genericKubernetesResources(DraDriver.RESOURCE_CLAIMS)
            .inNamespace("ml")
            .withName("a")
            .get();
    claim.getAdditionalProperties().remove("status");
    client
        .genericKubernetesResources(DraDriver.RESOURCE_CLAIMS)
        .inNamespace("ml")
        .resource(claim)
        .updateStatus();
    assertThat(node.read("ml", "a").path("status").path("devices")).isEmpty();
    kubelet.close();
    node.stop();

    node.start();
    kubelet = new TestKubelet(node.registrationSocket());
    kubelet.prepareOne("ml", "a", uid);
    JsonNode devices = node.read("ml", "a").path("status").path("devices");
    assertThat(devices).hasSize(1);
    assertThat(devices.get(0).path("data").path("smGroups").toString()).isEqualTo("[0,1]");
    kubelet.prepareOne("ml", "a", uid);
    assertThat(node.read("ml", "a").path("status").path("devices")).hasSize(1);
  }

  @Test
  void aRemovedSocketIsServedAgain() throws Exception {
    Files.delete(node.registrationSocket());
    Files.delete(node.draSocket());
    long deadline = System.nanoTime() + 5_000_000_000L;
    while ((!Files.exists(node.registrationSocket()) || !Files.exists(node.draSocket()))
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    kubelet.close();
    kubelet = new TestKubelet(node.registrationSocket());
    String uid = node.claim("ml", "a", 8);
    assertThat(kubelet.prepareOne("ml", "a", uid).getError()).isEmpty();
  }

  @Test
  void concurrentPreparesGetDisjointGroupsUntilTheGpuIsFull() throws Exception {
    int claims = 16; // gpu-0 has 15 groups of 8 SMs
    List<String> uids = new ArrayList<>();
    for (int i = 0; i < claims; i++) {
      uids.add(node.claim("ml", "c" + i, 8));
    }
    List<Thread> threads = new ArrayList<>();
    List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < claims; i++) {
      int n = i;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    String e = kubelet.prepareOne("ml", "c" + n, uids.get(n)).getError();
                    if (!e.isEmpty()) {
                      errors.add(e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(errors).singleElement().asString().contains("needs 1 free SM groups on gpu-0");
    Set<Integer> seen = new HashSet<>();
    for (ClaimStatus s : node.agent.claimStatuses()) {
      for (int g : s.groups()) {
        assertThat(seen.add(g)).as("group %d given twice", g).isTrue();
      }
    }
    assertThat(seen).hasSize(15);
  }

  @Test
  void theHealthStreamSaysEachGpusHealthAndEveryChange() throws Exception {
    var stream = kubelet.watchHealth();
    NodeWatchResourcesResponse first = stream.poll(10, TimeUnit.SECONDS);
    assertThat(first.getDevicesList())
        .extracting(
            d -> d.getDevice().getPoolName() + "/" + d.getDevice().getDeviceName(),
            DeviceHealth::getHealth)
        .containsExactly(
            tuple(DraTestbed.NODE + "/gpu-0", HealthStatus.HEALTHY),
            tuple(DraTestbed.NODE + "/gpu-1", HealthStatus.HEALTHY));
    assertThat(first.getDevices(0).getHealthCheckTimeoutSeconds()).isEqualTo(30);

    node.health.put(node.gpus.get(1).uuid(), GpuCondition.unhealthy("Xid 79"));
    node.plugin.healthChanged();
    NodeWatchResourcesResponse next = stream.poll(10, TimeUnit.SECONDS);
    assertThat(next.getDevices(1).getHealth()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(next.getDevices(1).getMessage()).isEqualTo("Xid 79");
    assertThat(next.getDevices(0).getHealth()).isEqualTo(HealthStatus.HEALTHY);
  }

  private static ClaimStatus only(List<ClaimStatus> statuses) {
    assertThat(statuses).hasSize(1);
    return statuses.getFirst();
  }
}
