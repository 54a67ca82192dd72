package io.smslice.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the repository's markdown (README, docs, examples, results) points at a
 * file that exists, and every {@code #anchor} into a markdown file at one of its headings, named as
 * GitHub names them. Links to the web are not followed: the build machines have no internet.
 */
class DocLinksTest {
  private static final Path ROOT = TroubleshootingCoverageTest.ROOT;
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern FENCE = Pattern.compile("(?s)```.*?```");

  @Test
  void relativeLinksAndAnchorsResolve() throws Exception {
    List<Path> pages = markdownFiles();
    assertThat(pages).as("markdown files found").hasSizeGreaterThan(20);
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      String text = FENCE.matcher(UserMessages.read(page)).replaceAll("");
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String link = m.group(1);
        if (link.matches("[a-z]+:.*")) {
          continue; // https:, mailto:
        }
        int hash = link.indexOf('#');
        String file = hash < 0 ? link : link.substring(0, hash);
        Path target = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        String where = ROOT.relativize(page) + ": " + link;
        if (!Files.exists(target)) {
          broken.add(where + " (no such file)");
        } else if (hash >= 0 && target.toString().endsWith(".md")) {
          String anchor = link.substring(hash + 1);
          if (!anchors(target).contains(anchor)) {
            broken.add(where + " (no heading #" + anchor + ")");
          }
        }
      }
    }
    assertThat(broken).as("broken links").isEmpty();
  }

  /**
   * The repository's markdown: what git tracks or would track (not ignored build output, tool
   * caches or GPU bundles); without git, every file outside target/, .git/ and .gpu-run/.
   */
  private static List<Path> markdownFiles() throws Exception {
    try {
      Process git =
          new ProcessBuilder(
                  "git",
                  "ls-files",
                  "-z",
                  "--cached",
                  "--others",
                  "--exclude-standard",
                  "--",
                  "*.md")
              .directory(ROOT.toFile())
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (git.waitFor(30, TimeUnit.SECONDS) && git.exitValue() == 0) {
        return Arrays.stream(out.split("\0"))
            .filter(f -> !f.isEmpty())
            .map(ROOT::resolve)
            .filter(Files::exists)
            .toList();
      }
    } catch (IOException e) {
      // no git: walk the tree below
    }
    return UserMessages.files(ROOT, ".md").stream()
        .filter(p -> !ROOT.relativize(p).toString().matches("(.*/)?(target|\\.git|\\.gpu-run)/.*"))
        .toList();
  }

  @Test
  void anchorsAreNamedAsGitHubNamesThem() {
    assertThat(anchor("Pods: webhook and claim gate")).isEqualTo("pods-webhook-and-claim-gate");
    assertThat(anchor("Why green contexts, and not streams or priorities?"))
        .isEqualTo("why-green-contexts-and-not-streams-or-priorities");
    assertThat(anchor("Metrics (`:9400/metrics`)")).isEqualTo("metrics-9400metrics");
  }

  /** The anchors of a page's headings; a repeated heading gets -1, -2... as on GitHub. */
  private static Set<String> anchors(Path page) {
    Set<String> out = new HashSet<>();
    String text = FENCE.matcher(UserMessages.read(page)).replaceAll("");
    for (String line : text.split("\n")) {
      if (line.matches("#{1,6} .*")) {
        String a = anchor(line.replaceFirst("#+ ", ""));
        String unique = a;
        for (int n = 1; out.contains(unique); n++) {
          unique = a + "-" + n;
        }
        out.add(unique);
      }
    }
    return out;
  }

  static String anchor(String heading) {
    return heading
        .strip()
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
        .replace(' ', '-');
  }
}
