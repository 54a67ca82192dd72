package io.smslice.agent.guard;

import io.smslice.protocol.GuardLayout;
import java.nio.file.Path;

/**
 * A latency-critical owner in a process of its own for {@link ClaimGuardDeadOwnerTest}: takes a
 * slot of the guard file (locking it), marks it busy as an executor with work in flight does, says
 * "busy" and waits to be killed.
 */
public final class BusyOwner {
  private BusyOwner() {}

  public static void main(String[] args) throws Exception {
    GpuGuard gpu = GpuGuard.open(Path.of(args[0]));
    // A fresh file's first slot: the one join takes.
    gpu.join("ml/detector", GuardLayout.ROLE_LATENCY_CRITICAL).orElseThrow();
    gpu.putLong(GuardLayout.slotOffset(0) + GuardLayout.SLOT_BUSY_SINCE, System.nanoTime());
    gpu.addInt(GuardLayout.BUSY_COUNT_OFFSET, 1);
    System.out.println("busy");
    Thread.sleep(600_000);
  }
}
