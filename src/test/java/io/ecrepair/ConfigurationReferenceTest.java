package io.ecrepair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.ecrepair.hdfs.CostKeys;
import io.ecrepair.hdfs.client.ClientKeys;
import io.ecrepair.hdfs.namenode.NameNodeKeys;
import io.ecrepair.hdfs.task.DataNodeKeys;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md against the code and the shipped files, both ways.
 *
 * <p><b>The keys</b> are the {@code public static final String} constants whose value starts
 * with {@code ecrepair.} in the key classes ({@link DataNodeKeys}, {@link NameNodeKeys},
 * {@link ClientKeys}, {@link CostKeys}, {@link SystemProperties}), found by reflection. Each must
 * be in the table of its class's section of the doc, with the value of its {@code _DEFAULT}
 * sibling (if any) as the first word of the Default column ({@code none} for an empty string);
 * no two constants may share a name or a value.
 *
 * <p><b>Read, not only defined:</b> a key's constant must be referenced ({@code Class.FIELD}, or
 * through a static import) in src/main/java outside the key classes: for Hadoop configuration
 * keys in the product's HDFS adapters ({@code io.ecrepair.hdfs}, {@code org.apache.hadoop}), as
 * the harness, benchmarks and demo only set keys for their clusters; for system properties
 * anywhere. Every class the Read by column names must reference it. Every {@code ecrepair.} name
 * in a table's first column must be such a constant.
 *
 * <p><b>Names in the sources:</b> every {@code ecrepair.} name in a string literal of
 * src/main/java (comments are skipped; {@code io.ecrepair} and {@code libecrepair.so} are not
 * names) must be documented, and outside the key classes no literal may be exactly a key: code
 * reads keys through the constants. The same holds for every such name in the doc's prose, the
 * shipped conf/ files (comments included: commented-out examples and explanations must not name
 * keys that do not exist) and the launcher, {@code bin/ec-repair}.
 *
 * <p><b>Prefixes:</b> a name that ends with a dot ({@code "ecrepair.datanode."} to build keys
 * from, {@code ecrepair.datanode.agent.*} in prose, or a key that ends a sentence) stands for
 * a family of keys: without its trailing dots it must be a documented key or, cut at a dot, the
 * start of at least one. So a prefix cannot name a family that does not exist; a key built from
 * it at run time would still fail here, being no constant of a key class, which is as it should
 * be: keys are spelled out once, in the key classes.
 *
 * <p><b>Hadoop keys the shipped files set:</b> every property {@code conf/*-site.ec-repair.xml}
 * sets (outside comments) is either one of ours or a row of the doc's Hadoop table with the same
 * file and value, and that table lists nothing the files do not set.
 */
class ConfigurationReferenceTest {
  private static final String HADOOP_SECTION = "Hadoop settings in the shipped files";
  private static final Map<Class<?>, String> KEY_CLASSES = new LinkedHashMap<>();

  static {
    KEY_CLASSES.put(NameNodeKeys.class, "NameNode");
    KEY_CLASSES.put(DataNodeKeys.class, "DataNode");
    KEY_CLASSES.put(ClientKeys.class, "Client");
    KEY_CLASSES.put(CostKeys.class, "Client");
    KEY_CLASSES.put(SystemProperties.class, "Command line and system properties");
  }

  /** An {@code ecrepair.} name; after {@code -D} too, but not inside {@code io.ecrepair} or {@code libecrepair}. */
  private static final Pattern NAME = Pattern.compile("(?:(?<=-D)|(?<![A-Za-z0-9_./-]))ecrepair\\.[a-z0-9][a-z0-9.-]*");
  private static final Path SOURCES = Path.of("src/main/java");

  private static ConfigurationDoc doc;
  private static List<JavaSourceText> sources;
  private static Map<String, Key> keys;

  /** One key constant. */
  record Key(String name, Class<?> owner, Field field, Object defaultValue) {
    String section() {
      return KEY_CLASSES.get(owner);
    }

    boolean hadoopConfiguration() {
      return owner != SystemProperties.class;
    }
  }

  @BeforeAll
  static void load() throws Exception {
    doc = ConfigurationDoc.read(Path.of("docs/configuration.md"));
    try (Stream<Path> files = Files.walk(SOURCES)) {
      sources = new ArrayList<>();
      for (Path p : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        sources.add(JavaSourceText.read(p));
      }
    }
    keys = new LinkedHashMap<>();
    Map<String, Key> byField = new HashMap<>();
    for (Class<?> c : KEY_CLASSES.keySet()) {
      for (Field f : c.getDeclaredFields()) {
        int m = f.getModifiers();
        if (!Modifier.isStatic(m) || f.getType() != String.class || !(f.get(null) instanceof String v)
            || !v.startsWith("ecrepair.")) {
          continue;
        }
        assertTrue(Modifier.isPublic(m) && Modifier.isFinal(m), c.getSimpleName() + "." + f.getName() + " is public final");
        Key k = new Key(v, c, f, defaultOf(c, f));
        Key before = keys.put(v, k);
        assertTrue(before == null, v + " is defined twice: " + k + ", " + before);
        Key sameField = byField.put(f.getName(), k);
        assertTrue(sameField == null, f.getName() + " names two keys: " + k + ", " + sameField);
      }
    }
    // Guards against a scan that finds nothing and so passes everything.
    assertTrue(keys.size() >= 25, "key constants found: " + keys.keySet());
    assertTrue(sources.size() > 100, "sources found: " + sources.size());
    assertTrue(ours().size() >= 25, "documented keys found: " + ours());
  }

  private static Object defaultOf(Class<?> c, Field key) throws IllegalAccessException {
    String base = key.getName().replaceFirst("_(KEY|PROPERTY)$", "");
    try {
      return c.getDeclaredField(base + "_DEFAULT").get(null);
    } catch (NoSuchFieldException none) {
      return null;
    }
  }

  @Test
  void everyKeyIsDocumentedInItsSectionWithItsDefault() {
    List<String> wrong = new ArrayList<>();
    for (Key k : keys.values()) {
      List<String> row = doc.table(k.section()).get(k.name());
      if (row == null) {
        wrong.add(k.name() + " (" + k.owner().getSimpleName() + ") is missing from section '" + k.section() + "'");
        continue;
      }
      if (k.defaultValue() != null) {
        String expected = "".equals(k.defaultValue()) ? "none" : String.valueOf(k.defaultValue());
        String cell = row.get(1);
        if (!cell.equals(expected) && !cell.startsWith(expected + " ")) {
          wrong.add(k.name() + ": the doc's default is '" + cell + "', the code's " + expected);
        }
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void everyDocumentedKeyIsAConstantTheCodeReads() {
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, Map<String, List<String>>> section : doc.tables.entrySet()) {
      if (section.getKey().equals(HADOOP_SECTION)) {
        continue;
      }
      for (Map.Entry<String, List<String>> row : section.getValue().entrySet()) {
        String name = row.getKey();
        List<String> cells = row.getValue();
        Key k = keys.get(name);
        if (k == null) {
          wrong.add(name + " (section '" + section.getKey() + "') is no constant of a key class");
          continue;
        }
        if (cells.size() != 5 || cells.stream().anyMatch(String::isEmpty)) {
          wrong.add(name + ": a row has key, default, unit, read by, what it does: " + cells);
          continue;
        }
        List<String> readers = ConfigurationDoc.quoted(cells.get(3));
        if (readers.isEmpty()) {
          wrong.add(name + ": Read by names no class: " + cells.get(3));
        }
        for (String reader : readers) {
          List<JavaSourceText> files = sources.stream()
              .filter(s -> s.file.getFileName().toString().equals(reader + ".java")).toList();
          if (files.size() != 1) {
            wrong.add(name + ": Read by names " + reader + ", found as " + files.size() + " source files");
          } else if (!references(files.get(0), k)) {
            wrong.add(name + ": Read by names " + reader + ", which does not use " + constant(k));
          }
        }
      }
    }
    for (Key k : keys.values()) {
      boolean read = sources.stream()
          .filter(s -> !isKeyClass(s) && (!k.hadoopConfiguration() || isProduct(s)))
          .anyMatch(s -> references(s, k));
      if (!read) {
        wrong.add(constant(k) + " (" + k.name() + ") is read nowhere in "
            + (k.hadoopConfiguration() ? "the product's HDFS code" : "src/main/java"));
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void everyNameInTheSourcesStringsIsDocumented() {
    List<String> wrong = new ArrayList<>();
    int names = 0;
    for (JavaSourceText s : sources) {
      for (String literal : s.literals) {
        if (!isKeyClass(s) && keys.containsKey(literal)) {
          wrong.add(s.file + ": \"" + literal + "\" spelled out; use " + constant(keys.get(literal)));
        }
        for (String name : names(literal)) {
          names++;
          if (!documented(name)) {
            wrong.add(s.file + ": \"" + name + "\" is not in docs/configuration.md");
          }
        }
      }
    }
    assertTrue(names >= keys.size(), "names found in literals: " + names);
    assertEquals(List.of(), wrong);
  }

  @Test
  void everyNameTheDocAndTheShippedFilesMentionIsDocumented() throws IOException {
    List<String> wrong = new ArrayList<>();
    Map<String, String> texts = new LinkedHashMap<>();
    texts.put("docs/configuration.md", doc.text);
    try (Stream<Path> conf = Files.list(Path.of("conf"))) {
      for (Path p : conf.sorted().toList()) {
        texts.put(p.toString(), Files.readString(p));
      }
    }
    texts.put("hadoop-ec-repair/bin/ec-repair", Files.readString(Path.of("hadoop-ec-repair/bin/ec-repair")));
    for (Map.Entry<String, String> t : texts.entrySet()) {
      for (String name : names(t.getValue())) {
        if (!documented(name)) {
          wrong.add(t.getKey() + ": " + name + " is not in the doc's tables");
        }
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void theHadoopTableListsExactlyWhatTheShippedSiteFilesSet() throws IOException {
    Map<String, List<String>> table = doc.table(HADOOP_SECTION);
    List<String> wrong = new ArrayList<>();
    Set<String> set = new TreeSet<>();
    Pattern property = Pattern.compile("<property>\\s*<name>([^<]+)</name>\\s*<value>([^<]*)</value>");
    for (String file : List.of("core-site", "hdfs-site")) {
      String xml = Files.readString(Path.of("conf", file + ".ec-repair.xml")).replaceAll("(?s)<!--.*?-->", "");
      Matcher m = property.matcher(xml);
      int found = 0;
      while (m.find()) {
        found++;
        String name = m.group(1).strip();
        if (name.startsWith("ecrepair.")) {
          if (!keys.containsKey(name)) {
            wrong.add(file + " sets " + name + ", no key of ours");
          }
          continue;
        }
        set.add(name);
        List<String> row = table.get(name);
        if (row == null) {
          wrong.add(file + " sets " + name + ", which the Hadoop table lacks");
        } else if (!row.get(1).equals(file) || !row.get(2).equals("`" + m.group(2).strip() + "`")) {
          wrong.add(name + ": the table says " + row.get(1) + " " + row.get(2) + ", " + file + " sets "
              + m.group(2).strip());
        }
      }
      assertTrue(found > 0, "properties found in " + file);
    }
    for (String name : table.keySet()) {
      if (!set.contains(name)) {
        wrong.add("the Hadoop table lists " + name + ", which no shipped site file sets");
      }
    }
    assertEquals(List.of(), wrong);
  }

  /** The documented {@code ecrepair.} keys, every section but the Hadoop one. */
  private static Set<String> ours() {
    Set<String> names = new TreeSet<>();
    doc.tables.forEach((section, rows) -> {
      if (!section.equals(HADOOP_SECTION)) {
        rows.keySet().stream().filter(n -> n.startsWith("ecrepair.")).forEach(names::add);
      }
    });
    return names;
  }

  /** A documented key, or one ending in dots (a prefix) that is one or starts one at a dot. */
  private static boolean documented(String name) {
    Set<String> ours = ours();
    if (!name.endsWith(".")) {
      return ours.contains(name);
    }
    String base = name.replaceAll("\\.+$", "");
    return ours.contains(base) || ours.stream().anyMatch(k -> k.startsWith(base + "."));
  }

  private static List<String> names(String text) {
    List<String> found = new ArrayList<>();
    Matcher m = NAME.matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }

  private static boolean references(JavaSourceText s, Key k) {
    String cls = k.owner().getSimpleName();
    String field = k.field().getName();
    if (Pattern.compile("\\b" + cls + "\\s*\\.\\s*" + field + "\\b").matcher(s.code).find()) {
      return true;
    }
    String fq = Pattern.quote(k.owner().getName());
    return Pattern.compile("import\\s+static\\s+" + fq + "\\.(" + field + "|\\*)\\s*;").matcher(s.code).find()
        && Pattern.compile("(?<![\\w.])" + field + "\\b").matcher(s.code.replaceAll("import\\s+static[^;]*;", ""))
            .find();
  }

  private static boolean isKeyClass(JavaSourceText s) {
    return KEY_CLASSES.keySet().stream()
        .anyMatch(c -> s.file.equals(SOURCES.resolve(c.getName().replace('.', '/') + ".java")));
  }

  /** Product code that reads Hadoop configuration: the HDFS adapters, not the harness, benchmarks, demo or CLI. */
  private static boolean isProduct(JavaSourceText s) {
    String p = SOURCES.relativize(s.file).toString().replace('\\', '/');
    return p.startsWith("io/ecrepair/hdfs/") || p.startsWith("org/apache/hadoop/");
  }

  private static String constant(Key k) {
    return k.owner().getSimpleName() + "." + k.field().getName();
  }

  @Test
  void theRulesCatchWhatTheyShould() {
    // The scanner: a key in a comment is not a literal; one in a string is, even after -D.
    JavaSourceText t = JavaSourceText.parse(Path.of("X.java"),
        "// \"ecrepair.a\"\n/* \"ecrepair.b\" */ String s = \"-Decrepair.c=1\" + 'x' + \"io.ecrepair.d libecrepair.so\";");
    assertEquals(List.of("-Decrepair.c=1", "io.ecrepair.d libecrepair.so"), t.literals);
    assertEquals(List.of("ecrepair.c"), names(String.join(" ", t.literals)));
    // Prefixes: a family that exists passes, one that does not fails; so does an unknown key.
    assertTrue(documented("ecrepair.datanode.agent."));
    assertTrue(documented(DataNodeKeys.PARALLEL_KEY + "."));
    if (documented("ecrepair.datanode.agen.") || documented("ecrepair.datanode.no-such-key")) {
      fail("an undocumented name passed");
    }
  }
}
