package io.smslice.examples.demo;

import io.smslice.examples.workload.LatencyStats;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/** The workloads the demo's container runtime has started, for the live table and the checks. */
final class RunningWorkloads {
  /** One started container and what it has done so far. */
  static final class Entry {
    final String pod;
    final String claim;
    final String kind;
    final LatencyStats stats;
    volatile String state = "starting";

    Entry(String pod, String claim, String kind, LatencyStats stats) {
      this.pod = pod;
      this.claim = claim;
      this.kind = kind;
      this.stats = stats;
    }
  }

  private final Map<String, Entry> entries = new ConcurrentSkipListMap<>();

  void add(Entry entry) {
    entries.put(entry.pod, entry);
  }

  Collection<Entry> all() {
    return entries.values();
  }

  Entry get(String pod) {
    return entries.get(pod);
  }
}
