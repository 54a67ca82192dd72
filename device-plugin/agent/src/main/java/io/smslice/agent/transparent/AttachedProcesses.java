package io.smslice.agent.transparent;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The unmodified programs' processes attached to one claim. Each ATTACH connection holds one
 * registration for as long as it is open; the count is capped on its own, apart from the claim's
 * sessions, because attached processes are idle on the socket by design.
 */
public final class AttachedProcesses {
  private final int max;
  private final HostPids hostPids;
  private final Clock clock;
  private final Set<Registration> live = new LinkedHashSet<>();

  public AttachedProcesses(int max, HostPids hostPids, Clock clock) {
    this.max = max;
    this.hostPids = hostPids;
    this.clock = clock;
  }

  public int max() {
    return max;
  }

  /** A process's registration; closing it (when its connection closes) unregisters it. */
  public final class Registration implements AutoCloseable {
    private final AttachedProcess process;

    private Registration(AttachedProcess process) {
      this.process = process;
    }

    public AttachedProcess process() {
      return process;
    }

    @Override
    public void close() {
      synchronized (AttachedProcesses.this) {
        live.remove(this);
      }
    }
  }

  /** Registers the process, or returns null when the claim has its maximum already. */
  public Registration register(AttachRequest request) {
    synchronized (this) {
      if (live.size() >= max) {
        return null;
      }
    }
    // Scanning /proc takes a while; do it outside the lock, then check the cap again.
    HostPids.Found found = hostPids.find(request.pid(), request.cgroup(), request.command());
    AttachedProcess process =
        new AttachedProcess(
            request.pid(), found.hostPid(), found.container(), request.command(), clock.instant());
    synchronized (this) {
      if (live.size() >= max) {
        return null;
      }
      Registration registration = new Registration(process);
      live.add(registration);
      return registration;
    }
  }

  public synchronized List<AttachedProcess> list() {
    List<AttachedProcess> processes = new ArrayList<>(live.size());
    live.forEach(r -> processes.add(r.process));
    return processes;
  }

  public synchronized int count() {
    return live.size();
  }
}
