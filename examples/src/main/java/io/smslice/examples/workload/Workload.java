package io.smslice.examples.workload;

import java.util.Map;
import java.util.function.Supplier;

/** One example workload; it runs until its work is done or {@link WorkloadContext#stopping()}. */
public interface Workload {
  void run(WorkloadContext context) throws Exception;

  /** The workloads by the name a container's first argument gives. */
  Map<String, Supplier<Workload>> ALL =
      Map.of(
          "detector", Detector::new,
          "batch", Batch::new,
          "ensemble-model", EnsembleModel::new,
          "voter", Voter::new,
          "resize", Trainer::new);
}
