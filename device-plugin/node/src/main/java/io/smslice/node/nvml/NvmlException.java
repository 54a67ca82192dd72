package io.smslice.node.nvml;

/** An NVML call that did not succeed. */
public class NvmlException extends RuntimeException {
  private final int code;

  public NvmlException(String what, int code, String description) {
    super(what + ": " + description + " (nvmlReturn " + code + ")");
    this.code = code;
  }

  public int code() {
    return code;
  }
}
