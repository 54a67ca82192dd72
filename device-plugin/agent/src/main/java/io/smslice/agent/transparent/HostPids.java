package io.smslice.agent.transparent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds an attached process on the node from what it reported about itself. The agent runs in the
 * host's PID namespace, so {@code /proc} lists every process: a candidate's {@code NSpid} line ends
 * with the pid the process sees, and its cgroup contains the cgroup the process reported (which, in
 * a container with its own cgroup namespace, is only the tail, often just "/"). When more than one
 * process still fits, the command name decides; when that does not, the host pid stays unknown
 * rather than guessed.
 */
public final class HostPids {
  private static final Pattern CONTAINER_ID = Pattern.compile("[0-9a-f]{64}");
  private static final int COMM_BYTES = 15;

  private final Path proc;

  public HostPids(Path proc) {
    this.proc = proc;
  }

  public static HostPids system() {
    return new HostPids(Path.of("/proc"));
  }

  /** Where a process was found: its host pid (-1 if not found) and container id ("" if none). */
  public record Found(int hostPid, String container) {}

  public Found find(int pid, String cgroup, String command) {
    List<Integer> candidates = new ArrayList<>();
    try (Stream<Path> entries = Files.list(proc)) {
      entries
          .map(p -> p.getFileName().toString())
          .filter(name -> !name.isEmpty() && name.chars().allMatch(Character::isDigit))
          .forEach(
              name -> {
                int hostPid = Integer.parseInt(name);
                if (innermostPid(hostPid) == pid && cgroupFits(hostPid, cgroup)) {
                  candidates.add(hostPid);
                }
              });
    } catch (IOException | RuntimeException e) {
      return new Found(-1, containerOf(cgroup));
    }
    if (candidates.size() > 1) {
      String comm = truncate(command);
      candidates.removeIf(hostPid -> !comm.equals(read(hostPid, "comm").strip()));
    }
    if (candidates.size() != 1) {
      return new Found(-1, containerOf(cgroup));
    }
    int hostPid = candidates.getFirst();
    String container = containerOf(read(hostPid, "cgroup"));
    return new Found(hostPid, container.isEmpty() ? containerOf(cgroup) : container);
  }

  /** The last field of the NSpid line: the pid in the process's own namespace, or -1. */
  private int innermostPid(int hostPid) {
    for (String line : read(hostPid, "status").split("\n")) {
      if (line.startsWith("NSpid:")) {
        String[] fields = line.substring("NSpid:".length()).trim().split("\\s+");
        try {
          return Integer.parseInt(fields[fields.length - 1]);
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
  }

  /**
   * Whether a line of the process's cgroup file (as the agent sees it) has the reported line's
   * hierarchy and ends with its path. A reported path of "/" fits any: it says nothing.
   */
  private boolean cgroupFits(int hostPid, String reported) {
    String[] mine = splitLine(reported.strip());
    if (mine == null || mine[1].equals("/") || mine[1].isEmpty()) {
      return true;
    }
    for (String line : read(hostPid, "cgroup").split("\n")) {
      String[] theirs = splitLine(line.strip());
      if (theirs != null && theirs[0].equals(mine[0]) && pathEndsWith(theirs[1], mine[1])) {
        return true;
      }
    }
    return false;
  }

  private static boolean pathEndsWith(String path, String tail) {
    return path.equals(tail) || path.endsWith(tail.startsWith("/") ? tail : "/" + tail);
  }

  /** {@code hierarchy-id:controllers:path} as [hierarchy-id:controllers, path], or null. */
  private static String[] splitLine(String line) {
    String[] fields = line.split(":", 3);
    return fields.length < 3 ? null : new String[] {fields[0] + ":" + fields[1], fields[2]};
  }

  /** The last 64-hex-digit name in a cgroup path: the container id under every common runtime. */
  static String containerOf(String cgroup) {
    Matcher matcher = CONTAINER_ID.matcher(cgroup);
    String found = "";
    while (matcher.find()) {
      found = matcher.group();
    }
    return found;
  }

  private static String truncate(String command) {
    byte[] bytes = command.getBytes(StandardCharsets.UTF_8);
    return bytes.length <= COMM_BYTES
        ? command
        : new String(bytes, 0, COMM_BYTES, StandardCharsets.UTF_8);
  }

  private String read(int hostPid, String file) {
    try {
      return Files.readString(proc.resolve(Integer.toString(hostPid)).resolve(file));
    } catch (IOException | RuntimeException e) {
      return ""; // the process ended, or its file is not readable: it is no candidate
    }
  }
}
