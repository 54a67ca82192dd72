package io.smslice.node.dra.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.smslice.node.kubelet.drahealth.v1alpha1.DeviceHealth;
import io.smslice.node.kubelet.drahealth.v1alpha1.HealthStatus;
import io.smslice.node.kubelet.pluginregistration.v1.PluginInfo;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Guards the wire contract of the DRA v1 and plugin registration v1 APIs as the kubelet's published
 * api.proto files have them: the full service names the kubelet dials, method names, field numbers
 * and repetition. Our own test kubelet would keep passing if these changed; a real kubelet would
 * not.
 */
class DraProtoContractTest {
  private final FileDescriptor dra = NodePrepareResourcesRequest.getDescriptor().getFile();
  private final FileDescriptor registration = PluginInfo.getDescriptor().getFile();

  @Test
  void servicesKeepTheKubeletsNames() {
    assertThat(dra.findServiceByName("DRAPlugin").getFullName())
        .isEqualTo("k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin");
    assertThat(dra.findServiceByName("DRAPlugin").getMethods())
        .extracting(
            m -> m.getName() + (m.isServerStreaming() || m.isClientStreaming() ? " stream" : ""))
        .containsExactly("NodePrepareResources", "NodeUnprepareResources");
    assertThat(registration.findServiceByName("Registration").getFullName())
        .isEqualTo("pluginregistration.Registration");
    assertThat(registration.findServiceByName("Registration").getMethods())
        .extracting(m -> m.getName())
        .containsExactly("GetInfo", "NotifyRegistrationStatus");
    // the registration's supported_versions entry is "<last package element>.<service>"
    String fullName = dra.findServiceByName("DRAPlugin").getFullName();
    assertThat(fullName.substring(fullName.lastIndexOf('.', fullName.lastIndexOf('.') - 1) + 1))
        .isEqualTo(RegistrationService.DRA_V1_SERVICE);
  }

  @Test
  void fieldNumbersMatchTheKubeletsApi() {
    assertThat(fields(dra, "NodePrepareResourcesRequest"))
        .isEqualTo(Map.of("claims", "1 repeated"));
    assertThat(fields(dra, "NodePrepareResourcesResponse"))
        .isEqualTo(Map.of("claims", "1 repeated"));
    assertThat(fields(dra, "NodePrepareResourceResponse"))
        .isEqualTo(Map.of("devices", "1 repeated", "error", "2"));
    assertThat(fields(dra, "Device"))
        .isEqualTo(
            Map.of(
                "request_names", "1 repeated",
                "pool_name", "2",
                "device_name", "3",
                "cdi_device_ids", "4 repeated",
                "share_id", "5 optional"));
    assertThat(fields(dra, "NodeUnprepareResourcesRequest"))
        .isEqualTo(Map.of("claims", "1 repeated"));
    assertThat(fields(dra, "NodeUnprepareResourcesResponse"))
        .isEqualTo(Map.of("claims", "1 repeated"));
    assertThat(fields(dra, "NodeUnprepareResourceResponse")).isEqualTo(Map.of("error", "1"));
    assertThat(fields(dra, "Claim")).isEqualTo(Map.of("namespace", "1", "uid", "2", "name", "3"));
    assertThat(
            dra.findMessageTypeByName("NodePrepareResourcesResponse")
                .findFieldByName("claims")
                .isMapField())
        .isTrue();

    FileDescriptor health = DeviceHealth.getDescriptor().getFile();
    assertThat(health.findServiceByName("DRAResourceHealth").getFullName())
        .isEqualTo("v1alpha1.DRAResourceHealth");
    assertThat(
            health
                .findServiceByName("DRAResourceHealth")
                .getMethods()
                .getFirst()
                .isServerStreaming())
        .isTrue();
    assertThat(fields(health, "DeviceIdentifier"))
        .isEqualTo(Map.of("pool_name", "1", "device_name", "2"));
    assertThat(fields(health, "DeviceHealth"))
        .isEqualTo(
            Map.of(
                "device", "1",
                "health", "2",
                "last_updated_time", "3",
                "health_check_timeout_seconds", "4",
                "message", "5"));
    assertThat(fields(health, "NodeWatchResourcesResponse"))
        .isEqualTo(Map.of("devices", "1 repeated"));
    assertThat(HealthStatus.UNKNOWN.getNumber()).isZero();
    assertThat(HealthStatus.HEALTHY.getNumber()).isEqualTo(1);
    assertThat(HealthStatus.UNHEALTHY.getNumber()).isEqualTo(2);

    assertThat(fields(registration, "PluginInfo"))
        .isEqualTo(
            Map.of("type", "1", "name", "2", "endpoint", "3", "supported_versions", "4 repeated"));
    assertThat(fields(registration, "RegistrationStatus"))
        .isEqualTo(Map.of("plugin_registered", "1", "error", "2"));
    assertThat(fields(registration, "RegistrationStatusResponse")).isEmpty();
    assertThat(fields(registration, "InfoRequest")).isEmpty();
  }

  private static Map<String, String> fields(FileDescriptor file, String message) {
    Descriptor d = file.findMessageTypeByName(message);
    return d.getFields().stream()
        .collect(
            Collectors.toMap(
                FieldDescriptor::getName,
                f ->
                    f.getNumber()
                        + (f.isRepeated() ? " repeated" : "")
                        + (f.toProto().getProto3Optional() ? " optional" : "")));
  }
}
