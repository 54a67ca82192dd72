package io.smslice.agent.server;

import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The answer to a control request: a status and, for OK, the payload, else a message. */
record Reply(Status status, ByteBuffer payload) {
  static Reply ok(ByteBuffer payload) {
    return new Reply(Status.OK, payload);
  }

  /** A request whose payload did not parse: says what, without Java's exception names. */
  static Reply malformed(Op op, int payloadBytes, RuntimeException e) {
    String why =
        e instanceof BufferUnderflowException
            ? "truncated: its payload of " + payloadBytes + " bytes ends before its last field"
            : e.getMessage() == null ? "its payload does not parse" : e.getMessage();
    return error(Status.BAD_REQUEST, "malformed " + op + " request: " + why);
  }

  static Reply error(Status status, String message) {
    return new Reply(
        status, ByteBuffer.wrap(String.valueOf(message).getBytes(StandardCharsets.UTF_8)));
  }
}
