package io.smslice.node.config;

import io.smslice.agent.guard.GpuGuard;
import io.smslice.agent.guard.HoldOn;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.protocol.GuardLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns the merged settings tree (file, then environment, then flags) into a {@link NodeConfig}.
 * Every rejection names the key, the bad value and what to write instead.
 */
final class ConfigParser {
  static final String VERSION = "v1";
  private static final Set<String> TOP_KEYS =
      Set.of(
          "version",
          "backend",
          "runMode",
          "allocation",
          "simulatedGpus",
          "resourceNames",
          "gpus",
          "transparent",
          "paths",
          "heartbeatSeconds",
          "metricsPort",
          "mps");
  private static final Pattern GPU_UUID = Pattern.compile("GPU-[0-9a-fA-F-]{8,}");

  private final String source;

  ConfigParser(String source) {
    this.source = source;
  }

  NodeConfig parse(Map<String, Object> tree) {
    unknownKeys("", tree, TOP_KEYS);
    Object version = tree.get("version");
    if (version == null) {
      throw fail("version", "is missing", "add `version: v1` as the first line");
    }
    if (!VERSION.equals(String.valueOf(version))) {
      throw fail("version", "is '" + version + "'", "this node side reads `version: v1` only");
    }
    Backend backend =
        choice(
            "backend", tree.getOrDefault("backend", "auto"), Backend.values(), Backend::configName);
    RunMode runMode =
        choice(
            "runMode",
            tree.getOrDefault("runMode", "worker"),
            RunMode.values(),
            RunMode::configName);
    Allocation allocation =
        choice(
            "allocation",
            tree.getOrDefault("allocation", "devicePlugin"),
            Allocation.values(),
            Allocation::configName);
    ResourceNames names = resourceNames(map("resourceNames", tree.get("resourceNames")));
    Map<String, Object> gpus = map("gpus", tree.get("gpus"));
    unknownKeys("gpus.", gpus, Set.of("defaultMode", "overrides"));
    GpuMode defaultMode = mode("gpus.defaultMode", gpus.getOrDefault("defaultMode", "green"));
    List<ModeOverride> overrides = overrides(gpus.get("overrides"));
    NodePaths paths = paths(map("paths", tree.get("paths")));
    int heartbeat = integer("heartbeatSeconds", tree.getOrDefault("heartbeatSeconds", 30), 1, 3600);
    int metricsPort = integer("metricsPort", tree.getOrDefault("metricsPort", 9400), 0, 65535);
    int simulatedGpus = integer("simulatedGpus", tree.getOrDefault("simulatedGpus", 1), 1, 16);
    Map<String, Object> mps = map("mps", tree.get("mps"));
    unknownKeys("mps.", mps, Set.of("controlCommand"));
    List<String> mpsCommand = mpsCommand(mps.get("controlCommand"));
    Transparent transparent = transparent(map("transparent", tree.get("transparent")), runMode);
    return new NodeConfig(
        source,
        backend,
        runMode,
        allocation,
        names,
        defaultMode,
        overrides,
        paths,
        Duration.ofSeconds(heartbeat),
        metricsPort,
        mpsCommand,
        transparent,
        simulatedGpus);
  }

  /**
   * On by default with worker run mode. In-agent claims run in the agent's own context, which is no
   * MPS client: beside transparent tenants they would be time-sliced, not partitioned, so the two
   * cannot be combined.
   */
  private Transparent transparent(Map<String, Object> tree, RunMode runMode) {
    unknownKeys(
        "transparent.", tree, Set.of("enabled", "library", "installDirectory", "mpsShm", "guard"));
    boolean enabled =
        bool("transparent.enabled", tree.getOrDefault("enabled", runMode == RunMode.WORKER));
    if (enabled && runMode == RunMode.IN_AGENT) {
      throw fail(
          "transparent.enabled",
          "is true with runMode in-agent (in-agent claims are no MPS clients, so they would be"
              + " time-sliced with unmodified programs instead of partitioned)",
          "set runMode: worker, or transparent.enabled: false");
    }
    return new Transparent(
        enabled,
        path("transparent.library", tree.get("library"), Transparent.DEFAULT_LIBRARY),
        path(
            "transparent.installDirectory",
            tree.get("installDirectory"),
            Transparent.DEFAULT_INSTALL_DIRECTORY),
        path("transparent.mpsShm", tree.get("mpsShm"), Transparent.DEFAULT_MPS_SHM),
        guard(map("transparent.guard", tree.get("guard"))),
        gating(map("transparent.guard", tree.get("guard"))));
  }

