package io.smslice.operator.placement;

import java.util.Map;

/**
 * What a claim asks for. {@code sms} is 0 when not given (allowed for MEMORY only); {@code
 * memoryBytes} 0 when not given. {@code product} null and {@code nodeLabels} empty mean anywhere.
 * {@code memoryBound}: the workload is limited by memory bandwidth, which only MIG partitions.
 */
public record Request(
    String claim,
    int sms,
    long memoryBytes,
    Isolation isolation,
    Priority priority,
    String product,
    Map<String, String> nodeLabels,
    boolean memoryBound) {

  public Request {
    nodeLabels = Map.copyOf(nodeLabels);
    if (sms < 0 || memoryBytes < 0) {
      throw new IllegalArgumentException("negative sms or memory in " + claim);
    }
  }

  /** A claim that did not say it is memory-bound. */
  public Request(
      String claim,
      int sms,
      long memoryBytes,
      Isolation isolation,
      Priority priority,
      String product,
      Map<String, String> nodeLabels) {
    this(claim, sms, memoryBytes, isolation, priority, product, nodeLabels, false);
  }
}
