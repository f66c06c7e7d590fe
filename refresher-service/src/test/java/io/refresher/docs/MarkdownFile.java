package io.refresher.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the docs tests need of one Markdown file: its links outside code, the anchors its headings
 * and HTML anchors make, and its fenced code blocks. A small reading of CommonMark, enough for
 * the repository's own files; it is not a Markdown renderer.
 */
final class MarkdownFile {

  /** A link's target as written, and the 1-based line it is on. */
  record Link(int line, String target) {}

  /** A fenced code block: its info string (sh, text, ...), first content line (1-based), lines. */
  record CodeBlock(String info, int firstLine, List<String> lines) {}

  private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})\\s*([^`\\s]*).*$");
  private static final Pattern INLINE_CODE = Pattern.compile("(`+)(.+?)\\1");
  // [text](target) and ![alt](target), with an optional "title"; <target> form too.
  private static final Pattern INLINE_LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*(<[^>]*>|[^\\s)]+)(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*(\\S+)");
  private static final Pattern HTML_HREF = Pattern.compile("<a\\s[^>]*href=\"([^\"]*)\"", Pattern.CASE_INSENSITIVE);
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*(?:id|name)=\"([^\"]*)\"", Pattern.CASE_INSENSITIVE);
  private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)\\s*#*\\s*$");

  private final Path path;
  private final List<Link> links = new ArrayList<>();
  private final Set<String> anchors = new HashSet<>();
  private final List<CodeBlock> codeBlocks = new ArrayList<>();

  private MarkdownFile(Path path) {
    this.path = path;
  }

  static MarkdownFile read(Path path) {
    MarkdownFile file = new MarkdownFile(path);
    file.parse(RepositoryRoot.read(path).split("\r?\n", -1));
    return file;
  }

  Path path() {
    return path;
  }

  List<Link> links() {
    return links;
  }

  Set<String> anchors() {
    return anchors;
  }

  List<CodeBlock> codeBlocks() {
    return codeBlocks;
  }

  private void parse(String[] lines) {
    Map<String, Integer> headingsSeen = new HashMap<>();
    String openFence = null;
    String info = null;
    int blockStart = 0;
    List<String> block = null;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      Matcher fence = FENCE.matcher(line);
      if (openFence == null && fence.matches()) {
        openFence = fence.group(1);
        info = fence.group(2);
        blockStart = i + 2;
        block = new ArrayList<>();
        continue;
      }
      if (openFence != null) {
        // A fence closes on the same character, at least as long, with nothing after it.
        String trimmed = line.strip();
        char fenceChar = openFence.charAt(0);
        if (trimmed.startsWith(openFence) && trimmed.chars().allMatch(c -> c == fenceChar)) {
          codeBlocks.add(new CodeBlock(info, blockStart, List.copyOf(block)));
          openFence = null;
        } else {
          block.add(line);
        }
        continue;
      }
      readProse(i + 1, line, headingsSeen);
    }
  }

  private void readProse(int lineNumber, String line, Map<String, Integer> headingsSeen) {
    Matcher heading = HEADING.matcher(line);
    if (heading.matches()) {
      String slug = slug(heading.group(1));
      int seen = headingsSeen.merge(slug, 1, Integer::sum);
      anchors.add(seen == 1 ? slug : slug + "-" + (seen - 1));
    }
    Matcher anchor = HTML_ANCHOR.matcher(line);
    while (anchor.find()) {
      anchors.add(anchor.group(1));
    }
    String prose = INLINE_CODE.matcher(line).replaceAll("");
    Matcher reference = REFERENCE_DEFINITION.matcher(prose);
    if (reference.find()) {
      links.add(new Link(lineNumber, reference.group(1)));
    }
    for (Pattern pattern : List.of(INLINE_LINK, HTML_HREF)) {
      Matcher link = pattern.matcher(prose);
      while (link.find()) {
        String target = link.group(1);
        if (target.startsWith("<") && target.endsWith(">")) {
          target = target.substring(1, target.length() - 1);
        }
        links.add(new Link(lineNumber, target));
      }
    }
  }

  /**
   * GitHub's anchor for a heading: the heading's text (link targets and markup left out), lower
   * case, every character but letters, digits, spaces, '-' and '_' removed, spaces made '-'.
   */
  static String slug(String headingText) {
    String text = headingText.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
    StringBuilder slug = new StringBuilder();
    text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
      if (c == ' ') {
        slug.append('-');
      } else if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        slug.appendCodePoint(c);
      }
    });
    return slug.toString();
  }
}
