package io.smslice.examples;

import io.smslice.examples.demo.Demo;
import io.smslice.examples.workload.LatencyStats;
import io.smslice.examples.workload.Workload;
import io.smslice.examples.workload.WorkloadContext;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The examples image's entry point: {@code demo [--seconds=N]} runs the embedded demo; any other
 * first argument names a workload, run as a pod's container runs it (environment from the device
 * plugin, a summary line every five seconds, stop on SIGTERM).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println(usage());
      System.exit(2);
    }
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    if (args[0].equals("demo")) {
      int status = Demo.run(rest);
      System.out.flush();
      if (Demo.interrupted()) {
        Runtime.getRuntime().halt(status);
      }
      System.exit(status);
    }
    Supplier<Workload> workload = Workload.ALL.get(args[0]);
    if (workload == null) {
      System.err.println("unknown workload '" + args[0] + "'. " + usage());
      System.exit(2);
    }
    AtomicBoolean stopping = new AtomicBoolean();
    Thread main = Thread.currentThread();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stopping.set(true);
                  try {
                    main.join(10_000);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }));
    LatencyStats stats = new LatencyStats();
    String[] state = {"starting"};
    var reporter =
        Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().factory());
    reporter.scheduleAtFixedRate(() -> report(args[0], stats, state[0]), 5, 5, TimeUnit.SECONDS);
    try {
      workload
          .get()
          .run(new WorkloadContext(rest, System.getenv(), stats, stopping::get, s -> state[0] = s));
    } catch (IllegalArgumentException | IllegalStateException e) {
      // Bad arguments or a pod set up without a claim: say what to fix, without a stack trace.
      // halt: System.exit would wait for the shutdown hook, which waits for this thread.
      System.err.println(args[0] + ": " + e.getMessage());
      Runtime.getRuntime().halt(1);
    }
    report(args[0], stats, state[0]);
    reporter.shutdownNow();
  }

  private static void report(String name, LatencyStats stats, String state) {
    LatencyStats.Snapshot s = stats.snapshot();
    System.out.printf(
        Locale.ROOT,
        "%s: launches=%d p50=%.1fus p99=%.1fus deadline=%s misses=%d sms-seen=%d %s%n",
        name,
        s.launches(),
        s.p50() / 1e3,
        s.p99() / 1e3,
        s.deadline() == 0 ? "none" : String.format(Locale.ROOT, "%.0fus", s.deadline() / 1e3),
        s.deadlineMisses(),
        s.smsSeen(),
        state);
  }

  private static String usage() {
    return "usage: smslice-examples demo [--seconds=N] | "
        + String.join(" | ", new TreeSet<>(Workload.ALL.keySet()))
        + " [--name=value ...]";
  }
}
