package io.smslice.protocol;

/** Operations queued through the shared-memory ring (the data and launch path). */
public final class RingOp {
  public static final int LAUNCH = 1;
  public static final int COPY_TO_DEVICE = 2;
  public static final int COPY_TO_HOST = 3;
  public static final int COPY_DEVICE_TO_DEVICE = 4;
  public static final int FILL = 5;
  public static final int RECORD_EVENT = 6;
  public static final int WAIT_EVENT = 7;
  public static final int SYNC_STREAM = 8;
  public static final int SYNC_EVENT = 9;
  public static final int LAUNCH_GRAPH = 10;

  /** Kernel argument kinds in a LAUNCH record. */
  public static final byte ARG_BUFFER = 1;

  public static final byte ARG_I32 = 2;
  public static final byte ARG_I64 = 3;
  public static final byte ARG_F32 = 4;
  public static final byte ARG_F64 = 5;

  private RingOp() {}
}
