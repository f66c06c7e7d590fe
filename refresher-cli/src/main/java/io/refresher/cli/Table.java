package io.refresher.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Columns padded to their widest cell, for people; {@code -o json} is for scripts. */
final class Table {

  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... headers) {
    this.headers = List.of(headers);
  }

  Table row(Object... cells) {
    List<String> row = new ArrayList<>();
    for (Object cell : cells) {
      row.add(cell == null ? "-" : cell.toString());
    }
    rows.add(row);
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[headers.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = headers.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    line(out, headers, widths);
    rows.forEach(row -> line(out, row, widths));
    out.flush();
  }

  private static void line(PrintWriter out, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      line.append(i + 1 < cells.size() ? String.format("%-" + widths[i] + "s  ", cells.get(i)) : cells.get(i));
    }
    out.println(line.toString().stripTrailing());
  }
}
