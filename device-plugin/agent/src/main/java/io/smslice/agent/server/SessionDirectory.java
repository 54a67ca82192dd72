package io.smslice.agent.server;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The claim directory's {@code s/}, where session files live. Tenants can write inside the claim
 * directory, so everything here goes through a handle on the real directory, opened without
 * following links: a symlink a tenant plants (as {@code s} or as a session file's name) is removed
 * or refused, never followed to a place outside the claim directory.
 */
final class SessionDirectory implements AutoCloseable {
  private static final Set<PosixFilePermission> FILE_MODE =
      PosixFilePermissions.fromString("rw-rw-rw-");

  private final String name;
  private final SecureDirectoryStream<Path> directory;

  private SessionDirectory(String name, SecureDirectoryStream<Path> directory) {
    this.name = name;
    this.directory = directory;
  }

  /**
   * Makes {@code claimDirectory/name} a real directory with mode rwx--x--x (tenants may open a file
   * whose name they were told, but not list the others), replacing whatever else is there, and
   * removes session files a previous server left.
   */
  static SessionDirectory open(Path claimDirectory, String name) throws IOException {
    Path path = claimDirectory.resolve(name);
    BasicFileAttributes existing = attributes(path);
    if (existing != null && !existing.isDirectory()) {
      Files.delete(path); // a symlink or a file: removed itself, not what it points to
    }
    try {
      Files.createDirectory(path);
    } catch (FileAlreadyExistsException e) {
      // A real directory from an earlier server (or one just planted: opened below without
      // following links either way).
    }
    if (!(Files.newDirectoryStream(claimDirectory) instanceof SecureDirectoryStream<Path> claim)) {
      throw new IOException("this file system cannot open directories safely: " + claimDirectory);
    }
    try (claim) {
      SecureDirectoryStream<Path> sessions =
          claim.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS);
      try {
        sessions
            .getFileAttributeView(PosixFileAttributeView.class)
            .setPermissions(PosixFilePermissions.fromString("rwx--x--x"));
        SessionDirectory opened = new SessionDirectory(name, sessions);
        opened.removeLeftovers();
        return opened;
      } catch (IOException | RuntimeException e) {
        sessions.close();
        throw e;
      }
    } catch (IOException e) {
      throw new IOException("cannot prepare " + path + ": " + e.getMessage(), e);
    }
  }

  private static BasicFileAttributes attributes(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    }
  }

  /** Runs once per directory handle: a directory stream gives one iterator only. */
  private void removeLeftovers() {
    for (Path entry : directory) {
      if (entry.getFileName().toString().endsWith(".shm")) {
        delete(entry.getFileName().toString());
      }
    }
  }

  /**
   * Creates a new file (never an existing one, never through a link), readable and writable by all.
   */
  FileChannel create(String file) throws IOException {
    FileChannel channel =
        (FileChannel)
            directory.newByteChannel(
                Path.of(file),
                Set.of(
                    StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(FILE_MODE));
    try {
      // The process's umask may have removed bits; set them on the file just made, not a link.
      directory
          .getFileAttributeView(
              Path.of(file), PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
          .setPermissions(FILE_MODE);
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      delete(file);
      throw e;
    }
  }

  /** Removes the name (a link is removed itself); a missing name is no error. */
  void delete(String file) {
    try {
      directory.deleteFile(Path.of(file));
    } catch (IOException e) {
      // Gone already, or the tenant replaced it: nothing of the agent's is there any more.
    }
  }

  /** A file's path relative to the claim directory, as HELLO tells the tenant. */
  String relative(String file) {
    return name + "/" + file;
  }

  @Override
  public void close() throws IOException {
    directory.close();
  }
}
