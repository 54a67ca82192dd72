package io.smslice.interposer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the guard's tests share: a fake agent the tenants attach to, in dir, and the tenants
 * started, killed when the test ends.
 */
final class GuardTenants implements AutoCloseable {
  private final Path dir;
  private final GuardTenant.Driver driver;
  private final FakeAgent agent;
  private final List<Process> started = new ArrayList<>();

  /** Tenants on the fake driver as driver says, unless a start says otherwise. */
  GuardTenants(Path dir, GuardTenant.Driver driver) throws IOException {
    this.dir = dir;
    this.driver = driver;
    agent =
        new FakeAgent(
            dir.resolve("agent.sock"),
            a -> FakeAgent.ok(InterposerConfinementTest.GPU, 8, 16, new int[] {2, 3}, 16));
  }

  /** A one-thread tenant with the guard's variables in its environment. */
  GuardTenant start(GuardFile guard, String priority, int count, long kernelMicros, long gapMicros)
      throws IOException {
    return start(driver, guard, priority, count, kernelMicros, gapMicros, false, 1);
  }

  /**
   * A one-thread tenant launching a kernel every periodMicros on a fixed schedule, frame lateFrame
   * lateMicros after its time.
   */
  GuardTenant startLateOnce(
      GuardFile guard,
      String priority,
      int count,
      long kernelMicros,
      long periodMicros,
      int lateFrame,
      long lateMicros)
      throws IOException {
    GuardTenant t =
        new GuardTenant(
            dir,
            driver,
            guard,
            priority,
            count,
            kernelMicros,
            periodMicros,
            false,
            1,
            lateFrame,
            lateMicros);
    started.add(t.process);
    return t;
  }

  /**
   * A tenant with the guard's variables in its environment (fromTenantFile: only in its claim's
   * tenant.env), launching from threads threads.
   */
  GuardTenant start(
      GuardTenant.Driver driver,
      GuardFile guard,
      String priority,
      int count,
      long kernelMicros,
      long gapMicros,
      boolean fromTenantFile,
      int threads)
      throws IOException {
    GuardTenant t =
        new GuardTenant(
            dir, driver, guard, priority, count, kernelMicros, gapMicros, fromTenantFile, threads);
    started.add(t.process);
    return t;
  }

  @Override
  public void close() {
    started.forEach(Process::destroyForcibly);
    agent.close();
  }
}
