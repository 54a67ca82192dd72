package io.smslice.protocol;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;

/** Length-prefixed frames on the claim socket. */
public final class Frames {
  private Frames() {}

  /** Thrown for a frame whose declared length is over the limit; the stream cannot continue. */
  public static final class TooLargeException extends IOException {
    public TooLargeException(String message) {
      super(message);
    }
  }

  /** Thrown for a frame of length 0, which cannot hold its op byte; the stream cannot continue. */
  public static final class EmptyFrameException extends IOException {
    public EmptyFrameException() {
      super("empty frame: the length counts the op or status byte, so it is at least 1");
    }
  }

  /** What a frame's buffer starts with; it grows as the frame's bytes arrive. */
  static final int FIRST_CHUNK_BYTES = 64 << 10;

  /**
   * Reads one frame body, or null at a clean end of stream. The body's buffer grows as bytes
   * arrive, never to more than the bytes received so far (doubled): a peer that declares a large
   * frame and sends little costs little.
   */
  public static ByteBuffer read(ReadableByteChannel channel, int maxBytes) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(4);
    if (!fill(channel, header, true)) {
      return null;
    }
    int length = header.flip().getInt();
    if (length == 0) {
      throw new EmptyFrameException();
    }
    if (length < 0 || length > maxBytes) {
      throw new TooLargeException(
          "frame of " + Integer.toUnsignedString(length) + " bytes; the limit is " + maxBytes);
    }
    ByteBuffer body = ByteBuffer.allocate(Math.min(length, FIRST_CHUNK_BYTES));
    while (true) {
      fill(channel, body, false);
      if (body.position() == length) {
        return body.flip();
      }
      ByteBuffer larger =
          ByteBuffer.allocate((int) Math.min(length, 2L * body.capacity())).put(body.flip());
      body = larger;
    }
  }

  private static boolean fill(ReadableByteChannel channel, ByteBuffer buffer, boolean eofOk)
      throws IOException {
    while (buffer.hasRemaining()) {
      if (channel.read(buffer) < 0) {
        if (eofOk && buffer.position() == 0) {
          return false;
        }
        throw new EOFException("connection closed inside a frame");
      }
    }
    return true;
  }

  /** Writes {@code [length][kind][payload]}. */
  public static void write(WritableByteChannel channel, byte kind, ByteBuffer payload)
      throws IOException {
    ByteBuffer frame = ByteBuffer.allocate(5 + payload.remaining());
    frame.putInt(1 + payload.remaining()).put(kind).put(payload).flip();
    while (frame.hasRemaining()) {
      channel.write(frame);
    }
  }

  public static void putString(ByteBuffer buffer, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    buffer.putShort((short) bytes.length).put(bytes);
  }

  /** A short-length-prefixed UTF-8 string; BufferUnderflowException when truncated. */
  public static String getString(ByteBuffer buffer) {
    int length = Short.toUnsignedInt(buffer.getShort());
    byte[] bytes = new byte[length];
    buffer.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
