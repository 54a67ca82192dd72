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

  /** Reads one frame body, or null at a clean end of stream. */
  public static ByteBuffer read(ReadableByteChannel channel, int maxBytes) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(4);
    if (!fill(channel, header, true)) {
      return null;
    }
    int length = header.flip().getInt();
    if (length < 1 || length > maxBytes) {
      throw new TooLargeException(
          "frame of " + Integer.toUnsignedString(length) + " bytes; the limit is " + maxBytes);
    }
    ByteBuffer body = ByteBuffer.allocate(length);
    fill(channel, body, false);
    return body.flip();
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
