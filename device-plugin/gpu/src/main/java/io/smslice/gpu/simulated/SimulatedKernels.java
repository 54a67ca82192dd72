package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The kernels the simulated backend can run, on the CPU, with the same names and parameters as the
 * CUDA test kernels in the agent's verification (verify/kernels.cu). Anything else is refused.
 */
final class SimulatedKernels {
  private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;

  /**
   * Element-wise kernels work through heap arrays of this many elements: bulk copies and a plain
   * loop take about a fifth of the host CPU that element-by-element segment access took (a 2^18
   * vector_add: ~0.2 ms instead of ~1 ms on the build machine), CPU that the simulated GPU's
   * modelled time does not include and that the host's other threads need.
   */
  private static final int CHUNK = 4096;

  /** Parameter kinds: 'p' pointer (or a raw 64-bit value), 'i' 32-bit int, 'l' 64-bit int. */
  private static final Map<String, String> SIGNATURES =
      Map.of(
          "empty", "",
          "spin", "l",
          "fill_u32", "pii",
          "vector_add", "pppi",
          "copy_u32", "ppi",
          "record_smid", "p",
          "load_u32", "pp");

  private SimulatedKernels() {}

  static Set<String> names() {
    return SIGNATURES.keySet();
  }

  /**
   * Runs a kernel. {@code smIds} are the device-wide ids of the SMs of the green context, so that
   * record_smid shows which SMs a slice owns, as on a GPU.
   */
  static void run(
      String name,
      LaunchGeometry geometry,
      List<KernelArg> args,
      SimulatedMemory memory,
      int[] smIds)
      throws GpuException {
    checkArgs(name, args);
    long threads = geometry.blocks() * geometry.threadsPerBlock();
    switch (name) {
      case "empty", "spin" -> {}
      case "fill_u32" -> {
        int n = count(args.get(2), threads);
        MemorySegment out = memory.slice(address(args.get(0)), 4L * n);
        int[] chunk = new int[Math.min(n, CHUNK)];
        Arrays.fill(chunk, ((KernelArg.I32) args.get(1)).value());
        for (int at = 0; at < n; at += CHUNK) {
          MemorySegment.copy(chunk, 0, out, U32, 4L * at, Math.min(CHUNK, n - at));
        }
      }
      case "vector_add" -> {
        int n = count(args.get(3), threads);
        MemorySegment a = memory.slice(address(args.get(0)), 4L * n);
        MemorySegment b = memory.slice(address(args.get(1)), 4L * n);
        MemorySegment c = memory.slice(address(args.get(2)), 4L * n);
        float[] x = new float[Math.min(n, CHUNK)];
        float[] y = new float[x.length];
        for (int at = 0; at < n; at += CHUNK) {
          int len = Math.min(CHUNK, n - at);
          MemorySegment.copy(a, F32, 4L * at, x, 0, len);
          MemorySegment.copy(b, F32, 4L * at, y, 0, len);
          for (int i = 0; i < len; i++) {
            x[i] += y[i];
          }
          MemorySegment.copy(x, 0, c, F32, 4L * at, len);
        }
      }
      case "copy_u32" -> {
        int n = count(args.get(2), threads);
        MemorySegment source = memory.slice(address(args.get(0)), 4L * n);
        memory.slice(address(args.get(1)), 4L * n).copyFrom(source);
      }
      case "record_smid" -> {
        // Blocks spread round-robin over the context's SMs.
        MemorySegment out = memory.slice(address(args.get(0)), 4L * geometry.blocks());
        for (long block = 0; block < geometry.blocks(); block++) {
          out.setAtIndex(U32, block, smIds[(int) (block % smIds.length)]);
        }
      }
      case "load_u32" -> {
        int value = memory.slice(address(args.get(0)), 4).get(U32, 0);
        memory.slice(address(args.get(1)), 4).set(U32, 0, value);
      }
      default -> throw new IllegalStateException("kernel without implementation: " + name);
    }
  }

  /** Refuses an unknown kernel or arguments that do not match its parameters. */
  static void checkArgs(String name, List<KernelArg> args) throws GpuException {
    String signature = SIGNATURES.get(name);
    if (signature == null) {
      throw new GpuException(GpuError.INVALID_IMAGE, "simulated backend has no kernel " + name);
    }
    if (args.size() != signature.length()) {
      throw new GpuException(
          GpuError.INVALID_VALUE,
          name + " takes " + signature.length() + " arguments, got " + args.size());
    }
    for (int i = 0; i < args.size(); i++) {
      KernelArg arg = args.get(i);
      boolean fits =
          switch (signature.charAt(i)) {
            case 'p', 'l' -> arg instanceof KernelArg.Pointer || arg instanceof KernelArg.I64;
            case 'i' -> arg instanceof KernelArg.I32;
            default -> false;
          };
      if (!fits) {
        throw new GpuException(
            GpuError.INVALID_VALUE, name + " argument " + i + " has the wrong type: " + arg);
      }
    }
  }

  /** The GPU time a launch asks for, in the terms of {@link SimulatedClock}. */
  static SimulatedClock.Work work(String name, LaunchGeometry geometry, List<KernelArg> args) {
    long threads = geometry.blocks() * geometry.threadsPerBlock();
    return switch (name) {
      case "spin" ->
          new SimulatedClock.Work(
              geometry.blocks(), geometry.threadsPerBlock(), address(args.get(0)), 0);
      case "fill_u32" -> memory(4L * count(args.get(2), threads));
      case "copy_u32" -> memory(8L * count(args.get(2), threads));
      case "vector_add" -> memory(12L * count(args.get(3), threads));
      default -> SimulatedClock.Work.NONE;
    };
  }

  private static SimulatedClock.Work memory(long bytes) {
    return new SimulatedClock.Work(0, 1, 0, bytes);
  }

  private static long address(KernelArg arg) {
    return arg instanceof KernelArg.Pointer p ? p.address() : ((KernelArg.I64) arg).value();
  }

  private static int count(KernelArg arg, long threads) {
    return (int) Math.max(0, Math.min(((KernelArg.I32) arg).value(), threads));
  }
}
