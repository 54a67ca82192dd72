package io.smslice.agent.guard;

import io.smslice.protocol.GuardLayout;
import java.nio.file.Path;

/**
 * A latency-critical owner in a process of its own for {@link ClaimGuardDeadOwnerTest} and {@link
 * AgentSweepsDeadOwnersTest}: takes a slot of the guard file (locking it), marks it busy as an
 * executor with work in flight does, says "busy" and waits to be killed. Arguments: the file and
 * the index of the slot join takes (the first free one).
 */
public final class BusyOwner {
  private BusyOwner() {}

  public static void main(String[] args) throws Exception {
    GpuGuard gpu = GpuGuard.open(Path.of(args[0]));
    gpu.join("ml/detector", GuardLayout.ROLE_LATENCY_CRITICAL).orElseThrow();
    long slot = GuardLayout.slotOffset(Integer.parseInt(args[1]));
    gpu.putLong(slot + GuardLayout.SLOT_BUSY_SINCE, System.nanoTime());
    gpu.addInt(GuardLayout.BUSY_COUNT_OFFSET, 1);
    System.out.println("busy");
    Thread.sleep(600_000);
  }
}
