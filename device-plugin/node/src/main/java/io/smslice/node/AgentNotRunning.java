package io.smslice.node;

import io.smslice.agent.ClaimAccess;
import io.smslice.agent.ClaimEndpoint;
import java.util.Optional;

/**
 * Stands where the agent is not started in this process: no claim is served, so green-mode
 * Allocates fail with a message that says the agent is missing.
 */
final class AgentNotRunning implements ClaimAccess {
  @Override
  public Optional<ClaimEndpoint> endpoint(String namespace, String claim) {
    return Optional.empty();
  }

  @Override
  public String issueToken(String namespace, String claim, String podUid, String container) {
    throw new IllegalStateException("the smslice agent does not run in this node process");
  }
}
