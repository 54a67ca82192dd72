package io.smslice.node.resources;

import java.util.Comparator;

/**
 * Kubelet device ids. Green: {@code <gpu-uuid>-sm-<n>}, one per SM; MPS: {@code
 * <gpu-uuid>-mps-<n>}, one per percent; MIG: the MIG device's own UUID. A GPU UUID is 40
 * characters, so the ids stay within the kubelet's 63.
 */
public final class DeviceIds {
  private static final String SM = "-sm-";
  private static final String MPS = "-mps-";

  private DeviceIds() {}

  public static String sm(String gpuUuid, int sm) {
    return gpuUuid + SM + sm;
  }

  public static String mps(String gpuUuid, int share) {
    return gpuUuid + MPS + share;
  }

  /** The GPU of an SM or MPS device id, or the id itself (MIG). */
  public static String gpuOf(String id) {
    for (String sep : new String[] {SM, MPS}) {
      int at = id.lastIndexOf(sep);
      if (at > 0) {
        return id.substring(0, at);
      }
    }
    return id;
  }

  /** The number after the GPU, or -1. */
  public static int indexOf(String id) {
    int at = id.lastIndexOf('-');
    try {
      return Integer.parseInt(id.substring(at + 1));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      return -1;
    }
  }

  /** GPU, then index as a number: sm-2 before sm-10. */
  public static final Comparator<String> ORDER =
      Comparator.comparing(DeviceIds::gpuOf).thenComparingInt(DeviceIds::indexOf);
}
