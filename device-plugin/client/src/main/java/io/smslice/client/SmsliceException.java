package io.smslice.client;

import io.smslice.protocol.Status;

/** The agent refused or failed an operation; {@link #status()} says how. */
public class SmsliceException extends RuntimeException {
  private final Status status;

  public SmsliceException(Status status, String message) {
    super(status + ": " + message);
    this.status = status;
  }

  public Status status() {
    return status;
  }

  static SmsliceException of(Status status, String message) {
    return status == Status.FAULT || status == Status.DEVICE_LOST
        ? new DeviceLostException(status, message)
        : new SmsliceException(status, message);
  }
}
