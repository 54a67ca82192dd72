package io.smslice.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FramesTest {
  /** Serves its bytes a chunk at a time, then end of stream; remembers the largest buffer. */
  static final class Trickle implements ReadableByteChannel {
    final ByteBuffer bytes;
    final int chunk;
    int largestBuffer;

    Trickle(byte[] bytes, int chunk) {
      this.bytes = ByteBuffer.wrap(bytes);
      this.chunk = chunk;
    }

    @Override
    public int read(ByteBuffer dst) {
      largestBuffer = Math.max(largestBuffer, dst.capacity());
      if (!bytes.hasRemaining()) {
        return -1;
      }
      int n = Math.min(chunk, Math.min(dst.remaining(), bytes.remaining()));
      dst.put(bytes.slice(bytes.position(), n));
      bytes.position(bytes.position() + n);
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }

  private static byte[] frame(int declared, int sent) {
    ByteBuffer out = ByteBuffer.allocate(4 + sent).putInt(declared);
    for (int i = 0; i < sent; i++) {
      out.put((byte) i);
    }
    return out.array();
  }

  @Test
  void aDeclaredLengthIsNotAllocatedBeforeItsBytesArrive() {
    Trickle peer = new Trickle(frame(64 << 20, 1000), 1000);

    assertThatThrownBy(() -> Frames.read(peer, 64 << 20)).isInstanceOf(EOFException.class);
    assertThat(peer.largestBuffer).isLessThanOrEqualTo(64 << 10);
  }

  @Test
  void aFrameArrivingInPiecesIsReadWhole() throws Exception {
    byte[] bytes = frame(300_000, 300_000);
    Trickle peer = new Trickle(bytes, 777);

    ByteBuffer body = Frames.read(peer, 1 << 20);

    assertThat(body.remaining()).isEqualTo(300_000);
    byte[] read = new byte[300_000];
    body.get(read);
    assertThat(read).isEqualTo(Arrays.copyOfRange(bytes, 4, bytes.length));
    assertThat(peer.largestBuffer).isLessThan(2 * 300_000);
  }

  @Test
  void anEmptyFrameIsMalformedNotTooLarge() {
    assertThatThrownBy(() -> Frames.read(new Trickle(frame(0, 0), 4), 1 << 20))
        .isInstanceOf(Frames.EmptyFrameException.class)
        .hasMessageContaining("empty frame");
    assertThatThrownBy(() -> Frames.read(new Trickle(frame(-1, 0), 4), 1 << 20))
        .isInstanceOf(Frames.TooLargeException.class)
        .hasMessageContaining("frame of 4294967295 bytes");
  }
}
