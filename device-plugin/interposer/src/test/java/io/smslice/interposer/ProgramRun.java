package io.smslice.interposer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of the test programs (built by the module's Makefile) with the interposer preloaded and
 * the fake libcuda.so.1 first on the library path, as a transparent tenant's process would run.
 */
record ProgramRun(int exitCode, List<String> lines, String stderr) {
  static final Path LIBRARY = Path.of(System.getProperty("interposer.library"));
  static final Path PROGRAMS = Path.of(System.getProperty("interposer.testPrograms"));
  static final String CLAIM = "team-a/detector";
  static final String TOKEN = "c0ffee".repeat(10) + "beef";

  /**
   * Environment of a tenant of the claim whose agent listens on socket. One ATTACH attempt (no
   * waiting for an agent), unless a test sets SMSLICE_ATTACH_TIMEOUT itself.
   */
  static Map<String, String> tenantEnvironment(Path socket) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("SMSLICE_SOCKET", socket.toString());
    env.put("SMSLICE_CLAIM", CLAIM);
    env.put("SMSLICE_TOKEN", TOKEN);
    env.put("SMSLICE_ATTACH_TIMEOUT", "0");
    return env;
  }

  /** The same, for a process that gets CUDA errors (not an exit) when it cannot attach. */
  static Map<String, String> refusingTenantEnvironment(Path socket) {
    Map<String, String> env = tenantEnvironment(socket);
    env.put("SMSLICE_ATTACH_FAILURE", "refuse");
    return env;
  }

  static ProgramRun run(Map<String, String> env, String... command)
      throws IOException, InterruptedException {
    ProcessBuilder builder = builder(env, command);
    Path err = Files.createTempFile("interposer-stderr", ".txt");
    builder.redirectError(err.toFile());
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("test program did not finish: " + builder.command());
    }
    String stderr = Files.readString(err);
    Files.delete(err);
    return new ProgramRun(process.exitValue(), out.lines().toList(), stderr);
  }

  /** The program (a name among the test programs, or valgrind and its arguments) to start. */
  static ProcessBuilder builder(Map<String, String> env, String... command) {
    List<String> full = new ArrayList<>();
    if (command[0].equals("valgrind")) {
      full.add(command[0]);
      for (int i = 1; i < command.length - 2; i++) full.add(command[i]);
      full.add(PROGRAMS.resolve(command[command.length - 2]).toString());
      full.add(command[command.length - 1]);
    } else {
      full.add(PROGRAMS.resolve(command[0]).toString());
      for (int i = 1; i < command.length; i++) full.add(command[i]);
    }
    ProcessBuilder builder = new ProcessBuilder(full);
    builder.environment().keySet().removeIf(k -> k.startsWith("SMSLICE_"));
    builder.environment().put("LD_PRELOAD", LIBRARY.toString());
    builder.environment().put("LD_LIBRARY_PATH", PROGRAMS.toString());
    builder.environment().putAll(env);
    return builder;
  }

  /** The line of a step: "<step> <CUresult> <what the fake saw>". */
  String step(String name) {
    return lines.stream()
        .filter(l -> l.startsWith(name + " "))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no step " + name + " in " + lines));
  }
}
