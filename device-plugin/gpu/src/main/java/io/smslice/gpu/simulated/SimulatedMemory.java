package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.TreeMap;

/** One simulated GPU's device memory: real host bytes behind fake, bounds-checked addresses. */
final class SimulatedMemory {
  private static final long BASE = 0x7000_0000_0000L;
  private static final long ALIGNMENT = 256;

  private final long capacity;
  private final TreeMap<Long, MemorySegment> allocations = new TreeMap<>();
  private long next = BASE;
  private long used;

  SimulatedMemory(long capacity) {
    this.capacity = capacity;
  }

  synchronized long allocate(long bytes) throws GpuException {
    if (bytes <= 0) {
      throw new GpuException(GpuError.INVALID_VALUE, "allocation size must be positive");
    }
    if (used + bytes > capacity) {
      throw new GpuException(
          GpuError.OUT_OF_MEMORY, "simulated GPU out of memory: " + bytes + " bytes requested");
    }
    long address = next;
    allocations.put(address, Arena.ofAuto().allocate(bytes, ALIGNMENT));
    next += (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT + ALIGNMENT;
    used += bytes;
    return address;
  }

  synchronized void free(long address) throws GpuException {
    MemorySegment segment = allocations.remove(address);
    if (segment == null) {
      throw new GpuException(
          GpuError.INVALID_VALUE, "no allocation at 0x" + Long.toHexString(address));
    }
    used -= segment.byteSize();
  }

  synchronized void clear() {
    allocations.clear();
    used = 0;
  }

  /**
   * The bytes at [address, address + bytes) of one allocation; an ILLEGAL_ADDRESS error (as a
   * kernel or copy touching unowned memory gets from the driver) otherwise.
   */
  synchronized MemorySegment slice(long address, long bytes) throws GpuException {
    Map.Entry<Long, MemorySegment> entry = allocations.floorEntry(address);
    if (entry != null && bytes >= 0) {
      long offset = address - entry.getKey();
      if (offset + bytes <= entry.getValue().byteSize()) {
        return entry.getValue().asSlice(offset, bytes);
      }
    }
    throw new GpuException(
        GpuError.ILLEGAL_ADDRESS,
        "an illegal memory access was encountered at 0x" + Long.toHexString(address));
  }
}
