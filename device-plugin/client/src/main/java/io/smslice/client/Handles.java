package io.smslice.client;

/** Handles of a session's objects; they mean nothing in another session. */
public final class Handles {
  private Handles() {}

  public record Buffer(long handle, long bytes) {}

  public record Module(long handle) {}

  public record Kernel(long handle, String name) {}

  public record Stream(long handle) {}

  public record Event(long handle) {}

  public record Graph(long handle) {}
}
