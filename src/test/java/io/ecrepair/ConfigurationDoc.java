package io.ecrepair;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tables of docs/configuration.md: per {@code ## } section, each row whose first cell is a
 * name in backticks, with all its cells. Header and separator rows have no such first cell.
 */
final class ConfigurationDoc {
  private static final Pattern NAME_CELL = Pattern.compile("`([^`]+)`");

  final String text;
  /** Section title to (name in the first cell to that row's cells, first cell included). */
  final Map<String, Map<String, List<String>>> tables;

  private ConfigurationDoc(String text, Map<String, Map<String, List<String>>> tables) {
    this.text = text;
    this.tables = tables;
  }

  static ConfigurationDoc read(Path file) throws IOException {
    return parse(Files.readString(file));
  }

  static ConfigurationDoc parse(String text) {
    Map<String, Map<String, List<String>>> tables = new LinkedHashMap<>();
    String section = "";
    for (String line : text.split("\n")) {
      if (line.startsWith("## ")) {
        section = line.substring(3).strip();
        continue;
      }
      if (!line.startsWith("|")) {
        continue;
      }
      List<String> cells = new ArrayList<>();
      for (String cell : line.substring(1).split("\\|", -1)) {
        cells.add(cell.strip());
      }
      if (cells.get(cells.size() - 1).isEmpty()) {
        cells.remove(cells.size() - 1); // after the closing '|'
      }
      Matcher m = NAME_CELL.matcher(cells.get(0));
      if (m.matches()) {
        List<String> previous = tables.computeIfAbsent(section, s -> new LinkedHashMap<>()).put(m.group(1), cells);
        if (previous != null) {
          throw new IllegalStateException("section '" + section + "' lists " + m.group(1) + " twice");
        }
      }
    }
    return new ConfigurationDoc(text, tables);
  }

  /** The rows of {@code section} (empty when there is no such section). */
  Map<String, List<String>> table(String section) {
    return tables.getOrDefault(section, Map.of());
  }

  /** The names in backticks in {@code cell}. */
  static List<String> quoted(String cell) {
    List<String> names = new ArrayList<>();
    Matcher m = NAME_CELL.matcher(cell);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }
}
