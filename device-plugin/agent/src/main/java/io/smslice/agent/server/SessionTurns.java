package io.smslice.agent.server;

import io.smslice.gpu.GpuException;
import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Fair service of a claim's sessions on its executor: each session's turn runs at most {@link
 * #RECORDS_PER_TURN} of its ring records, then its oldest control request once the records queued
 * before that request have run. So a session that floods its ring delays the others by one bounded
 * turn, never by its whole backlog.
 */
final class SessionTurns {
  /** Ring records one session may run before the next session's turn. */
  static final int RECORDS_PER_TURN = 32;

  private final ClaimRuntime runtime;
  private final List<Session> sessions;
  private int nextTurn;
  private volatile PendingControl answering;

  SessionTurns(ClaimRuntime runtime, List<Session> sessions) {
    this.runtime = runtime;
    this.sessions = sessions;
  }

  /** One turn per session, starting with a different one each time; true when any worked. */
  boolean run() {
    boolean worked = false;
    int count = sessions.size();
    int first = nextTurn++;
    for (int k = 0;
        k < count && k < sessions.size() && runtime.serving() && !runtime.released();
        k++) {
      Session session = sessions.get(Math.floorMod(first + k, sessions.size()));
      PendingControl head = session.controls.peek();
      long limit = head == null ? Long.MAX_VALUE : head.barrier();
      worked |= session.pollRing(RECORDS_PER_TURN, limit) > 0;
      if (head != null && (!runtime.serving() || session.reached(head.barrier()))) {
        session.controls.poll();
        answer(session, head);
        worked = true;
      }
    }
    return worked;
  }

  private void answer(Session session, PendingControl request) {
    if (!runtime.serving()) {
      request.refuse(
          runtime.failure() != null ? Status.UNAVAILABLE : Status.DEVICE_LOST,
          runtime.failure() != null
              ? "the claim failed: " + runtime.failure()
              : "the GPU is being recovered");
      return;
    }
    CompletableFuture<Reply> reply = request.reply();
    Op op = request.op();
    answering = request;
    try {
      reply.complete(Reply.ok(session.control(op, request.payload())));
    } catch (ProtocolException e) {
      reply.complete(Reply.error(e.status(), e.getMessage()));
    } catch (GpuException e) {
      if (e.contextLost()) {
        Status status = runtime.contextLost(session, e) ? Status.FAULT : Status.DEVICE_LOST;
        reply.complete(Reply.error(status, e.getMessage()));
      } else {
        reply.complete(Reply.error(Status.GPU_ERROR, e.getMessage()));
      }
    } catch (RuntimeException e) {
      reply.complete(Reply.malformed(op, request.payload().limit(), e));
    } catch (Error e) {
      reply.complete(
          Reply.error(Status.UNAVAILABLE, runtime.internalError(session, op + " request", e)));
    } finally {
      answering = null;
    }
  }

  /** Refuses the request the executor is stuck in, when the claim is released meanwhile. */
  void abandonCurrent(String reason) {
    PendingControl stuck = answering;
    if (stuck != null) {
      stuck.refuse(Status.UNAVAILABLE, reason);
    }
  }
}
