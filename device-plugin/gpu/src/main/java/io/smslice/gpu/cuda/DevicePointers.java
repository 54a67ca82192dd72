package io.smslice.gpu.cuda;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import jcuda.NativePointerObject;
import jcuda.driver.CUdeviceptr;

/**
 * Device addresses as plain longs (what the agent keeps) and as JCuda's CUdeviceptr (what JCuda's
 * calls take). JCuda keeps the address in a private field; it is in the unnamed module, so it can
 * be reached with a private lookup.
 */
final class DevicePointers {
  private static final VarHandle NATIVE_POINTER;

  static {
    try {
      NATIVE_POINTER =
          MethodHandles.privateLookupIn(NativePointerObject.class, MethodHandles.lookup())
              .findVarHandle(NativePointerObject.class, "nativePointer", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private DevicePointers() {}

  static CUdeviceptr of(long address) {
    CUdeviceptr pointer = new CUdeviceptr();
    NATIVE_POINTER.set((NativePointerObject) pointer, address);
    return pointer;
  }

  static long address(CUdeviceptr pointer) {
    return (long) NATIVE_POINTER.get((NativePointerObject) pointer);
  }
}
