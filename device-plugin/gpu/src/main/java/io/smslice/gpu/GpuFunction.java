package io.smslice.gpu;

/** A kernel of a loaded module. */
public interface GpuFunction {
  String name();
}
