package io.smslice.protocol;

/** Outcome of a request or of a queued operation. */
public enum Status {
  OK(0),
  /** Malformed or unknown request. */
  BAD_REQUEST(1),
  /** Wrong token or claim in HELLO, or a request before HELLO. */
  UNAUTHORIZED(2),
  /** A handle this session does not own (never another session's object). */
  NOT_FOUND(3),
  /** The claim's memory quota would be exceeded. */
  QUOTA_EXCEEDED(4),
  /** The GPU refused the operation; the session is intact. */
  GPU_ERROR(5),
  /** This session's own work faulted the GPU; its device state is gone: reconnect. */
  FAULT(6),
  /** Another tenant's fault (or the agent) reset the GPU; device state is gone: reconnect. */
  DEVICE_LOST(7),
  /** A frame larger than the agent accepts. */
  TOO_LARGE(8),
  /** Not possible on this backend or in this state. */
  UNSUPPORTED(9),
  /**
   * The claim cannot take this connection now (its session or attached-process limit, too many
   * connections waiting for HELLO, or it is not served), or cannot serve unmodified programs.
   */
  UNAVAILABLE(10);

  public final byte code;

  Status(int code) {
    this.code = (byte) code;
  }

  public static Status of(int code) {
    for (Status status : values()) {
      if (status.code == code) {
        return status;
      }
    }
    return BAD_REQUEST;
  }
}
