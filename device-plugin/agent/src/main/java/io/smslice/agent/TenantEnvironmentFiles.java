package io.smslice.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A claim's variables for one container, as a file the node mounts into it at {@link
 * #CONTAINER_PATH}: a process whose environment was scrubbed (env -i, sudo) loses SMSLICE_TOKEN and
 * the MPS variables, and the interposer takes them from here instead. The file holds a token, so it
 * lives and dies with the claim's tokens: {@code runDir/tenant-env/<claim directory name>/}.
 */
public final class TenantEnvironmentFiles {
  /** Where the interposer looks (libsmslice-interposer's tenant_env.h says the same). */
  public static final String CONTAINER_PATH = "/run/smslice/tenant.env";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,252}");
  private static final Pattern KEY = Pattern.compile("[A-Z_][A-Z0-9_]*");

  private final Path directory;

  public TenantEnvironmentFiles(Path runDir) {
    this.directory = runDir.resolve("tenant-env");
  }

  /** Writes (or replaces) the container's file; returns its host path. */
  public Path write(
      String namespace, String claim, String podUid, String container, Map<String, String> env) {
    if (!NAME.matcher(podUid).matches() || !NAME.matcher(container).matches()) {
      throw new IllegalArgumentException(
          "pod UID " + podUid + " or container " + container + " is not a plain name");
    }
    StringBuilder text = new StringBuilder();
    env.forEach(
        (key, value) -> {
          if (!KEY.matcher(key).matches() || value.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("cannot write variable " + key + " on one line");
          }
          text.append(key).append('=').append(value).append('\n');
        });
    Path dir = directory.resolve(AgentOptions.claimDirectoryName(namespace, claim));
    Path file = dir.resolve(podUid + "_" + container + ".env");
    try {
      Files.createDirectories(dir);
      Path temp = Files.createTempFile(dir, ".env-", ".tmp");
      Files.writeString(temp, text, StandardCharsets.UTF_8);
      // Read by the tenant's own user, whoever that is in the container; the host directory
      // above it stays the node's.
      Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the tenant environment of " + namespace + "/" + claim, e);
    }
    return file;
  }

  /** Removes the claim's files. */
  public void forget(String namespace, String claim) {
    Path dir = directory.resolve(AgentOptions.claimDirectoryName(namespace, claim));
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
