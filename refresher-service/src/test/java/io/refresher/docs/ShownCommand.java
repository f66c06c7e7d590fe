package io.refresher.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One Maven or java command as a doc shows it in a shell code block: its words after the shell's
 * quoting, with continuation lines joined, comments and leading VAR=value assignments left out.
 */
record ShownCommand(String file, int line, List<String> words) {

  private static final Set<String> SHELL_BLOCKS = Set.of("sh", "bash", "shell", "console", "");
  private static final Set<String> SEPARATORS = Set.of("&&", "||", ";", "|");

  String program() {
    return words.get(0);
  }

  String where() {
    return file + ":" + line;
  }

  @Override
  public String toString() {
    return String.join(" ", words);
  }

  /** The mvn and java commands of {@code markdown}'s shell code blocks; {@code file} names it in messages. */
  static List<ShownCommand> in(String file, MarkdownFile markdown) {
    List<ShownCommand> commands = new ArrayList<>();
    for (MarkdownFile.CodeBlock block : markdown.codeBlocks()) {
      if (!SHELL_BLOCKS.contains(block.info())) {
        continue;
      }
      StringBuilder joined = new StringBuilder();
      int start = -1;
      for (int i = 0; i < block.lines().size(); i++) {
        String line = block.lines().get(i);
        if (start < 0) {
          start = block.firstLine() + i;
        }
        if (line.endsWith("\\")) {
          joined.append(line, 0, line.length() - 1).append(' ');
          continue;
        }
        joined.append(line);
        for (List<String> words : split(words(joined.toString()))) {
          if (!words.isEmpty() && (words.get(0).equals("mvn") || words.get(0).equals("java"))) {
            commands.add(new ShownCommand(file, start, words));
          }
        }
        joined.setLength(0);
        start = -1;
      }
    }
    return commands;
  }

  /** A shell line's words: quotes removed, a '#' that starts a word ends the line. */
  static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        word = word == null ? new StringBuilder() : word;
      } else if (Character.isWhitespace(c)) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
      } else if (c == '#' && word == null) {
        break;
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }

  private static List<List<String>> split(List<String> words) {
    List<List<String>> commands = new ArrayList<>();
    List<String> current = new ArrayList<>();
    for (String word : words) {
      if (SEPARATORS.contains(word)) {
        commands.add(current);
        current = new ArrayList<>();
      } else if (!(current.isEmpty() && word.matches("[A-Za-z_][A-Za-z0-9_]*=.*"))) {
        current.add(word);
      }
    }
    commands.add(current);
    return commands;
  }
}