  /** The interference guard's limits; each one left out keeps its default. */
  private GpuGuard.Settings guard(Map<String, Object> tree) {
    GpuGuard.Settings d = GpuGuard.Settings.DEFAULTS;
    unknownKeys(
        "transparent.guard.",
        tree,
        Set.of(
            "maxHoldMillis",
            "sharePercent",
            "windowMillis",
            "depth",
            "inFlightMicros",
            "holdOn",
            "aheadMicros",
            "onlyUnderPressure",
            "memoryBusyPercent",
            "pressureHoldSeconds"));
    return new GpuGuard.Settings(
        Duration.ofMillis(guardInt(tree, "maxHoldMillis", d.maxHold().toMillis(), 1, 10_000)),
        guardInt(tree, "sharePercent", Math.round(d.share() * 100), 0, 100) / 100.0,
        Duration.ofMillis(guardInt(tree, "windowMillis", d.window().toMillis(), 1, 60_000)),
        (int) guardInt(tree, "depth", d.depth(), 1, GuardLayout.MAX_DEPTH),
        Duration.ofNanos(
            1000 * guardInt(tree, "inFlightMicros", d.inFlight().toNanos() / 1000, 0, 1_000_000)),
        holdOn(tree.getOrDefault("holdOn", d.holdOn().name().toLowerCase(Locale.ROOT))),
        Duration.ofNanos(
            1000 * guardInt(tree, "aheadMicros", d.ahead().toNanos() / 1000, 0, 100_000)));
  }

  private HoldOn holdOn(Object value) {
    for (HoldOn h : HoldOn.values()) {
      if (h.name().toLowerCase(Locale.ROOT).equals(value)) {
        return h;
      }
    }
    throw fail("transparent.guard.holdOn", "is " + value, "use thread or stream");
  }

  /** Whether the guard waits for NVML to show pressure; its keys sit beside the limits. */
  private GuardGating gating(Map<String, Object> tree) {
    GuardGating d = GuardGating.ALWAYS;
    return new GuardGating(
        bool(
            "transparent.guard.onlyUnderPressure",
            tree.getOrDefault("onlyUnderPressure", d.onlyUnderPressure())),
        (int) guardInt(tree, "memoryBusyPercent", d.memoryBusyPercent(), 1, 100),
        Duration.ofSeconds(guardInt(tree, "pressureHoldSeconds", d.hold().toSeconds(), 1, 3600)));
  }

  private long guardInt(Map<String, Object> tree, String key, long fallback, int min, int max) {
    Object value = tree.get(key);
    return value == null ? fallback : integer("transparent.guard." + key, value, min, max);
  }

  private boolean bool(String key, Object value) {
    if (value instanceof Boolean b) {
      return b;
    }
    String text = String.valueOf(value);
    if (text.equals("true") || text.equals("false")) {
      return Boolean.parseBoolean(text);
    }
    throw fail(key, "is '" + text + "'", "write true or false");
  }

  private ResourceNames resourceNames(Map<String, Object> tree) {
    unknownKeys("resourceNames.", tree, Set.of("sm", "mig", "mps"));
    ResourceNames d = ResourceNames.DEFAULTS;
    String sm = resourceName("resourceNames.sm", tree.getOrDefault("sm", d.sm()));
    String mig = resourceName("resourceNames.mig", tree.getOrDefault("mig", d.mig()));
    String mps = resourceName("resourceNames.mps", tree.getOrDefault("mps", d.mps()));
    if (new HashSet<>(List.of(sm, mig, mps)).size() != 3) {
      throw fail(
          "resourceNames",
          "uses one name for two kinds of device (" + sm + ", " + mig + ", " + mps + ")",
          "give sm, mig and mps three different names");
    }
    return new ResourceNames(sm, mig, mps);
  }

  private String resourceName(String key, Object value) {
    String name = String.valueOf(value);
    ResourceNames.problem(name)
        .ifPresent(
            why -> {
              throw fail(
                  key,
                  "is '" + name + "': the kubelet would refuse it (" + why + ")",
                  "write an extended resource name such as smslice.io/sm");
            });
    return name;
  }

