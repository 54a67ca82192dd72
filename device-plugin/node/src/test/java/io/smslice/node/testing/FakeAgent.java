package io.smslice.node.testing;

import io.smslice.agent.AgentOptions;
import io.smslice.agent.ClaimAccess;
import io.smslice.agent.ClaimEndpoint;
import io.smslice.agent.TenantEnvironmentFiles;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** An agent that serves the claims it is told to, under a run directory, and records tokens. */
public final class FakeAgent implements ClaimAccess {
  private final Path run;
  private final Map<String, ClaimEndpoint> served = new ConcurrentHashMap<>();
  private final Map<String, String> tokens = new ConcurrentHashMap<>();

  private final TenantEnvironmentFiles tenantEnvironments;

  public FakeAgent(Path run) {
    this.run = run;
    this.tenantEnvironments = new TenantEnvironmentFiles(run);
  }

  public void serve(String namespace, String claim) {
    Path dir = run.resolve("claims").resolve(AgentOptions.claimDirectoryName(namespace, claim));
    served.put(
        namespace + "/" + claim,
        new ClaimEndpoint(namespace, claim, dir, dir.resolve("agent.sock")));
  }

  @Override
  public Optional<ClaimEndpoint> endpoint(String namespace, String claim) {
    return Optional.ofNullable(served.get(namespace + "/" + claim));
  }

  @Override
  public String issueToken(String namespace, String claim, String podUid, String container) {
    String token = "token-" + podUid + "-" + container;
    tokens.put(token, namespace + "/" + claim);
    return token;
  }

  @Override
  public Path tenantEnvironment(
      String namespace, String claim, String podUid, String container, Map<String, String> env) {
    return tenantEnvironments.write(namespace, claim, podUid, container, env);
  }

  /** The claim a token was issued for, or null. */
  public String claimOf(String token) {
    return tokens.get(token);
  }
}
