package io.smslice.e2e.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Removes what a local cluster leaves on the machine when it is stopped, or when an earlier run was
 * killed: its processes (containerd's shims and the containers under them outlive containerd), the
 * mounts the kubelet and the node side made, and their folders.
 */
final class Leftovers {
  private Leftovers() {}

  static void remove(List<Path> trees) throws IOException, InterruptedException {
    for (long pid : processesMentioning(trees)) {
      ProcessHandle.of(pid)
          .ifPresent(
              p -> {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
              });
    }
    for (Path tree : trees) {
      unmountUnder(tree);
    }
    for (Path tree : trees) {
      if (Files.exists(tree)) {
        Command.of("rm", "-rf", "--one-file-system", tree.toString()).check();
      }
    }
  }

  private static List<Long> processesMentioning(List<Path> trees) throws IOException {
    List<Long> found = new ArrayList<>();
    long self = ProcessHandle.current().pid();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path proc :
          procs
              .filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
              .toList()) {
        long pid = Long.parseLong(proc.getFileName().toString());
        if (pid == self) {
          continue;
        }
        String cmdline;
        try {
          cmdline =
              new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8)
                  .replace('\0', ' ');
        } catch (IOException gone) {
          continue;
        }
        if (trees.stream().anyMatch(tree -> cmdline.contains(tree.toString()))) {
          found.add(pid);
        }
      }
    }
    return found;
  }

  private static void unmountUnder(Path tree) throws IOException, InterruptedException {
    List<String> mounts = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
      String point = line.split(" ")[4].replace("\\040", " ");
      if (point.equals(tree.toString()) || point.startsWith(tree + "/")) {
        mounts.add(point);
      }
    }
    mounts.sort(Comparator.comparingInt(String::length).reversed());
    for (String point : mounts) {
      Command.of("umount", "-l", point).run();
    }
  }
}
