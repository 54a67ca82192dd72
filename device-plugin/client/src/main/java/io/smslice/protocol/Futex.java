package io.smslice.protocol;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Linux futexes on a 32-bit word of a shared mapping, so that one side of a session can sleep until
 * the other changes a counter instead of polling it. The mapping is a shared file, so the wait and
 * the wake meet across processes. Where futexes are not available (not Linux on x86-64 or aarch64,
 * or the call fails) {@link #available()} is false and callers poll.
 */
public final class Futex {
  private static final long FUTEX_WAIT = 0;
  private static final long FUTEX_WAKE = 1;
  private static final MethodHandle SYSCALL = syscall();
  private static final long SYS_FUTEX = futexNumber();

  private Futex() {}

  public static boolean available() {
    return SYSCALL != null && SYS_FUTEX > 0;
  }

  /**
   * Sleeps while the int at {@code offset} of {@code memory} still holds {@code expected}, at most
   * {@code timeoutNanos}. It may also return early (a wake, a signal); callers re-check what they
   * wait for.
   */
  public static void await(MemorySegment memory, long offset, int expected, long timeoutNanos) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment timeout = arena.allocate(16, 8);
      timeout.set(ValueLayout.JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
      timeout.set(ValueLayout.JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
      call(address(memory, offset), FUTEX_WAIT, expected, timeout.address());
    }
  }

  /** Wakes every thread sleeping in {@link #await} on that word. */
  public static void wakeAll(MemorySegment memory, long offset) {
    call(address(memory, offset), FUTEX_WAKE, Integer.MAX_VALUE, 0);
  }

  private static long address(MemorySegment memory, long offset) {
    if ((memory.address() + offset) % 4 != 0 || offset < 0 || offset + 4 > memory.byteSize()) {
      throw new IllegalArgumentException("a futex word must be an aligned int inside the mapping");
    }
    return memory.address() + offset;
  }

  /** The result (or -1 with errno: EAGAIN, ETIMEDOUT, EINTR all mean "check again") is not used. */
  private static void call(long address, long op, long value, long timeout) {
    if (!available()) {
      throw new IllegalStateException("futexes are not available on this platform");
    }
    try {
      long ignored = (long) SYSCALL.invokeExact(SYS_FUTEX, address, op, value, timeout, 0L, 0L);
    } catch (Throwable t) {
      throw new IllegalStateException("futex call failed", t);
    }
  }

  private static long futexNumber() {
    if (!System.getProperty("os.name", "").startsWith("Linux")) {
      return -1;
    }
    return switch (System.getProperty("os.arch", "")) {
      case "amd64", "x86_64" -> 202;
      case "aarch64" -> 98;
      default -> -1;
    };
  }

  /** libc's {@code long syscall(long number, ...)}, all arguments passed as longs. */
  private static MethodHandle syscall() {
    try {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("syscall")
          .map(
              symbol ->
                  linker.downcallHandle(
                      symbol,
                      FunctionDescriptor.of(
                          ValueLayout.JAVA_LONG,
                          ValueLayout.JAVA_LONG,
                          ValueLayout.JAVA_LONG,
                          ValueLayout.JAVA_LONG,
                          ValueLayout.JAVA_LONG,
                          ValueLayout.JAVA_LONG,
                          ValueLayout.JAVA_LONG,
                          ValueLayout.JAVA_LONG),
                      Linker.Option.firstVariadicArg(1)))
          .orElse(null);
    } catch (RuntimeException e) {
      // Native access refused (--illegal-native-access=deny) or no libc: callers poll instead.
      return null;
    }
  }
}
