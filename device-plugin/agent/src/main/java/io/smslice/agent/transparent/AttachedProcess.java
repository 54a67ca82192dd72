package io.smslice.agent.transparent;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * An unmodified program's process attached to a claim (its interposer's open ATTACH connection).
 *
 * @param pid the pid the process reported (in its own PID namespace)
 * @param hostPid its pid on the node, or -1 when it could not be found unambiguously
 * @param container the container id from its cgroup, or "" when the cgroup names none
 * @param command its command name as it reported it
 */
public record AttachedProcess(
    int pid, int hostPid, String container, String command, Instant attachedAt) {

  /** One word without spaces, for a worker's answer line. */
  public String toWord() {
    return pid
        + ":"
        + hostPid
        + ":"
        + container
        + ":"
        + attachedAt.toEpochMilli()
        + ":"
        + URLEncoder.encode(command, StandardCharsets.UTF_8);
  }

  public static AttachedProcess fromWord(String word) {
    String[] fields = word.split(":", 5);
    if (fields.length != 5) {
      throw new IllegalArgumentException("not an attached process: " + word);
    }
    return new AttachedProcess(
        Integer.parseInt(fields[0]),
        Integer.parseInt(fields[1]),
        fields[2],
        URLDecoder.decode(fields[4], StandardCharsets.UTF_8),
        Instant.ofEpochMilli(Long.parseLong(fields[3])));
  }
}
