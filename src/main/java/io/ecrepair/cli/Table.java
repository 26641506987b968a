package io.ecrepair.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain text table: a header, aligned columns, numbers to the right. */
public final class Table {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();
  private boolean alignNumbers = true;

  public Table(String... header) {
    this.header = List.of(header);
  }

  /** A key/value listing reads better with every column left-aligned. */
  public Table leftAligned() {
    alignNumbers = false;
    return this;
  }

  public Table row(Object... cells) {
    List<String> r = new ArrayList<>();
    for (Object c : cells) {
      r.add(c == null ? "-" : c.toString());
    }
    rows.add(r);
    return this;
  }

  public void print(PrintWriter out) {
    int[] width = new int[header.size()];
    for (int c = 0; c < width.length; c++) {
      width[c] = header.get(c).length();
      for (List<String> r : rows) {
        width[c] = Math.max(width[c], c < r.size() ? r.get(c).length() : 0);
      }
    }
    out.println(line(header, width, alignNumbers));
    StringBuilder rule = new StringBuilder();
    for (int c = 0; c < width.length; c++) {
      rule.append("-".repeat(width[c])).append(c + 1 < width.length ? "  " : "");
    }
    out.println(rule);
    for (List<String> r : rows) {
      out.println(line(r, width, alignNumbers));
    }
    out.flush();
  }

  private static String line(List<String> cells, int[] width, boolean alignNumbers) {
    StringBuilder s = new StringBuilder();
    for (int c = 0; c < width.length; c++) {
      String v = c < cells.size() ? cells.get(c) : "";
      boolean numeric = alignNumbers && v.matches("-?[0-9.,]+[x%]?");
      String pad = " ".repeat(width[c] - v.length());
      s.append(numeric ? pad + v : v + pad).append(c + 1 < width.length ? "  " : "");
    }
    return s.toString().stripTrailing();
  }
}
