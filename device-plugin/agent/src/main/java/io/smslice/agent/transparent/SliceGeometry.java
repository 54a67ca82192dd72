package io.smslice.agent.transparent;

import io.smslice.protocol.Frames;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * What ATTACH answers: enough for the interposer to make the same split the node made and a green
 * context of the claim's groups.
 *
 * @param minPartition the minimum SM count the node's one split of this GPU asks for
 * @param splitEntries groups of that split including the remainder, which is the last id
 * @param groups the claim's current group ids
 * @param sms the claim's SMs
 */
public record SliceGeometry(
    String gpuUuid, int minPartition, int splitEntries, List<Integer> groups, int sms) {
  public SliceGeometry {
    groups = List.copyOf(groups);
  }

  /** The OK answer's payload. */
  public ByteBuffer encode() {
    byte[] uuid = gpuUuid.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ByteBuffer out = ByteBuffer.allocate(2 + uuid.length + 4 * (4 + groups.size()));
    Frames.putString(out, gpuUuid);
    out.putInt(minPartition).putInt(splitEntries).putInt(groups.size());
    groups.forEach(out::putInt);
    out.putInt(sms);
    return out.flip();
  }
}
