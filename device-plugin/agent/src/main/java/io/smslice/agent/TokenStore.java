package io.smslice.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * Tokens that open a claim's socket, one per container. Only SHA-256 digests are kept, in {@code
 * stateDir/tokens/<claim directory name>} ({@link AgentOptions#claimDirectoryName}: short whatever
 * the names), so that tokens handed out before an agent restart still work after it.
 */
public final class TokenStore {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path directory;
  private final Map<String, Set<String>> digests = new HashMap<>();

  public TokenStore(Path stateDir) {
    this.directory = stateDir.resolve("tokens");
  }

  public synchronized String issue(
      String namespace, String claim, String podUid, String container) {
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    String token = HexFormat.of().formatHex(secret);
    String digest = digest(token);
    try {
      Files.createDirectories(directory);
      Files.writeString(
          file(namespace, claim),
          digest + " " + podUid + " " + container + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot persist the token of " + namespace + "/" + claim, e);
    }
    known(namespace, claim).add(digest);
    return token;
  }

  /**
   * Whether the token was issued for the claim. A miss re-reads the file: a worker process sees the
   * tokens the agent issued after the worker started.
   */
  public synchronized boolean accepts(String namespace, String claim, String token) {
    if (token == null || token.isEmpty()) {
      return false;
    }
    String digest = digest(token);
    if (known(namespace, claim).contains(digest)) {
      return true;
    }
    digests.remove(namespace + "/" + claim);
    return known(namespace, claim).contains(digest);
  }

  public synchronized void forget(String namespace, String claim) {
    digests.remove(namespace + "/" + claim);
    try {
      Files.deleteIfExists(file(namespace, claim));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Set<String> known(String namespace, String claim) {
    return digests.computeIfAbsent(
        namespace + "/" + claim,
        key -> {
          Set<String> loaded = new HashSet<>();
          Path file = file(namespace, claim);
          try {
            if (Files.exists(file)) {
              for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                  loaded.add(line.split(" ", 2)[0]);
                }
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return loaded;
        });
  }

  private Path file(String namespace, String claim) {
    return directory.resolve(AgentOptions.claimDirectoryName(namespace, claim));
  }

  private static String digest(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