  private List<ModeOverride> overrides(Object value) {
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof List<?> list)) {
      throw fail("gpus.overrides", "is not a list", "write `overrides: [{match: 0, mode: mig}]`");
    }
    List<ModeOverride> result = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      String key = "gpus.overrides[" + i + "]";
      Map<String, Object> entry = map(key, list.get(i));
      unknownKeys(key + ".", entry, Set.of("match", "mode"));
      Object match = entry.get("match");
      if (match == null) {
        throw fail(key + ".match", "is missing", "give the GPU's index (0) or UUID (GPU-...)");
      }
      String m = String.valueOf(match);
      if (!m.matches("\\d+") && !GPU_UUID.matcher(m).matches()) {
        throw fail(key + ".match", "is '" + m + "'", "give the GPU's index (0) or UUID (GPU-...)");
      }
      if (!seen.add(m.toLowerCase())) {
        throw fail(key + ".match", "names GPU " + m + " twice", "keep one override per GPU");
      }
      if (!entry.containsKey("mode")) {
        throw fail(key + ".mode", "is missing", "set it to green, mig, mps or off");
      }
      result.add(new ModeOverride(m, mode(key + ".mode", entry.get("mode"))));
    }
    return result;
  }

  private NodePaths paths(Map<String, Object> tree) {
    unknownKeys(
        "paths.",
        tree,
        Set.of(
            "devicePlugins",
            "run",
            "state",
            "dev",
            "proc",
            "kubeletPlugins",
            "pluginsRegistry",
            "cdi"));
    NodePaths d = NodePaths.DEFAULTS;
    NodePaths paths =
        new NodePaths(
            path("paths.devicePlugins", tree.get("devicePlugins"), d.devicePlugins()),
            path("paths.run", tree.get("run"), d.run()),
            path("paths.state", tree.get("state"), d.state()),
            path("paths.dev", tree.get("dev"), d.dev()),
            path("paths.proc", tree.get("proc"), d.proc()),
            path("paths.kubeletPlugins", tree.get("kubeletPlugins"), d.kubeletPlugins()),
            path("paths.pluginsRegistry", tree.get("pluginsRegistry"), d.pluginsRegistry()),
            path("paths.cdi", tree.get("cdi"), d.cdi()));
    int longest = paths.longestClaimSocket().toString().getBytes(StandardCharsets.UTF_8).length;
    if (longest > NodePaths.UNIX_SOCKET_PATH_MAX) {
      int runBytes = paths.run().toString().getBytes(StandardCharsets.UTF_8).length;
      throw fail(
          "paths.run",
          "is '"
              + paths.run()
              + "': claim sockets under it take up to "
              + longest
              + " bytes, more than the "
              + NodePaths.UNIX_SOCKET_PATH_MAX
              + " a Unix socket path may have",
          "use a directory of at most "
              + (runBytes - (longest - NodePaths.UNIX_SOCKET_PATH_MAX))
              + " bytes, such as /run/smslice");
    }
    return paths;
  }

  private Path path(String key, Object value, Path fallback) {
    if (value == null) {
      return fallback;
    }
    Path p = Path.of(String.valueOf(value));
    if (!p.isAbsolute()) {
      throw fail(key, "is '" + value + "'", "write an absolute path");
    }
    return p;
  }

  private List<String> mpsCommand(Object value) {
    if (value == null) {
      return List.of("nvidia-cuda-mps-control");
    }
    List<String> command = new ArrayList<>();
    if (value instanceof List<?> list) {
      list.forEach(v -> command.add(String.valueOf(v)));
    } else {
      command.addAll(Arrays.asList(String.valueOf(value).trim().split("\\s+")));
    }
    if (command.isEmpty() || command.getFirst().isBlank()) {
      throw fail("mps.controlCommand", "is empty", "leave it out or name the MPS control program");
    }
    return command;
  }

  private GpuMode mode(String key, Object value) {
    if (Boolean.FALSE.equals(value)) {
      value = "off"; // YAML 1.1 reads an unquoted off as false
    }
    return choice(
        key,
        value,
        new GpuMode[] {GpuMode.Green, GpuMode.MIG, GpuMode.MPS, GpuMode.Off},
        m -> m.name().toLowerCase());
  }

  private <T> T choice(
      String key, Object value, T[] options, java.util.function.Function<T, String> name) {
    String text = String.valueOf(value);
    List<String> names = new ArrayList<>();
    for (T option : options) {
      if (name.apply(option).equals(text)) {
        return option;
      }
      names.add(name.apply(option));
    }
    throw fail(key, "is '" + text + "'", "set it to one of " + String.join(", ", names));
  }

  private int integer(String key, Object value, int min, int max) {
    int n;
    try {
      n = value instanceof Number num ? num.intValue() : Integer.parseInt(String.valueOf(value));
    } catch (NumberFormatException e) {
      throw fail(key, "is '" + value + "'", "write a whole number");
    }
    if (n < min || n > max) {
      throw fail(key, "is " + n, "write a number from " + min + " to " + max);
    }
    return n;
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> map(String key, Object value) {
    if (value == null) {
      return new LinkedHashMap<>();
    }
    if (!(value instanceof Map<?, ?> m)) {
      throw fail(key, "is '" + value + "', not a mapping", "write it as `key: value` lines");
    }
    return (Map<String, Object>) m;
  }

  private void unknownKeys(String prefix, Map<String, Object> tree, Set<String> known) {
    for (String k : tree.keySet()) {
      if (!known.contains(k)) {
        throw fail(
            prefix + k,
            "is not a known setting",
            "remove it or use one of " + String.join(", ", known.stream().sorted().toList()));
      }
    }
  }

  private ConfigException fail(String key, String problem, String fix) {
    return new ConfigException(source + ": " + key + " " + problem + ": " + fix + ".");
  }
}
