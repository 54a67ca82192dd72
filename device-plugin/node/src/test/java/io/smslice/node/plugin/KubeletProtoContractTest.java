package io.smslice.node.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.smslice.node.kubelet.v1beta1.Device;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Guards the wire contract with the kubelet: service and method names, message names and field
 * numbers as the kubelet's published v1beta1 api.proto has them. A change here breaks real kubelets
 * while every test against our own fake would still pass.
 */
class KubeletProtoContractTest {
  private final FileDescriptor file = Device.getDescriptor().getFile();

  @Test
  void servicesAndMethodsKeepTheKubeletsNames() {
    assertThat(file.getPackage()).isEqualTo("v1beta1");
    assertThat(file.findServiceByName("Registration").getFullName())
        .isEqualTo("v1beta1.Registration");
    assertThat(file.findServiceByName("Registration").getMethods())
        .extracting(m -> m.getName())
        .containsExactly("Register");
    assertThat(file.findServiceByName("DevicePlugin").getMethods())
        .extracting(m -> m.getName() + (m.isServerStreaming() ? " stream" : ""))
        .containsExactly(
            "GetDevicePluginOptions",
            "ListAndWatch stream",
            "GetPreferredAllocation",
            "Allocate",
            "PreStartContainer");
  }

  @Test
  void fieldNumbersMatchTheKubeletsApi() {
    assertThat(fields("RegisterRequest"))
        .isEqualTo(Map.of("version", 1, "endpoint", 2, "resource_name", 3, "options", 4));
    assertThat(fields("DevicePluginOptions"))
        .isEqualTo(Map.of("pre_start_required", 1, "get_preferred_allocation_available", 2));
    assertThat(fields("Device")).isEqualTo(Map.of("ID", 1, "health", 2, "topology", 3));
    assertThat(fields("ListAndWatchResponse")).isEqualTo(Map.of("devices", 1));
    assertThat(fields("ContainerPreferredAllocationRequest"))
        .isEqualTo(
            Map.of("available_deviceIDs", 1, "must_include_deviceIDs", 2, "allocation_size", 3));
    assertThat(fields("ContainerPreferredAllocationResponse")).isEqualTo(Map.of("deviceIDs", 1));
    assertThat(fields("ContainerAllocateRequest")).isEqualTo(Map.of("devices_ids", 1));
    assertThat(fields("ContainerAllocateResponse"))
        .isEqualTo(
            Map.of("envs", 1, "mounts", 2, "devices", 3, "annotations", 4, "cdi_devices", 5));
    assertThat(fields("Mount"))
        .isEqualTo(Map.of("container_path", 1, "host_path", 2, "read_only", 3));
    assertThat(fields("DeviceSpec"))
        .isEqualTo(Map.of("container_path", 1, "host_path", 2, "permissions", 3));
    assertThat(fields("CDIDevice")).isEqualTo(Map.of("name", 1));
    assertThat(fields("NUMANode")).isEqualTo(Map.of("ID", 1));
    assertThat(fields("PreStartContainerRequest")).isEqualTo(Map.of("devices_ids", 1));
  }

  private Map<String, Integer> fields(String message) {
    Descriptor d = file.findMessageTypeByName(message);
    return d.getFields().stream().collect(Collectors.toMap(f -> f.getName(), f -> f.getNumber()));
  }
}
