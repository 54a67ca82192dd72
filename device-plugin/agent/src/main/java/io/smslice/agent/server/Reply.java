package io.smslice.agent.server;

import io.smslice.protocol.Status;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The answer to a control request: a status and, for OK, the payload, else a message. */
record Reply(Status status, ByteBuffer payload) {
  static Reply ok(ByteBuffer payload) {
    return new Reply(Status.OK, payload);
  }

  static Reply error(Status status, String message) {
    return new Reply(
        status, ByteBuffer.wrap(String.valueOf(message).getBytes(StandardCharsets.UTF_8)));
  }
}
