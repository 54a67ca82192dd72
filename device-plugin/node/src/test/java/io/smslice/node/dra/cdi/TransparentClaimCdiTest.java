package io.smslice.node.dra.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.gpu.MpsServers;
import io.smslice.node.NodeWithAgent;
import io.smslice.node.dra.DraTestbed;
import io.smslice.node.dra.TestKubelet;
import io.smslice.node.transparent.InterposerInstall;
import io.smslice.node.transparent.TransparentTenants;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CDI spec of a transparent claim holds what the device plugin's Allocate gives a transparent
 * container (interposer, ld.so.preload, MPS pipe directory and shared memory, tenant.env, GPU
 * device nodes, the MPS memory limit, guard and priority), and a claim whose SliceConfig says
 * transparent: false gets the client-library part only.
 */
@EnableKubernetesMockClient(crud = true)
class TransparentClaimCdiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  KubernetesClient client;
  @TempDir Path tmp;

  @Test
  void transparentClaimsGetTheInterposerAndTheMpsServer() throws Exception {
    Path image = tmp.resolve("image/libsmslice-interposer.so");
    Files.createDirectories(image.getParent());
    Files.write(image, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0});
    Path shm = Files.createDirectories(tmp.resolve("shm"));
    for (String dev : List.of("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia1")) {
      Files.createDirectories(tmp.resolve("dev"));
      Files.writeString(tmp.resolve("dev").resolve(dev), "");
    }
    MpsServers mps =
        new MpsServers() {
          @Override
          public Path pipeDirectory(String gpuUuid) {
            return tmp.resolve("mps").resolve(gpuUuid);
          }

          @Override
          public void restart(String gpuUuid) {}
        };
    TransparentTenants tenants =
        new TransparentTenants(
            InterposerInstall.install(image, tmp.resolve("host/interposer")), mps, shm);
    try (DraTestbed node =
            new DraTestbed(tmp, client, NodeWithAgent::sliceAgent, Optional.of(tenants));
        TestKubelet kubelet = new TestKubelet(node.registrationSocket())) {
      String gpu = node.gpus.get(0).uuid();
      String uid =
          node.claim(
              "ml",
              "t",
              DraTestbed.NODE,
              "gpu-0",
              "16",
              "8Gi",
              JSON.readTree(
                  "{\"apiVersion\":\"smslice.io/v1alpha1\",\"kind\":\"SliceConfig\",\"priority\":\"LatencyCritical\"}"));
      assertThat(kubelet.prepareOne("ml", "t", uid).getError()).isEmpty();
      Path file = node.cdiDir().resolve("smslice.io-" + uid + ".json");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
      JsonNode edits = JSON.readTree(file.toFile()).path("devices").get(0).path("containerEdits");
      Map<String, String> env = env(edits);
      assertThat(env)
          .containsEntry("LD_PRELOAD", InterposerInstall.CONTAINER_LIBRARY)
          .containsEntry("CUDA_MPS_PIPE_DIRECTORY", TransparentTenants.CONTAINER_PIPE_DIR)
          .containsEntry("NVIDIA_VISIBLE_DEVICES", gpu)
          .containsEntry("SMSLICE_PRIORITY", "LatencyCritical")
          .containsEntry("SMSLICE_GUARD", "/dev/shm/smslice-guard-" + gpu)
          .containsEntry("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=8192M")
          .containsEntry("SMSLICE_SM_GROUPS", "0,1");
      Map<String, String> mounts = new HashMap<>();
      edits
          .path("mounts")
          .forEach(m -> mounts.put(m.path("containerPath").asText(), m.path("hostPath").asText()));
      assertThat(mounts)
          .containsEntry(TransparentTenants.CONTAINER_PIPE_DIR, mps.pipeDirectory(gpu).toString())
          .containsEntry(TransparentTenants.CONTAINER_SHM, shm.toString())
          .containsKeys(
              "/run/smslice/claim",
              InterposerInstall.CONTAINER_LIBRARY,
              TransparentTenants.CONTAINER_PRELOAD,
              "/run/smslice/tenant.env");
      assertThat(Files.readString(Path.of(mounts.get("/run/smslice/tenant.env"))))
          .contains("SMSLICE_TOKEN=" + env.get("SMSLICE_TOKEN"));
      List<String> devices = new ArrayList<>();
      edits.path("deviceNodes").forEach(d -> devices.add(d.path("path").asText()));
      assertThat(devices)
          .containsExactlyInAnyOrder("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0");

      String plain =
          node.claim(
              "ml",
              "plain",
              DraTestbed.NODE,
              "gpu-0",
              "8",
              null,
              JSON.readTree(
                  "{\"apiVersion\":\"smslice.io/v1alpha1\",\"kind\":\"SliceConfig\",\"transparent\":false}"));
      assertThat(kubelet.prepareOne("ml", "plain", plain).getError()).isEmpty();
      JsonNode plainEdits =
          JSON.readTree(node.cdiDir().resolve("smslice.io-" + plain + ".json").toFile())
              .path("devices")
              .get(0)
              .path("containerEdits");
      assertThat(env(plainEdits))
          .doesNotContainKeys("LD_PRELOAD", "NVIDIA_VISIBLE_DEVICES")
          .containsKey("SMSLICE_TOKEN");
      assertThat(plainEdits.path("mounts")).hasSize(1);
      assertThat(plainEdits.path("deviceNodes")).isEmpty();
    }
  }

  @Test
  void aTransparentClaimOnANodeWithoutTransparentSlicesIsRefused() throws Exception {
    try (DraTestbed node = new DraTestbed(tmp, client);
        TestKubelet kubelet = new TestKubelet(node.registrationSocket())) {
      String uid =
          node.claim(
              "ml",
              "t",
              DraTestbed.NODE,
              "gpu-0",
              "8",
              null,
              JSON.readTree(
                  "{\"apiVersion\":\"smslice.io/v1alpha1\",\"kind\":\"SliceConfig\",\"transparent\":true}"));
      assertThat(kubelet.prepareOne("ml", "t", uid).getError())
          .startsWith(
              "smslice: claim ml/t asks for transparent: true, but transparent slices are off");
      assertThat(node.agent.claimStatuses()).isEmpty();
      assertThat(node.cdiDir().resolve("smslice.io-" + uid + ".json")).doesNotExist();
    }
  }

  private static Map<String, String> env(JsonNode edits) {
    Map<String, String> env = new HashMap<>();
    edits
        .path("env")
        .forEach(
            e -> {
              String[] kv = e.asText().split("=", 2);
              env.put(kv[0], kv[1]);
            });
    return env;
  }
}
