package io.ecrepair;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Java source file split into its string literals (text blocks included, escapes left as
 * written) and its code with comments and literals blanked out, so that a name in a comment is
 * neither a key read nor a reference to a constant.
 */
final class JavaSourceText {
  final Path file;
  final List<String> literals;
  final String code;

  private JavaSourceText(Path file, List<String> literals, String code) {
    this.file = file;
    this.literals = literals;
    this.code = code;
  }

  static JavaSourceText read(Path file) throws IOException {
    return parse(file, Files.readString(file));
  }

  static JavaSourceText parse(Path file, String s) {
    List<String> literals = new ArrayList<>();
    StringBuilder code = new StringBuilder(s.length());
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (s.startsWith("//", i)) {
        int end = s.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        code.append(' ');
      } else if (s.startsWith("\"\"\"", i)) {
        int end = s.indexOf("\"\"\"", i + 3);
        end = end < 0 ? n : end;
        literals.add(s.substring(i + 3, end));
        code.append("\"\"");
        i = Math.min(n, end + 3);
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && s.charAt(j) != c && s.charAt(j) != '\n') {
          j += s.charAt(j) == '\\' ? 2 : 1;
        }
        if (c == '"') {
          literals.add(s.substring(i + 1, Math.min(j, n)));
        }
        code.append(c).append(c);
        i = Math.min(n, j + 1);
      } else {
        code.append(c);
        i++;
      }
    }
    return new JavaSourceText(file, List.copyOf(literals), code.toString());
  }
}
