package io.smslice.node.dra.cdi;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smslice.node.dra.DraDriver;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * One CDI spec file per prepared claim, {@code <dir>/smslice.io-<claim uid>.json}, holding one
 * device named by the claim's uid (kind {@link DraDriver#CDI_KIND}). The container runtime reads
 * the directory when it creates a container that names the device. A file is written whole to a
 * temporary name and renamed, so the runtime never reads half a spec; it is readable by its owner
 * only, as it holds the claim's token.
 */
public final class CdiSpecFiles {
  /** containerd 2 (its CDI library reads 0.3.0 to 1.0.0); 0.6.0 has every field used here. */
  public static final String CDI_VERSION = "0.6.0";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final Path directory;

  public CdiSpecFiles(Path directory) {
    this.directory = directory;
  }

  public Path file(String claimUid) {
    return directory.resolve(DraDriver.NAME + "-" + claimUid + ".json");
  }

  public Path write(String claimUid, ContainerEdits edits) throws IOException {
    Files.createDirectories(directory);
    Path target = file(claimUid);
    Path temporary = directory.resolve("." + target.getFileName() + ".tmp");
    Files.deleteIfExists(temporary);
    Files.createFile(
        temporary,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.write(temporary, JSON.writeValueAsBytes(spec(claimUid, edits)));
    try {
      Files.move(
          temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target;
  }

  public void remove(String claimUid) throws IOException {
    Files.deleteIfExists(file(claimUid));
  }

  static ObjectNode spec(String claimUid, ContainerEdits edits) {
    ObjectNode spec = JSON.createObjectNode();
    spec.put("cdiVersion", CDI_VERSION);
    spec.put("kind", DraDriver.CDI_KIND);
    ObjectNode device = spec.putArray("devices").addObject();
    device.put("name", claimUid);
    ObjectNode container = device.putObject("containerEdits");
    ArrayNode env = container.putArray("env");
    for (Map.Entry<String, String> e : edits.env().entrySet()) {
      env.add(e.getKey() + "=" + e.getValue());
    }
    ArrayNode mounts = container.putArray("mounts");
    for (ContainerEdits.Mount m : edits.mounts()) {
      ObjectNode mount = mounts.addObject();
      mount.put("hostPath", m.hostPath());
      mount.put("containerPath", m.containerPath());
      mount.put("type", "bind");
      ArrayNode options = mount.putArray("options");
      options.add(m.readOnly() ? "ro" : "rw").add("nosuid").add("nodev").add("rbind");
    }
    ArrayNode nodes = container.putArray("deviceNodes");
    for (ContainerEdits.DeviceNode d : edits.devices()) {
      ObjectNode node = nodes.addObject();
      node.put("path", d.path());
      node.put("hostPath", d.hostPath());
      node.put("permissions", d.permissions());
    }
    return spec;
  }
}
