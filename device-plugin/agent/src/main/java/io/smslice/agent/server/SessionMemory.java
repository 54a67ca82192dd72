package io.smslice.agent.server;

import io.smslice.protocol.Futex;
import io.smslice.protocol.SharedCounters;
import io.smslice.protocol.SharedLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A session's shared file: created by the agent under an unguessable name in the claim directory,
 * mapped by both sides, and unlinked as soon as the tenant has mapped it (so no one else can).
 */
final class SessionMemory implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Arena arena;
  private final SessionDirectory directory;
  private final String file;
  final MemorySegment segment;
  final SharedCounters counters;

  private SessionMemory(
      Arena arena, SessionDirectory directory, String file, MemorySegment segment) {
    this.arena = arena;
    this.directory = directory;
    this.file = file;
    this.segment = segment;
    this.counters = new SharedCounters(segment);
  }

  static SessionMemory create(SessionDirectory directory, long dataBytes) throws IOException {
    byte[] name = new byte[16];
    RANDOM.nextBytes(name);
    String file = HexFormat.of().formatHex(name) + ".shm";
    long size = SharedLayout.DATA_OFFSET + dataBytes;
    Arena arena = Arena.ofShared();
    // Readable and writable by the tenant's user, whichever it is; the name is the secret.
    try (FileChannel channel = directory.create(file)) {
      channel.truncate(size);
      channel.write(java.nio.ByteBuffer.wrap(new byte[1]), size - 1);
      MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
      SessionMemory memory = new SessionMemory(arena, directory, file, segment);
      segment.set(ValueLayout.JAVA_INT, SharedLayout.MAGIC_OFFSET, SharedLayout.MAGIC);
      segment.set(ValueLayout.JAVA_INT, SharedLayout.VERSION_OFFSET, SharedLayout.VERSION);
      return memory;
    } catch (IOException | RuntimeException e) {
      arena.close();
      directory.delete(file);
      throw e;
    }
  }

  /** Path of the file relative to the claim directory (the socket's directory). */
  String relativeName() {
    return directory.relative(file);
  }

  long size() {
    return segment.byteSize();
  }

  /** The data area's bytes [offset, offset + bytes), or a refusal naming the bounds. */
  MemorySegment data(long offset, long bytes) throws ProtocolException {
    long capacity = segment.byteSize() - SharedLayout.DATA_OFFSET;
    if (offset < 0 || bytes < 0 || offset > capacity || bytes > capacity - offset) {
      throw new ProtocolException(
          io.smslice.protocol.Status.BAD_REQUEST,
          "data range " + offset + "+" + bytes + " is outside the shared area of " + capacity);
    }
    return segment.asSlice(SharedLayout.DATA_OFFSET + offset, bytes);
  }

  void fail(long seq, io.smslice.protocol.Status status, String message) {
    if (counters.getLong(SharedLayout.FAILED_SEQ)
        != counters.getLong(SharedLayout.ERROR_ACKNOWLEDGED)) {
      return; // the first unreported error stays, as CUDA's sticky errors do
    }
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    int length = Math.min(bytes.length, SharedLayout.ERROR_MESSAGE_MAX);
    MemorySegment.copy(
        MemorySegment.ofArray(bytes), 0, segment, SharedLayout.ERROR_MESSAGE, length);
    segment.set(ValueLayout.JAVA_INT, SharedLayout.ERROR_STATUS, status.code);
    segment.set(ValueLayout.JAVA_INT, SharedLayout.ERROR_LENGTH, length);
    counters.putLong(SharedLayout.FAILED_SEQ, seq + 1);
  }

  /**
   * Wakes the tenant if it sleeps on COMPLETED, after a completion or the session's end was
   * published. The fence orders that store before reading the flag, which the tenant sets before
   * its last look at COMPLETED, so one of the two always sees the other.
   */
  void wakeTenant() {
    SharedCounters.fence();
    if (counters.getInt(SharedLayout.TENANT_SLEEPING) != 0 && Futex.available()) {
      Futex.wakeAll(segment, SharedLayout.COMPLETED);
    }
  }

  void unlink() {
    directory.delete(file);
  }

  @Override
  public void close() {
    unlink();
    arena.close();
  }
}
