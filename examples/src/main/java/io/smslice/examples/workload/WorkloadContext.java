package io.smslice.examples.workload;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What a workload gets from where it runs: its arguments, its environment (in a pod, the
 * container's; in the demo, what the device plugin's Allocate returned), where to record its
 * launches, when to stop, and a line to say what it is doing.
 */
public record WorkloadContext(
    List<String> args,
    Map<String, String> env,
    LatencyStats stats,
    BooleanSupplier stopping,
    Consumer<String> state) {

  /** The value of {@code --name=value} among the arguments, else the environment variable. */
  public Optional<String> option(String name, String envVar) {
    String prefix = "--" + name + "=";
    return args.stream()
        .filter(a -> a.startsWith(prefix))
        .map(a -> a.substring(prefix.length()))
        .findFirst()
        .or(() -> Optional.ofNullable(env.get(envVar)));
  }

  public long longOption(String name, String envVar, long fallback) {
    return option(name, envVar).map(Long::parseLong).orElse(fallback);
  }

  public String required(String envVar) {
    String value = env.get(envVar);
    if (value == null || value.isEmpty()) {
      throw new IllegalStateException(
          envVar
              + " is not set: run this workload in a pod that names a SliceClaim with the"
              + " annotation smslice.io/claim, so that the smslice device plugin injects it");
    }
    return value;
  }
}
