package io.smslice.examples.observability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The dashboard's variables filled as Grafana fills them with All selected. */
class DashboardOverPrometheusTest {
  @Test
  void allClaimsAndARateIntervalOfFourScrapes() {
    String expr =
        "sum by (claim) (rate(smslice_guard_holds_total{claim=~\"$namespace/$claim\"}"
            + "[$__rate_interval])) + increase(x{namespace=~\"$namespace\"}[$__range])";

    assertThat(DashboardOverPrometheus.substitute(expr, 5, 150))
        .isEqualTo(
            "sum by (claim) (rate(smslice_guard_holds_total{claim=~\".*/.*\"}[20s]))"
                + " + increase(x{namespace=~\".*\"}[150s])");
  }
}
