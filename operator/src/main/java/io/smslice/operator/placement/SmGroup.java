package io.smslice.operator.placement;

/** One group of a GPU's SM split, as the node reports it. */
public record SmGroup(int id, int sms) {
  public SmGroup {
    if (sms < 1) {
      throw new IllegalArgumentException("SM group " + id + " has " + sms + " SMs");
    }
  }
}
