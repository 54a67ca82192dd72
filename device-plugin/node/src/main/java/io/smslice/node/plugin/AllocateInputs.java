package io.smslice.node.plugin;

import io.smslice.node.kubelet.v1beta1.AllocateRequest;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateRequest;
import io.smslice.node.kubelet.v1beta1.ContainerPreferredAllocationRequest;
import io.smslice.node.kubelet.v1beta1.PreferredAllocationRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Requests no kubelet sends, refused before any pod is looked at: a message for whoever sent them,
 * and nothing changes.
 */
final class AllocateInputs {
  private AllocateInputs() {}

  static Optional<String> invalidAllocate(AllocateRequest request) {
    if (request.getContainerRequestsCount() == 0) {
      return Optional.of("smslice: the Allocate request has no container requests");
    }
    for (int i = 0; i < request.getContainerRequestsCount(); i++) {
      if (request.getContainerRequests(i).getDevicesIdsCount() == 0) {
        return Optional.of(
            "smslice: container request " + i + " of the Allocate has no device ids");
      }
    }
    // A device serves one container: listed twice, in one container or two, it is a bad request.
    Map<String, Long> counts =
        request.getContainerRequestsList().stream()
            .map(ContainerAllocateRequest::getDevicesIdsList)
            .flatMap(java.util.List::stream)
            .collect(
                Collectors.groupingBy(
                    Function.identity(), LinkedHashMap::new, Collectors.counting()));
    return counts.entrySet().stream()
        .filter(e -> e.getValue() > 1)
        .findFirst()
        .map(
            e ->
                "smslice: device "
                    + e.getKey()
                    + " is listed "
                    + e.getValue()
                    + " times in the Allocate request; each device serves one container once");
  }

  static Optional<String> invalidPreference(PreferredAllocationRequest request) {
    for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
      if (c.getAllocationSize() < 0) {
        return Optional.of("smslice: allocation size " + c.getAllocationSize() + " is negative");
      }
      if (c.getMustIncludeDeviceIDsCount() > c.getAllocationSize()) {
        return Optional.of(
            "smslice: "
                + c.getMustIncludeDeviceIDsCount()
                + " devices must be included in an allocation of "
                + c.getAllocationSize());
      }
    }
    return Optional.empty();
  }
}
