package io.smslice.protocol;

/**
 * Control requests on the claim socket. Each is a frame {@code [int length][byte op][payload]}
 * answered by {@code [int length][byte status][payload]}, except {@link #DOORBELL}, which has no
 * answer. Payload layouts are in docs/tenant-protocol.md.
 */
public enum Op {
  HELLO(1),
  MAPPED(2),
  LOAD_MODULE(3),
  GET_FUNCTION(4),
  UNLOAD_MODULE(5),
  ALLOC(6),
  FREE(7),
  CREATE_STREAM(8),
  DESTROY_STREAM(9),
  CREATE_EVENT(10),
  DESTROY_EVENT(11),
  BEGIN_CAPTURE(12),
  END_CAPTURE(13),
  DESTROY_GRAPH(14),
  INFO(15),
  DOORBELL(16),
  BUFFER_ADDRESS(17),
  /**
   * First frame of an unmodified program's interposer instead of HELLO: registers the process with
   * the claim and answers the claim's slice; the connection then stays open, carrying nothing.
   */
  ATTACH(18);

  private static final Op[] BY_CODE = new Op[19];

  static {
    for (Op op : values()) {
      BY_CODE[op.code] = op;
    }
  }

  public final byte code;

  Op(int code) {
    this.code = (byte) code;
  }

  /** The op with this code, or null. */
  public static Op of(byte code) {
    return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
