package io.smslice.node.dra.prepare;

import io.smslice.agent.BoundClaim;
import io.smslice.agent.ClaimAccess;
import io.smslice.agent.ClaimStatus;
import java.util.List;

/** What the DRA driver needs of the node agent (NodeWithAgent hands it the real one). */
public interface SliceAgent extends ClaimAccess {
  /** Serves the claim on its groups, or brings a served one to them. */
  void serve(BoundClaim claim) throws Exception;

  void release(String namespace, String claim);

  void forgetTokens(String namespace, String claim);

  /** Every claim the agent serves now, with its GPU and groups. */
  List<ClaimStatus> claimStatuses();
}
