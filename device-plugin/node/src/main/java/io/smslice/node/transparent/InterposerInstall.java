package io.smslice.node.transparent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The interposer library on the host, and the ld.so.preload file that loads it in tenants'
 * containers. Both are replaced by rename, never rewritten in place: a running tenant keeps the
 * copy it mapped, and a container never sees a half-written file.
 */
public final class InterposerInstall {
  private static final Logger LOG = Logger.getLogger(InterposerInstall.class.getName());
  public static final String LIBRARY_NAME = "libsmslice-interposer.so";
  public static final String PRELOAD_NAME = "ld.so.preload";

  /** Where the library appears inside a tenant's container (named by ld.so.preload). */
  public static final String CONTAINER_LIBRARY = "/run/smslice/interposer/" + LIBRARY_NAME;

  private static final byte[] ELF = {0x7f, 'E', 'L', 'F'};

  private final Path directory;
  private final String problem;

  private InterposerInstall(Path directory, String problem) {
    this.directory = directory;
    this.problem = problem;
  }

  /**
   * Copies {@code source} (the library the node image ships) into {@code directory} and writes the
   * preload file. A failure is logged and kept: Allocates of transparent claims then fail with it,
   * so no tenant starts without its interposer.
   */
  public static InterposerInstall install(Path source, Path directory) {
    try {
      if (!Files.isRegularFile(source)) {
        throw new IOException(source + " does not exist: the node image must ship the interposer");
      }
      try (InputStream in = Files.newInputStream(source)) {
        if (!Arrays.equals(in.readNBytes(ELF.length), ELF)) {
          throw new IOException(source + " is not an ELF shared library");
        }
      }
      Files.createDirectories(directory);
      replace(directory.resolve(LIBRARY_NAME), tmp -> Files.copy(source, tmp));
      replace(
          directory.resolve(PRELOAD_NAME),
          tmp -> Files.writeString(tmp, CONTAINER_LIBRARY + "\n", StandardCharsets.UTF_8));
      LOG.info("interposer installed in " + directory + " from " + source);
      return new InterposerInstall(directory, null);
    } catch (IOException e) {
      String why =
          "the interposer is not installed on this node ("
              + e.getMessage()
              + "); see the smslice node pod's log";
      LOG.severe(why);
      return new InterposerInstall(directory, why);
    }
  }

  private interface Writer {
    void write(Path tmp) throws IOException;
  }

  private static void replace(Path target, Writer writer) throws IOException {
    Path tmp =
        target.resolveSibling("." + target.getFileName() + ".tmp-" + ProcessHandle.current().pid());
    Files.deleteIfExists(tmp);
    writer.write(tmp);
    // Readable and executable by every user: tenants' processes may run as any user.
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("r-xr-xr-x"));
    try {
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.deleteIfExists(tmp);
      throw new IOException("cannot replace " + target + " atomically: " + e.getMessage(), e);
    }
  }

  public Path library() {
    return directory.resolve(LIBRARY_NAME);
  }

  public Path preload() {
    return directory.resolve(PRELOAD_NAME);
  }

  /** Why tenants cannot get the interposer now, or empty when they can. */
  public Optional<String> problem() {
    if (problem != null) {
      return Optional.of(problem);
    }
    if (!Files.isRegularFile(library()) || !Files.isRegularFile(preload())) {
      return Optional.of(
          "the interposer's files in "
              + directory
              + " are gone; restart the smslice node pod on this node to install them again");
    }
    return Optional.empty();
  }
}
