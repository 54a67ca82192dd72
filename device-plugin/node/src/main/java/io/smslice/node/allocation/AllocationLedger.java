package io.smslice.node.allocation;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The containers this node has already allocated for, kept in a file so that a restarted node side
 * does not hand a pending pod's slice to a second container. Entries of pods that left the node are
 * dropped.
 */
public final class AllocationLedger {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One allocated container. */
  public record Entry(
      String podUid,
      String namespace,
      String pod,
      String container,
      String resource,
      String claim,
      List<String> deviceIds) {}

  private final Path file;
  private final List<Entry> entries;

  public AllocationLedger(Path file) {
    this.file = file;
    this.entries = new ArrayList<>(read(file));
  }

  public synchronized boolean allocated(String podUid, String container, String resource) {
    return entries.stream()
        .anyMatch(
            e ->
                e.podUid().equals(podUid)
                    && e.container().equals(container)
                    && e.resource().equals(resource));
  }

  /** Whether some, not necessarily all, of the pod's containers were allocated. */
  public synchronized boolean started(String podUid) {
    return entries.stream().anyMatch(e -> e.podUid().equals(podUid));
  }

  /** Records the entries together: when the file cannot be written, none is kept. */
  public synchronized void recordAll(List<Entry> added) {
    entries.addAll(added);
    try {
      write();
    } catch (UncheckedIOException e) {
      entries.subList(entries.size() - added.size(), entries.size()).clear();
      throw e;
    }
  }

  /** Forgets the pods that are no longer on the node. */
  public synchronized void retain(Set<String> podUidsOnNode) {
    if (entries.removeIf(e -> !podUidsOnNode.contains(e.podUid()))) {
      write();
    }
  }

  public synchronized List<Entry> entries() {
    return List.copyOf(entries);
  }

  private static List<Entry> read(Path file) {
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      return JSON.readValue(file.toFile(), new TypeReference<List<Entry>>() {});
    } catch (IOException e) {
      throw new UncheckedIOException(
          "allocation ledger " + file + " is unreadable; delete it to start afresh", e);
    }
  }

  private void write() {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      JSON.writeValue(tmp.toFile(), entries);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write allocation ledger " + file, e);
    }
  }
}
