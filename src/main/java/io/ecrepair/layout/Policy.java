package io.ecrepair.layout;

import io.ecrepair.codes.CodeSpec;
import java.util.Locale;

/**
 * An HDFS erasure-coding policy as its name spells it, {@code CODEC-k-m-<cell>k}, with the
 * checks the NameNode's {@code addErasureCodingPolicies} makes
 * (docs/architecture.md#what-hdfs-offers-a-plugin), so a policy this class accepts is one HDFS accepts.
 */
public record Policy(CodeSpec code, int cellSize) {
  /** HDFS keeps the block index in 4 bits of the block id. */
  public static final int MAX_UNITS = 16;
  /** {@code dfs.namenode.ec.policies.max.cellsize} default. */
  public static final int MAX_CELL_SIZE = 4 * 1024 * 1024;

  public Policy {
    if (code.n() > MAX_UNITS) {
      throw new IllegalArgumentException("k+m = " + code.n() + " exceeds " + MAX_UNITS
          + ": HDFS stores the internal block index in 4 bits");
    }
    if (cellSize <= 0 || cellSize % 1024 != 0) {
      throw new IllegalArgumentException("cell size " + cellSize + " is not a positive multiple of 1024");
    }
    if (cellSize > MAX_CELL_SIZE) {
      throw new IllegalArgumentException("cell size " + cellSize + " exceeds HDFS's default maximum " + MAX_CELL_SIZE
          + " (dfs.namenode.ec.policies.max.cellsize)");
    }
  }

  /** Parses e.g. {@code RS-6-3-1024k}; the codec part may itself contain dashes. */
  public static Policy parse(String name) {
    String[] t = name.trim().split("-");
    if (t.length < 4) {
      throw new IllegalArgumentException("policy '" + name + "' is not of the form CODEC-k-m-<cell>k, e.g. RS-6-3-1024k");
    }
    int k = parseInt(t[t.length - 3], "k", name);
    int m = parseInt(t[t.length - 2], "m", name);
    String cell = t[t.length - 1].toLowerCase(Locale.ROOT);
    if (!cell.endsWith("k")) {
      throw new IllegalArgumentException("policy '" + name + "': cell size must end in k (KiB), e.g. 1024k");
    }
    long cellKiB = parseInt(cell.substring(0, cell.length() - 1), "cell size", name);
    if (cellKiB * 1024 > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("policy '" + name + "': cell size too large");
    }
    String codec = String.join("-", java.util.Arrays.copyOf(t, t.length - 3));
    return new Policy(new CodeSpec(codec, k, m), (int) cellKiB * 1024);
  }

  private static int parseInt(String s, String what, String name) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("policy '" + name + "': " + what + " '" + s + "' is not a number");
    }
  }

  /** The same code with another cell size. */
  public Policy withCellSize(int newCellSize) {
    return new Policy(code, newCellSize);
  }

  /** The name HDFS gives this policy ({@code ErasureCodingPolicy.composePolicyName}). */
  public String name() {
    return code.codec().toUpperCase(Locale.ROOT) + "-" + code.k() + "-" + code.m() + "-" + cellSize / 1024 + "k";
  }

  @Override
  public String toString() {
    return name();
  }
}
