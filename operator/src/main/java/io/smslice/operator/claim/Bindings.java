package io.smslice.operator.claim;

import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.operator.placement.Mode;
import io.smslice.operator.placement.Placement;
import java.util.ArrayList;
import java.util.List;

/** Converts between the engine's placement and the API's binding. */
public final class Bindings {
  private Bindings() {}

  public static Binding toBinding(Placement p) {
    Binding b = new Binding();
    b.setNode(p.node());
    b.setGpuUuid(p.gpuUuid());
    b.setMode(
        switch (p.mode()) {
          case GREEN -> GpuMode.Green;
          case MIG -> GpuMode.MIG;
          case MPS -> GpuMode.MPS;
          case OFF -> GpuMode.Off;
        });
    b.setSmGroups(new ArrayList<>(p.groups()));
    b.setSms(p.sms());
    b.setMigProfile(p.migProfile());
    b.setMigDeviceUuid(p.migUuid());
    return b;
  }

  /**
   * The placement a stored binding stands for. The MPS percentage and memory quota are not stored
   * in the binding; they are recomputed from the claim and the GPU.
   */
  public static Placement toPlacement(Binding b, int mpsPercent, long memoryBytes) {
    Mode mode =
        b.getMode() == null
            ? Mode.OFF
            : switch (b.getMode()) {
              case Green -> Mode.GREEN;
              case MIG -> Mode.MIG;
              case MPS -> Mode.MPS;
              case Off -> Mode.OFF;
            };
    List<Integer> groups = b.getSmGroups() == null ? List.of() : b.getSmGroups();
    return new Placement(
        b.getNode(),
        b.getGpuUuid(),
        mode,
        groups,
        b.getSms() == null ? 0 : b.getSms(),
        b.getMigProfile(),
        b.getMigDeviceUuid(),
        mode == Mode.MPS ? mpsPercent : 0,
        mode == Mode.MIG ? 0 : memoryBytes);
  }
}
