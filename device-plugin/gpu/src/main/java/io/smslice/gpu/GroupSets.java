package io.smslice.gpu;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Checks on a set of split groups that is to become one green context. */
public final class GroupSets {
  private GroupSets() {}

  /** SMs of the groups; a clear error for an empty set or a repeated or unknown group. */
  public static int smsOf(GpuDevice device, List<Integer> groupIds) throws GpuException {
    if (groupIds == null || groupIds.isEmpty()) {
      throw new GpuException(GpuError.INVALID_VALUE, "a green context needs at least one group");
    }
    Set<Integer> seen = new HashSet<>();
    int sms = 0;
    for (Integer id : groupIds) {
      if (id == null || id < 0 || id >= device.split().size() || !seen.add(id)) {
        throw new GpuException(
            GpuError.INVALID_VALUE,
            "group "
                + id
                + " is repeated or not in the split of "
                + device.uuid()
                + " (groups 0.."
                + (device.split().size() - 1)
                + ")");
      }
      sms += device.split().get(id).sms();
    }
    return sms;
  }
}
