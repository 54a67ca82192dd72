package io.smslice.gpu;

/** One typed kernel argument, as the kernel's parameter list declares it. */
public sealed interface KernelArg {
  /** A device address (a pointer parameter). */
  record Pointer(long address) implements KernelArg {}

  record I32(int value) implements KernelArg {}

  record I64(long value) implements KernelArg {}

  record F32(float value) implements KernelArg {}

  record F64(double value) implements KernelArg {}
}
