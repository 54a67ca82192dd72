package io.smslice.agent;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** What the device plugin needs from the agent to hand a claim's slice to a container. */
public interface ClaimAccess {
  /** The claim's endpoint, once the agent serves the claim on this node. */
  Optional<ClaimEndpoint> endpoint(String namespace, String claim);

  /** A new token that the claim's socket accepts, for one container; persists across restarts. */
  String issueToken(String namespace, String claim, String podUid, String container);

  /**
   * Writes the variables a container of the claim was given to a file for it ({@link
   * TenantEnvironmentFiles}); returns the file's host path. Removed with the claim's tokens.
   */
  Path tenantEnvironment(
      String namespace, String claim, String podUid, String container, Map<String, String> env);
}
