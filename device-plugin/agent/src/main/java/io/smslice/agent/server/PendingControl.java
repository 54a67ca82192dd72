package io.smslice.agent.server;

import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A session's control request waiting for its turn: it runs once the records its tenant queued
 * before it ({@code barrier}, the ring's submitted count when it arrived) have run.
 */
record PendingControl(Op op, ByteBuffer payload, CompletableFuture<Reply> reply, long barrier) {
  void refuse(Status status, String message) {
    reply.complete(Reply.error(status, message));
  }
}
