package io.smslice.node.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Loads the node configuration: the named file from the config directory, then environment
 * variables, then command-line flags, each overriding the one before.
 *
 * <p>The name is picked by flag {@code --config}, else {@code SMSLICE_CONFIG}, else the node label
 * {@code smslice.io/config}, else {@code default}. A missing {@code default.yaml} means built-in
 * defaults; a missing file that was asked for by name is an error.
 */
public final class ConfigLoader {
  public static final Path DEFAULT_DIRECTORY = Path.of("/etc/smslice/config");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Map<String, String> flags;
  private final Map<String, String> env;

  /**
   * @param args command-line flags, {@code --name=value}
   * @param env environment variables
   */
  public ConfigLoader(List<String> args, Map<String, String> env) {
    this.flags = parseFlags(args);
    this.env = Map.copyOf(env);
  }

  /** The config name the flags or environment ask for, if any (they win over the node label). */
  public Optional<String> requestedName() {
    return Optional.ofNullable(flags.get("config"))
        .or(() -> Optional.ofNullable(env.get("SMSLICE_CONFIG")));
  }

  /** A value given as flag or environment variable (for example the node name). */
  public Optional<String> setting(String flag, String envVar) {
    return Optional.ofNullable(flags.get(flag)).or(() -> Optional.ofNullable(env.get(envVar)));
  }

  /**
   * @param nodeLabel value of the node's smslice.io/config label, if it has one
   */
  public NodeConfig load(Optional<String> nodeLabel) {
    Path dir = setting("config-dir", "SMSLICE_CONFIG_DIR").map(Path::of).orElse(DEFAULT_DIRECTORY);
    Optional<String> asked = requestedName().or(() -> nodeLabel);
    String name = asked.orElse("default");
    if (!name.matches("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")) {
      throw new ConfigException(
          "config name '"
              + name
              + "' (from "
              + (requestedName().isPresent()
                  ? "--config/SMSLICE_CONFIG"
                  : "node label smslice.io/config")
              + ") is not a valid ConfigMap key stem: use letters, digits, '-', '_' or '.'.");
    }
    Path file = dir.resolve(name + ".yaml");
    Map<String, Object> tree;
    String source;
    if (Files.exists(file)) {
      tree = read(file);
      source = file.toString();
    } else if (asked.isPresent()) {
      throw new ConfigException(
          "config '"
              + name
              + "' was asked for but "
              + file
              + " does not exist: add the key "
              + name
              + ".yaml to the smslice node ConfigMap, or fix the node label smslice.io/config.");
    } else {
      tree = new LinkedHashMap<>(Map.of("version", ConfigParser.VERSION));
      source = "built-in defaults (no " + file + ")";
    }
    for (Setting o : Setting.values()) {
      Optional<String> value = Optional.ofNullable(env.get(o.envVar));
      if (flags.containsKey(o.flag)) {
        value = Optional.of(flags.get(o.flag));
      }
      value.ifPresent(v -> o.apply(tree, v));
    }
    return new ConfigParser(source).parse(tree);
  }

  private static Map<String, Object> read(Path file) {
    try {
      Object parsed = YAML.readValue(file.toFile(), Object.class);
      if (parsed == null) {
        throw new ConfigException(file + " is empty: write at least `version: v1`.");
      }
      if (!(parsed instanceof Map<?, ?>)) {
        throw new ConfigException(file + " is not a YAML mapping: start it with `version: v1`.");
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> tree = new LinkedHashMap<>((Map<String, Object>) parsed);
      return tree;
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          file + " is not valid YAML (" + e.getOriginalMessage() + " at " + e.getLocation() + ").");
    } catch (IOException e) {
      throw new ConfigException("cannot read " + file + ": " + e.getMessage());
    }
  }

  private static Map<String, String> parseFlags(List<String> args) {
    Map<String, String> result = new LinkedHashMap<>();
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new ConfigException(
            "argument '"
                + arg
                + "' is not of the form --name=value (for example --backend=simulated).");
      }
      String name = arg.substring(2, arg.indexOf('='));
      if (!Setting.FLAGS.contains(name)) {
        throw new ConfigException(
            "unknown flag --"
                + name
                + ": known flags are --"
                + String.join(", --", Setting.FLAGS)
                + ".");
      }
      result.put(name, arg.substring(arg.indexOf('=') + 1));
    }
    return result;
  }

  /** Settings that a flag or an environment variable may set over the file. */
  private enum Setting {
    BACKEND("backend", "SMSLICE_BACKEND", "backend"),
    RUN_MODE("run-mode", "SMSLICE_RUN_MODE", "runMode"),
    ALLOCATION("allocation", "SMSLICE_ALLOCATION", "allocation"),
    DEFAULT_MODE("default-mode", "SMSLICE_DEFAULT_MODE", "gpus", "defaultMode"),
    HEARTBEAT("heartbeat-seconds", "SMSLICE_HEARTBEAT_SECONDS", "heartbeatSeconds"),
    METRICS_PORT("metrics-port", "SMSLICE_METRICS_PORT", "metricsPort"),
    DEVICE_PLUGINS("device-plugin-dir", "SMSLICE_DEVICE_PLUGIN_DIR", "paths", "devicePlugins"),
    RUN_DIR("run-dir", "SMSLICE_RUN_DIR", "paths", "run"),
    STATE_DIR("state-dir", "SMSLICE_STATE_DIR", "paths", "state"),
    DEV_DIR("dev-dir", "SMSLICE_DEV_DIR", "paths", "dev"),
    PROC_DIR("proc-dir", "SMSLICE_PROC_DIR", "paths", "proc"),
    KUBELET_PLUGINS_DIR(
        "kubelet-plugins-dir", "SMSLICE_KUBELET_PLUGINS_DIR", "paths", "kubeletPlugins"),
    PLUGINS_REGISTRY_DIR(
        "plugins-registry-dir", "SMSLICE_PLUGINS_REGISTRY_DIR", "paths", "pluginsRegistry"),
    CDI_DIR("cdi-dir", "SMSLICE_CDI_DIR", "paths", "cdi");

    static final List<String> FLAGS =
        java.util.stream.Stream.concat(
                java.util.Arrays.stream(values()).map(o -> o.flag),
                java.util.stream.Stream.of("config", "config-dir", "node-name"))
            .toList();

    final String flag;
    final String envVar;
    final String[] path;

    Setting(String flag, String envVar, String... path) {
      this.flag = flag;
      this.envVar = envVar;
      this.path = path;
    }

    @SuppressWarnings("unchecked")
    void apply(Map<String, Object> tree, String value) {
      Map<String, Object> node = tree;
      for (int i = 0; i < path.length - 1; i++) {
        Object child = node.get(path[i]);
        Map<String, Object> copy =
            child instanceof Map<?, ?> m
                ? new LinkedHashMap<>((Map<String, Object>) m)
                : new LinkedHashMap<>();
        node.put(path[i], copy);
        node = copy;
      }
      node.put(path[path.length - 1], value);
    }
  }
}
