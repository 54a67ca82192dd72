package io.smslice.examples.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads the messages a user can meet out of the project's sources, as fixed text: the string
 * literals of the expression or call that builds each message, adjacent literals joined, split
 * where the code fills in a value (a variable between literals, or a printf conversion). Only
 * pieces long enough to be recognised are kept, so that a page quoting a message with {@code <...>}
 * in place of the values contains every piece.
 */
final class UserMessages {
  /** Pieces shorter than this ({@code " is listed "}) say nothing alone and are not checked. */
  static final int MIN_PIECE = 12;

  private static final Pattern PRINTF = Pattern.compile("%[-+ #0-9.]*[a-zA-Z]");
  private static final Pattern CHART_FAIL =
      Pattern.compile("fail \\(?(?:printf )?\"((?:[^\"\\\\]|\\\\.)*)\"");

  private static final Pattern CAMEL_CASE =
      Pattern.compile("\"([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*)\"");

  private UserMessages() {}

  /** One message: where it is built, and its fixed pieces. */
  record Message(String where, List<String> pieces) {}

  /**
   * Messages starting at each occurrence of {@code token} in {@code source}. A token ending in
   * {@code (} opens a call whose every literal argument belongs to the message (C's printf-like
   * calls); any other token starts an expression that ends at the first {@code ;}, or {@code ,} or
   * unmatched {@code )} outside brackets.
   */
  static List<Message> at(String where, String code, String token) {
    String source = withoutComments(code);
    List<Message> out = new ArrayList<>();
    boolean call = token.endsWith("(");
    for (int i = source.indexOf(token); i >= 0; i = source.indexOf(token, i + 1)) {
      int from = token.startsWith("\"") ? i : i + token.length();
      List<String> literals = literals(source, from, call);
      List<String> pieces = pieces(literals);
      if (!pieces.isEmpty()) {
        out.add(new Message(where + ":" + line(source, i), pieces));
      }
    }
    return out;
  }

  /** The chart's {@code fail} messages that start with {@code smslice:}. */
  static List<Message> chartFailures(String where, String template) {
    List<Message> out = new ArrayList<>();
    Matcher m = CHART_FAIL.matcher(template);
    while (m.find()) {
      String text = unescape(m.group(1));
      if (text.startsWith("smslice: ")) {
        out.add(new Message(where + ":" + line(template, m.start()), pieces(List.of(text))));
      }
    }
    return out;
  }

  /** String literals from {@code from} to the expression's or call's end; adjacent ones joined. */
  private static List<String> literals(String s, int from, boolean call) {
    List<String> out = new ArrayList<>();
    StringBuilder joined = null;
    int depth = 0;
    int i = from;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"') {
        int end = i + 1;
        StringBuilder lit = new StringBuilder();
        while (end < s.length() && s.charAt(end) != '"') {
          if (s.charAt(end) == '\\' && end + 1 < s.length()) {
            lit.append(s, end, end + 2);
            end += 2;
          } else {
            lit.append(s.charAt(end++));
          }
        }
        String text = unescape(lit.toString());
        if (joined == null) {
          joined = new StringBuilder(text);
        } else {
          joined.append(text);
        }
        i = end + 1;
        continue;
      }
      if (c == '\'') { // a char literal: ' ' or '\''
        int end = s.indexOf('\'', i + (s.charAt(i + 1) == '\\' ? 3 : 2));
        i = end < 0 ? s.length() : end + 1;
        joined = flush(out, joined);
        continue;
      }
      if (Character.isWhitespace(c) || c == '+') {
        i++;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth < 0) {
          break;
        }
      } else if (c == ';' || (c == ',' && depth == 0 && !call)) {
        break;
      }
      joined = flush(out, joined);
      i++;
    }
    flush(out, joined);
    return out;
  }

  private static StringBuilder flush(List<String> out, StringBuilder joined) {
    if (joined != null) {
      out.add(joined.toString());
    }
    return null;
  }

  private static List<String> pieces(List<String> literals) {
    List<String> out = new ArrayList<>();
    for (String literal : literals) {
      String text = literal.startsWith("smslice: ") ? literal.substring(9) : literal;
      for (String piece : PRINTF.split(text)) {
        String p = normalise(piece);
        if (p.length() >= MIN_PIECE) {
          out.add(p);
        }
      }
    }
    return out;
  }

  /** CamelCase string literals ({@code "ClaimNotBound"}, {@code "Placed"}): reasons, and others. */
  static List<String> camelCaseLiterals(String code) {
    List<String> out = new ArrayList<>();
    Matcher m = CAMEL_CASE.matcher(withoutComments(code));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /**
   * Java or C source with its comments blanked (newlines kept, so line numbers hold); string and
   * char literals are left alone, so {@code "https://"} stays.
   */
  static String withoutComments(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'') {
        int end = i + 1;
        while (end < s.length() && s.charAt(end) != c && s.charAt(end) != '\n') {
          end += s.charAt(end) == '\\' ? 2 : 1;
        }
        end = Math.min(end + 1, s.length());
        out.append(s, i, end);
        i = end;
      } else if (s.startsWith("//", i)) {
        int end = s.indexOf('\n', i);
        i = end < 0 ? s.length() : end;
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        end = end < 0 ? s.length() : end + 2;
        out.append(s.substring(i, end).replaceAll("[^\n]", " "));
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  static String normalise(String text) {
    return text.strip().replaceAll("\\s+", " ");
  }

  private static String unescape(String s) {
    return s.replace("\\\"", "\"").replace("\\n", " ").replace("\\\\", "\\");
  }

  private static int line(String s, int index) {
    return (int) s.substring(0, index).chars().filter(ch -> ch == '\n').count() + 1;
  }

  /** The files under {@code dir} whose names end in {@code suffix}, in a stable order. */
  static List<Path> files(Path dir, String suffix) {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
