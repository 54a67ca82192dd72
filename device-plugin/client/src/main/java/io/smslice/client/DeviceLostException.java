package io.smslice.client;

import io.smslice.protocol.Status;

/**
 * The session's device state is gone: its own kernel faulted ({@link Status#FAULT}) or another
 * tenant's fault reset the GPU ({@link Status#DEVICE_LOST}). Call {@link SmsliceClient#reconnect}
 * and load modules and data again.
 */
public final class DeviceLostException extends SmsliceException {
  public DeviceLostException(Status status, String message) {
    super(status, message);
  }
}
