package io.smslice.agent.server;

import io.smslice.protocol.Status;

/** A request the agent refuses, with the status and message the tenant gets. */
public final class ProtocolException extends Exception {
  private final Status status;

  public ProtocolException(Status status, String message) {
    super(message);
    this.status = status;
  }

  public Status status() {
    return status;
  }
}
