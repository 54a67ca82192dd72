package io.smslice.operator.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** The operator's own settings (docs/operator.md lists them with their environment names). */
@ConfigMapping(prefix = "smslice")
public interface OperatorConfig {

  /** A SliceNode whose heartbeat is older than this is lost: its claims are placed again. */
  @WithDefault("60s")
  Duration heartbeatTimeout();

  /** How often stale heartbeats are looked for (events cover every other change). */
  @WithDefault("10s")
  Duration livenessCheckInterval();

  /**
   * Keys of NoSchedule/NoExecute node taints that GPU workloads are expected to tolerate: a node
   * with only these still gets new slices (the kube-scheduler checks the pods' tolerations).
   */
  @WithDefault("nvidia.com/gpu,smslice.io/gpu")
  java.util.Set<String> toleratedTaints();

  /** Answer the webhook only over HTTPS (the plain port serves metrics and health only). */
  @WithDefault("true")
  boolean webhookRequireTls();

  /** How often per-GPU metrics are recomputed when something changed. */
  @WithDefault("5s")
  Duration metricsRefreshInterval();

  /** Lease used for leader election (in the prod profile). */
  @WithDefault("smslice-operator-leader")
  String leaseName();

  /** Namespace of the lease; defaults to the operator's own namespace. */
  Optional<String> leaseNamespace();

  /**
   * How green slices reach pods: {@code devicePlugin} (the operator places SliceClaims) or {@code
   * dra} (each green SliceClaim becomes a ResourceClaim the kube-scheduler allocates). The chart's
   * allocation.mode; read through {@link Allocation#of}.
   */
  @WithDefault("devicePlugin")
  String allocation();
}
