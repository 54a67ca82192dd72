package io.smslice.protocol;

/**
 * Layout of a session's shared file, mapped by the tenant and the agent (and pinned by the agent
 * with cuMemHostRegister): a header of counters, a ring of fixed-size records, then the data area
 * that copies read from and write to.
 *
 * <p>The tenant writes record {@code seq} at slot {@code seq % RING_RECORDS}, then publishes {@code
 * SUBMITTED = seq + 1} (release). The agent runs records in order and publishes {@code COMPLETED}
 * after each: for queue operations that means "queued on the GPU", for SYNC records "finished". A
 * failed record leaves its status and message in the error slot until the tenant acknowledges it.
 */
public final class SharedLayout {
  public static final int MAGIC = 0x534d534c; // "SMSL"
  public static final int VERSION = 1;

  public static final long MAGIC_OFFSET = 0;
  public static final long VERSION_OFFSET = 4;

  /** Written by the tenant: records published. */
  public static final long SUBMITTED = 64;

  /** Written by the agent: records done. */
  public static final long COMPLETED = 128;

  /** Written by the agent: 1 + sequence of the first unacknowledged failed record, or 0. */
  public static final long FAILED_SEQ = 192;

  public static final long ERROR_STATUS = 200;
  public static final long ERROR_LENGTH = 204;
  public static final long ERROR_MESSAGE = 208;
  public static final int ERROR_MESSAGE_MAX = 800;

  /** Written by the tenant: the FAILED_SEQ value it has reported. */
  public static final long ERROR_ACKNOWLEDGED = 1024;

  /** Written by the agent: a {@link Status} code once the session is over (0 while alive). */
  public static final long SESSION_STATE = 1088;

  /**
   * Written by the agent: 1 while its thread sleeps parked (the tenant then rings the DOORBELL
   * frame), 3 while it sleeps on this word as a futex (the tenant then wakes the futex), 0 while
   * awake. The tenant that wakes it first sets it to 2, so a burst of records wakes it once.
   */
  public static final long AGENT_SLEEPING = 1152;

  /**
   * Written by the tenant: 1 while it sleeps on the low word of COMPLETED (a futex); the agent then
   * wakes it after publishing a completion or ending the session.
   */
  public static final long TENANT_SLEEPING = 1216;

  /**
   * Written by the agent on a simulated GPU only (0 on a real one): the modelled GPU nanoseconds of
   * this session's work so far (its kernels' waits for their SMs plus their durations), published
   * before COMPLETED. A tenant's difference across a frame is the frame's GPU-side latency, free of
   * the host's CPU delays.
   */
  public static final long MODELLED_GPU_NANOS = 1280;

  public static final long RING_OFFSET = 4096;
  public static final int RING_RECORDS = 1024;
  public static final int RECORD_BYTES = 512;
  public static final long DATA_OFFSET = RING_OFFSET + (long) RING_RECORDS * RECORD_BYTES;

  /** LAUNCH record: op, argc, function, stream, 6 dimensions, shared bytes, then the args. */
  public static final int LAUNCH_ARGS_OFFSET = 56;

  public static final int ARG_BYTES = 17;
  public static final int MAX_KERNEL_ARGS = (RECORD_BYTES - LAUNCH_ARGS_OFFSET) / ARG_BYTES;

  private SharedLayout() {}

  public static long recordOffset(long seq) {
    return RING_OFFSET + (seq % RING_RECORDS) * RECORD_BYTES;
  }
}
