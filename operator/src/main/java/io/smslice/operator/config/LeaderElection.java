package io.smslice.operator.config;

import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * One operator replica reconciles at a time: the extension enables the lease for the profiles in
 * {@code quarkus.operator-sdk.activate-leader-election-for-profiles} (prod by default).
 */
public class LeaderElection {

  @Produces
  @Singleton
  LeaderElectionConfiguration leaderElection(OperatorConfig config) {
    return config
        .leaseNamespace()
        .map(ns -> new LeaderElectionConfiguration(config.leaseName(), ns))
        .orElseGet(() -> new LeaderElectionConfiguration(config.leaseName()));
  }
}
