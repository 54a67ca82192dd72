package io.smslice.agent.verify;

import io.smslice.agent.guard.GpuGuard;
import io.smslice.agent.guard.HoldOn;
import io.smslice.protocol.GuardLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * The agent's side of a GPU's guard file, by hand, for the guard's GPU measurement
 * (device-plugin/interposer/verify/run-guard-on-gpu.sh), which turns the guard on and off between
 * phases of the same processes as the node would when claims come and go.
 *
 * <p>Usage: {@code create <file> <max hold ms> <share 0..1> <window ms> <depth> [<in-flight ms>
 * [thread|stream [<ahead ms>]]]}, {@code limits <file> <in-flight ms> [<ahead ms>]}, {@code enable
 * <file> 0|1}, {@code report <file>} (one line per taken slot).
 */
public final class GuardFileTool {
  private GuardFileTool() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: GuardFileTool create|limits|enable|report <file> ...");
      System.exit(2);
    }
    Path file = Path.of(args[1]);
    switch (args[0]) {
      case "create" -> {
        GpuGuard.Settings settings =
            new GpuGuard.Settings(
                Duration.ofNanos(millisToNanos(args[2])),
                Double.parseDouble(args[3]),
                Duration.ofNanos(millisToNanos(args[4])),
                Integer.parseInt(args[5]),
                Duration.ofNanos(args.length > 6 ? millisToNanos(args[6]) : 0),
                args.length > 7 ? HoldOn.valueOf(args[7].toUpperCase(Locale.ROOT)) : HoldOn.THREAD,
                Duration.ofNanos(args.length > 8 ? millisToNanos(args[8]) : 0));
        try (GpuGuard guard = GpuGuard.create(file, settings)) {
          System.out.println("guard file " + guard.path() + " " + settings);
        }
      }
      case "limits" -> {
        try (GpuGuard guard = GpuGuard.open(file)) {
          guard.setInFlight(Duration.ofNanos(millisToNanos(args[2])));
          if (args.length > 3) {
            guard.setAhead(Duration.ofNanos(millisToNanos(args[3])));
          }
        }
      }
      case "enable" -> {
        try (GpuGuard guard = GpuGuard.open(file)) {
          guard.enable("1".equals(args[2]));
        }
      }
      case "report" -> {
        try (GpuGuard guard = GpuGuard.open(file)) {
          System.out.println("enabled=" + guard.enabled());
          for (GpuGuard.Slot s : guard.slots()) {
            System.out.printf(
                "slot claim=%s role=%s busy=%s launched=%d completed=%d held_ms=%.1f holds=%d"
                    + " cap_cuts=%d launch_us=%.1f hold=%s stream_waits=%d period_ms=%.3f"
                    + " ahead=%d ahead_missed=%d%n",
                s.claim(),
                s.role() == 1 ? "LatencyCritical" : s.role() == 2 ? "BestEffort" : "?",
                s.busy(),
                s.launched(),
                s.completed(),
                s.heldNanos() / 1e6,
                s.holds(),
                s.capCuts(),
                s.launchNanos() / 1e3,
                s.holdMode() == GuardLayout.HOLD_STREAM
                    ? "stream"
                    : s.holdMode() == GuardLayout.HOLD_THREAD ? "thread" : "-",
                s.streamWaits(),
                s.periodNanos() / 1e6,
                s.ahead(),
                s.aheadMissed());
          }
        }
      }
      default -> {
        System.err.println("unknown command " + args[0]);
        System.exit(2);
      }
    }
  }

  private static long millisToNanos(String millis) {
    return (long) (Double.parseDouble(millis) * 1e6);
  }
}
