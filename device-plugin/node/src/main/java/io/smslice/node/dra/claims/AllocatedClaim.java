package io.smslice.node.dra.claims;

/**
 * What a ResourceClaim's allocation gives smslice on this node: one device (a GPU of this node's
 * pool), the SMs and memory consumed from it, and the claim's SliceConfig.
 *
 * @param generation the claim's metadata.generation (status conditions record it)
 * @param shareId the allocation's share id (consumable capacity), or null
 * @param memoryBytes 0: no memory cap
 */
public record AllocatedClaim(
    String namespace,
    String name,
    String uid,
    long generation,
    String request,
    String pool,
    String device,
    String shareId,
    long sms,
    long memoryBytes,
    SliceConfig config) {
  public String key() {
    return namespace + "/" + name;
  }
}
