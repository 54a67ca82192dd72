package io.smslice.agent.transparent;

import io.smslice.protocol.Frames;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * An ATTACH frame's payload: the interposer of an unmodified program names its claim and token, and
 * says who it is as it sees itself (its pid in its own PID namespace, its first cgroup line, its
 * command name).
 */
public record AttachRequest(String claim, String token, int pid, String cgroup, String command) {
  static final int MAX_CGROUP_BYTES = 1024;
  static final int MAX_COMMAND_BYTES = 64;

  /** Parses the payload after the op byte, or explains what is wrong with it. */
  public static AttachRequest parse(ByteBuffer payload) throws MalformedException {
    try {
      String claim = Frames.getString(payload);
      String token = Frames.getString(payload);
      int pid = payload.getInt();
      String cgroup = bounded(payload, "cgroup", MAX_CGROUP_BYTES);
      String command = bounded(payload, "command", MAX_COMMAND_BYTES);
      if (payload.hasRemaining()) {
        throw new MalformedException(
            "malformed ATTACH: " + payload.remaining() + " trailing bytes after the command");
      }
      if (pid <= 0) {
        throw new MalformedException("malformed ATTACH: pid " + pid + " is not a process id");
      }
      return new AttachRequest(claim, token, pid, cgroup, command);
    } catch (BufferUnderflowException e) {
      throw new MalformedException(
          "malformed ATTACH: the payload ends early; expected claim, token, pid, cgroup, command");
    }
  }

  private static String bounded(ByteBuffer payload, String field, int max)
      throws MalformedException {
    int length = Short.toUnsignedInt(payload.getShort(payload.position()));
    if (length > max) {
      throw new MalformedException(
          "malformed ATTACH: " + field + " of " + length + " bytes; at most " + max);
    }
    return Frames.getString(payload);
  }

  /** A payload that is not a valid ATTACH. */
  public static final class MalformedException extends Exception {
    public MalformedException(String message) {
      super(message);
    }
  }
}
