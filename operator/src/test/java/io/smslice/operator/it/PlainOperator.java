package io.smslice.operator.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smslice.operator.claim.SliceAllocator;
import io.smslice.operator.claim.SliceClaimReconciler;
import io.smslice.operator.config.OperatorConfig;
import io.smslice.operator.metrics.SliceMetrics;
import io.smslice.operator.pods.ClaimGateReconciler;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The claim controller run by plain JOSDK (same reconciler and allocator as the Quarkus app, SSA
 * off as shipped), so a test can stop an operator and start a fresh one with no memory of it.
 */
public final class PlainOperator implements AutoCloseable {
  private final Operator operator;

  public PlainOperator(KubernetesClient client) {
    this(client, false);
  }

  /** With {@code gate}, the claim-gate controller (releases gated pods) runs too. */
  public PlainOperator(KubernetesClient client, boolean gate) {
    operator =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withUseSSAToPatchPrimaryResource(false)
                    .withSSABasedCreateUpdateMatchForDependentResources(false)
                    .withCloseClientOnStop(false));
    var allocator = new SliceAllocator(config(), Clock.systemUTC());
    var metrics = new SliceMetrics(new SimpleMeterRegistry());
    operator.register(
        new SliceClaimReconciler(allocator, metrics, client, Clock.systemUTC(), config()));
    if (gate) {
      operator.register(new ClaimGateReconciler(client, Clock.systemUTC()));
    }
    operator.start();
  }

  @Override
  public void close() {
    operator.stop();
  }

  static OperatorConfig config() {
    return new OperatorConfig() {
      @Override
      public Duration heartbeatTimeout() {
        return Duration.ofMinutes(10);
      }

      @Override
      public Duration livenessCheckInterval() {
        return Duration.ofSeconds(10);
      }

      @Override
      public java.util.Set<String> toleratedTaints() {
        return java.util.Set.of("nvidia.com/gpu");
      }

      @Override
      public boolean webhookRequireTls() {
        return false;
      }

      @Override
      public Duration metricsRefreshInterval() {
        return Duration.ofSeconds(5);
      }

      @Override
      public String leaseName() {
        return "unused";
      }

      @Override
      public Optional<String> leaseNamespace() {
        return Optional.empty();
      }

      @Override
      public String allocation() {
        return "devicePlugin";
      }
    };
  }
}
