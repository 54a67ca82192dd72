package io.smslice.node.nvml;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** MIG profile names ("1g.18gb", "1g.18gb+me") from what NVML reports for a MIG device. */
final class MigProfiles {
  // NVML names a MIG device "<product> MIG <profile>", for example "NVIDIA H200 MIG 1g.18gb".
  private static final Pattern IN_NAME = Pattern.compile("MIG (\\d+g\\.\\d+gb(\\+\\w+)?)\\s*$");

  private MigProfiles() {}

  static Optional<String> fromName(String deviceName) {
    Matcher m = IN_NAME.matcher(deviceName);
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** The profile name rebuilt from the instance's slices and memory, when the name lacks it. */
  static String fromSlices(int gpuInstanceSlices, long memoryMb) {
    return gpuInstanceSlices + "g." + Math.round(memoryMb / 1024.0) + "gb";
  }
}
