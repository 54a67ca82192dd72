package io.smslice.examples.workload;

import java.util.HashMap;
import java.util.Map;

/**
 * One model's answer for one frame, as sent to the voter: a line of {@code key=value} pairs.
 *
 * @param model the model's name (a, b, c)
 * @param frame the frame number (wall-clock time divided by the frame period)
 * @param checksum the model's output for the frame, reduced to one number for the vote
 * @param latencyNanos how long the model took, from frame start to its answer
 */
public record Ballot(String model, long frame, long checksum, long latencyNanos) {

  public String encode() {
    return "model="
        + model
        + " frame="
        + frame
        + " checksum="
        + checksum
        + " latency="
        + latencyNanos;
  }

  public static Ballot decode(String line) {
    Map<String, String> fields = new HashMap<>();
    for (String part : line.trim().split("\\s+")) {
      String[] kv = part.split("=", 2);
      if (kv.length == 2) {
        fields.put(kv[0], kv[1]);
      }
    }
    try {
      return new Ballot(
          require(fields, "model"),
          Long.parseLong(require(fields, "frame")),
          Long.parseLong(require(fields, "checksum")),
          Long.parseLong(require(fields, "latency")));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad ballot '" + line + "': " + e.getMessage());
    }
  }

  private static String require(Map<String, String> fields, String key) {
    String value = fields.get(key);
    if (value == null) {
      throw new IllegalArgumentException("ballot has no " + key + "=");
    }
    return value;
  }
}
