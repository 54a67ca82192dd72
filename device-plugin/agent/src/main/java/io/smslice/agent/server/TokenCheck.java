package io.smslice.agent.server;

/** Whether a token opens a claim's socket. */
@FunctionalInterface
public interface TokenCheck {
  boolean accepts(String token);
}
