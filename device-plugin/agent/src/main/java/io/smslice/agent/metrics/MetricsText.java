package io.smslice.agent.metrics;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** Prometheus text exposition (version 0.0.4) of the agent's per-claim metrics. */
public final class MetricsText {
  private MetricsText() {}

  public static String render(String backend, boolean simulated, List<ClaimSample> claims) {
    StringBuilder out = new StringBuilder();
    out.append("# HELP smslice_agent_backend GPU backend the agent uses (1 for the one in use).\n")
        .append("# TYPE smslice_agent_backend gauge\n")
        .append("smslice_agent_backend{backend=\"")
        .append(backend)
        .append("\",simulated=\"")
        .append(simulated)
        .append("\"} 1\n");
    gauge(out, claims, "smslice_claim_sms", "SMs of the claim's green context.", s -> s.sms());
    gauge(out, claims, "smslice_claim_sessions", "Open tenant sessions.", s -> s.sessions());
    gauge(
        out,
        claims,
        "smslice_claim_failed",
        "1 when the claim stopped serving after an error inside the agent (see its log).",
        s -> s.failed() ? 1 : 0);
    gauge(
        out,
        claims,
        "smslice_claim_memory_used_bytes",
        "Device memory allocated by tenants.",
        s -> s.memoryUsed());
    gauge(
        out,
        claims,
        "smslice_claim_memory_quota_bytes",
        "Device memory the claim may allocate.",
        s -> s.memoryQuota());
    counter(
        out,
        claims,
        "smslice_claim_launches_total",
        "Kernel launches run for tenants.",
        s -> s.metrics().launches());
    counter(
        out,
        claims,
        "smslice_claim_gpu_wait_seconds_total",
        "Time the claim's executor waited in synchronization for the claim's GPU work.",
        s -> s.metrics().syncNanos() / 1e9);
    counter(
        out,
        claims,
        "smslice_claim_faults_total",
        "GPU faults caused by the claim's kernels.",
        s -> s.metrics().faults());
    counter(
        out,
        claims,
        "smslice_claim_resizes_total",
        "Resizes applied to the claim.",
        s -> s.metrics().resizes());
    gauge(
        out,
        claims,
        "smslice_claim_last_resize_seconds",
        "Agent part of the last resize: new green context serving.",
        s -> s.metrics().lastResizeNanos() / 1e9);
    gauge(
        out,
        claims,
        "smslice_claim_last_recovery_seconds",
        "Last fault recovery: fault seen to the claim serving again.",
        s -> s.metrics().lastRecoveryNanos() / 1e9);
    histogram(out, claims);
    return out.toString();
  }

  private static String labels(ClaimSample s) {
    return "namespace=\""
        + s.namespace()
        + "\",claim=\""
        + s.claim()
        + "\",gpu=\""
        + s.gpuUuid()
        + "\",mode=\""
        + s.runMode()
        + "\"";
  }

  private static void gauge(
      StringBuilder out,
      List<ClaimSample> claims,
      String name,
      String help,
      ToDoubleFunction<ClaimSample> value) {
    family(out, claims, name, help, "gauge", value);
  }

  private static void counter(
      StringBuilder out,
      List<ClaimSample> claims,
      String name,
      String help,
      ToDoubleFunction<ClaimSample> value) {
    family(out, claims, name, help, "counter", value);
  }

  private static void family(
      StringBuilder out,
      List<ClaimSample> claims,
      String name,
      String help,
      String type,
      ToDoubleFunction<ClaimSample> value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    for (ClaimSample s : claims) {
      out.append(name)
          .append('{')
          .append(labels(s))
          .append("} ")
          .append(number(value.applyAsDouble(s)))
          .append('\n');
    }
  }

  private static void histogram(StringBuilder out, List<ClaimSample> claims) {
    String name = "smslice_claim_launch_seconds";
    out.append("# HELP ")
        .append(name)
        .append(" Launch latency in the agent: record dequeued to the driver call returned.\n");
    out.append("# TYPE ").append(name).append(" histogram\n");
    for (ClaimSample s : claims) {
      long cumulative = 0;
      for (int i = 0; i < ClaimMetrics.LAUNCH_BUCKETS.length; i++) {
        cumulative += s.metrics().bucket(i);
        out.append(name)
            .append("_bucket{")
            .append(labels(s))
            .append(",le=\"")
            .append(number(ClaimMetrics.LAUNCH_BUCKETS[i]))
            .append("\"} ")
            .append(cumulative)
            .append('\n');
      }
      out.append(name)
          .append("_bucket{")
          .append(labels(s))
          .append(",le=\"+Inf\"} ")
          .append(s.metrics().launches())
          .append('\n');
      out.append(name)
          .append("_sum{")
          .append(labels(s))
          .append("} ")
          .append(number(s.metrics().launchNanos() / 1e9))
          .append('\n');
      out.append(name)
          .append("_count{")
          .append(labels(s))
          .append("} ")
          .append(s.metrics().launches())
          .append('\n');
    }
  }

  private static String number(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : String.format(Locale.ROOT, "%.9g", value);
  }
}
