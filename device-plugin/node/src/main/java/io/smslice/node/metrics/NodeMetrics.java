package io.smslice.node.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The node side's Prometheus metrics, kept in memory and written in the text exposition format.
 * Small on purpose: a handful of counters and gauges do not justify a metrics library.
 */
public final class NodeMetrics {
  private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
  private final Map<String, Supplier<Map<String, Double>>> gauges = new ConcurrentHashMap<>();
  private final Map<String, String> help = new ConcurrentHashMap<>();
  private final java.util.List<Supplier<String>> included =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  public NodeMetrics() {
    help.put("smslice_node_allocations_total", "Kubelet Allocate calls by resource and result.");
    help.put("smslice_node_registrations_total", "Successful registrations with the kubelet.");
    help.put("smslice_node_mps_daemon_starts_total", "MPS control daemon starts by GPU.");
    help.put("smslice_node_slicenode_updates_total", "SliceNode status writes by result.");
    help.put(
        "smslice_node_gpu_client_faults_total",
        "Application Xids (a client's own fault) on GPUs whose clients share an MPS server.");
    help.put(
        "smslice_node_gpu_fault_recoveries_total",
        "Recoveries after a client fault by result: clients-exited, mps-restarted or failed.");
    help.put(
        "smslice_node_dra_prepares_total",
        "DRA NodePrepareResources claims by result: prepared, repeated or error.");
    help.put(
        "smslice_node_dra_unprepares_total",
        "DRA NodeUnprepareResources claims by result: unprepared, unknown or error.");
    help.put(
        "smslice_node_dra_registrations_total",
        "The kubelet's answers to the DRA plugin's registration by result: registered or refused.");
    help.put(
        "smslice_node_dra_claim_status_writes_total",
        "Writes of a prepared claim's status.devices entry by result.");
    help.put(
        "smslice_node_resourceslice_updates_total",
        "ResourceSlice writes by result: created, updated or error.");
  }

  /** One claim of a NodePrepareResources call. */
  public void draPrepare(String result) {
    inc("smslice_node_dra_prepares_total", "result=\"" + result + "\"");
  }

  /** One claim of a NodeUnprepareResources call. */
  public void draUnprepare(String result) {
    inc("smslice_node_dra_unprepares_total", "result=\"" + result + "\"");
  }

  public void draRegistration(String result) {
    inc("smslice_node_dra_registrations_total", "result=\"" + result + "\"");
  }

  public void draClaimStatusWrite(String result) {
    inc("smslice_node_dra_claim_status_writes_total", "result=\"" + result + "\"");
  }

  public void resourceSliceUpdate(String result) {
    inc("smslice_node_resourceslice_updates_total", "result=\"" + result + "\"");
  }

  public void allocation(String resource, String result) {
    inc(
        "smslice_node_allocations_total",
        "resource=\"" + resource + "\",result=\"" + result + "\"");
  }

  public void registration(String resource) {
    inc("smslice_node_registrations_total", "resource=\"" + resource + "\"");
  }

  public void mpsDaemonStart(String gpuUuid) {
    inc("smslice_node_mps_daemon_starts_total", "gpu=\"" + gpuUuid + "\"");
  }

  public void clientFault(String gpuUuid, long xid) {
    inc("smslice_node_gpu_client_faults_total", "gpu=\"" + gpuUuid + "\",xid=\"" + xid + "\"");
  }

  public void faultRecovery(String gpuUuid, String result) {
    inc(
        "smslice_node_gpu_fault_recoveries_total",
        "gpu=\"" + gpuUuid + "\",result=\"" + result + "\"");
  }

  public void sliceNodeUpdate(String result) {
    inc("smslice_node_slicenode_updates_total", "result=\"" + result + "\"");
  }

  /** A gauge family: label set (as written between braces) to value, read at scrape time. */
  public void gauge(String name, String description, Supplier<Map<String, Double>> values) {
    help.put(name, description);
    gauges.put(name, values);
  }

  /** Text in the exposition format that another component renders (the agent's metrics). */
  public void include(Supplier<String> exposition) {
    included.add(exposition);
  }

  private void inc(String name, String labels) {
    counters.computeIfAbsent(name + "{" + labels + "}", k -> new AtomicLong()).incrementAndGet();
  }

  /** Counter value, for tests and logs. */
  public long counter(String name, String labels) {
    AtomicLong v = counters.get(name + "{" + labels + "}");
    return v == null ? 0 : v.get();
  }

  public String scrape() {
    Map<String, StringBuilder> families = new TreeMap<>();
    new TreeMap<>(counters)
        .forEach(
            (series, value) ->
                family(families, series.substring(0, series.indexOf('{')), "counter")
                    .append(series)
                    .append(' ')
                    .append(value.get())
                    .append('\n'));
    gauges.forEach(
        (name, supplier) -> {
          StringBuilder out = family(families, name, "gauge");
          new TreeMap<>(supplier.get())
              .forEach(
                  (labels, value) -> {
                    out.append(name);
                    if (!labels.isEmpty()) {
                      out.append('{').append(labels).append('}');
                    }
                    out.append(' ').append(value).append('\n');
                  });
        });
    StringBuilder all = new StringBuilder();
    families.values().forEach(all::append);
    for (Supplier<String> more : included) {
      String text = more.get();
      all.append(text);
      if (!text.isEmpty() && !text.endsWith("\n")) {
        all.append('\n');
      }
    }
    return all.toString();
  }

  private StringBuilder family(Map<String, StringBuilder> families, String name, String type) {
    return families.computeIfAbsent(
        name,
        n ->
            new StringBuilder()
                .append("# HELP ")
                .append(n)
                .append(' ')
                .append(help.getOrDefault(n, n))
                .append("\n# TYPE ")
                .append(n)
                .append(' ')
                .append(type)
                .append('\n'));
  }
}
