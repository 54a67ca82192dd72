package io.smslice.node.dra.prepare;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The claims this node prepared, in {@code <state dir>/dra-checkpoint.json}, keyed by claim uid. A
 * change is on disk (written to a temporary file, forced, renamed) before the kubelet hears of it,
 * so a restart of the node side finds every claim it answered for.
 */
public final class Checkpoint {
  static final int VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  @JsonIgnoreProperties(ignoreUnknown = true)
  record File(int version, List<PreparedClaim> claims) {}

  private final Path path;
  private final Map<String, PreparedClaim> claims = new LinkedHashMap<>();

  private Checkpoint(Path path) {
    this.path = path;
  }

  /** Reads the file when it exists; a file this version cannot read stops the start. */
  public static Checkpoint open(Path path) throws IOException {
    Checkpoint c = new Checkpoint(path);
    if (Files.exists(path)) {
      File f;
      try {
        f = JSON.readValue(path.toFile(), File.class);
      } catch (IOException e) {
        throw new IOException(
            "smslice: the DRA checkpoint "
                + path
                + " cannot be read ("
                + e.getMessage()
                + "); its claims' pods need the node side: move the file away only after deleting"
                + " them",
            e);
      }
      if (f.version() != VERSION) {
        throw new IOException(
            "smslice: the DRA checkpoint " + path + " has version " + f.version() + ", not 1");
      }
      f.claims().forEach(p -> c.claims.put(p.uid(), p));
    }
    return c;
  }

  public synchronized Optional<PreparedClaim> get(String uid) {
    return Optional.ofNullable(claims.get(uid));
  }

  /** The prepared claim of this namespace and name, whatever its uid. */
  public synchronized Optional<PreparedClaim> byKey(String key) {
    return claims.values().stream().filter(p -> p.key().equals(key)).findFirst();
  }

  public synchronized List<PreparedClaim> all() {
    return List.copyOf(claims.values());
  }

  public synchronized void put(PreparedClaim claim) throws IOException {
    PreparedClaim before = claims.put(claim.uid(), claim);
    try {
      write();
    } catch (IOException e) {
      if (before == null) {
        claims.remove(claim.uid());
      } else {
        claims.put(claim.uid(), before);
      }
      throw e;
    }
  }

  public synchronized void remove(String uid) throws IOException {
    PreparedClaim before = claims.remove(uid);
    if (before == null) {
      return;
    }
    try {
      write();
    } catch (IOException e) {
      claims.put(uid, before);
      throw e;
    }
  }

  private void write() throws IOException {
    Files.createDirectories(path.getParent());
    Path temporary = path.resolveSibling(path.getFileName() + ".tmp");
    byte[] bytes = JSON.writeValueAsBytes(new File(VERSION, new ArrayList<>(claims.values())));
    try (var channel =
        java.nio.channels.FileChannel.open(
            temporary,
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.TRUNCATE_EXISTING,
            java.nio.file.StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.wrap(bytes));
      channel.force(true);
    }
    try {
      Files.move(
          temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
