package io.ecrepair.codes.butterfly;

import io.ecrepair.ecdag.Ecdag;
import java.util.Arrays;

/**
 * An XOR of graph vertices that is not (yet) a vertex itself: a value being assembled while a
 * Butterfly graph is built. A vertex added twice cancels when the value becomes a vertex (the
 * graph builder merges repeated inputs).
 */
final class Xor {
  /** ISA-L takes at most 256 inputs per product; longer sums are split through inner vertices. */
  private static final int MAX_INPUTS = 255;

  private int[] ids;
  private int size;

  Xor() {
    ids = new int[8];
  }

  static Xor of(int vertex) {
    return new Xor().add(vertex);
  }

  Xor add(int vertex) {
    if (size == ids.length) {
      ids = Arrays.copyOf(ids, 2 * size);
    }
    ids[size++] = vertex;
    return this;
  }

  Xor addAll(Xor other) {
    for (int i = 0; i < other.size; i++) {
      add(other.ids[i]);
    }
    return this;
  }

  Xor copy() {
    Xor x = new Xor();
    x.ids = Arrays.copyOf(ids, Math.max(8, size));
    x.size = size;
    return x;
  }

  /** This value as one vertex: an inner vertex, or the vertex itself for a single input. */
  int vertex(Ecdag.Builder g) {
    int[] in = fitted(g);
    return g.combine(in, ones(in.length));
  }

  /** This value as the rebuilt sub-chunk (unit, subchunk). */
  int repaired(Ecdag.Builder g, int unit, int subchunk) {
    int[] in = fitted(g);
    return g.repaired(unit, subchunk, in, ones(in.length));
  }

  /** The inputs, folding all but the last MAX_INPUTS - 1 into inner vertices if there are too many. */
  private int[] fitted(Ecdag.Builder g) {
    int[] in = Arrays.copyOf(ids, size);
    while (in.length > MAX_INPUTS) {
      int[] head = Arrays.copyOf(in, MAX_INPUTS);
      int folded = g.combine(head, ones(head.length));
      int[] rest = new int[in.length - MAX_INPUTS + 1];
      rest[0] = folded;
      System.arraycopy(in, MAX_INPUTS, rest, 1, in.length - MAX_INPUTS);
      in = rest;
    }
    return in;
  }

  private static int[] ones(int n) {
    int[] c = new int[n];
    Arrays.fill(c, 1);
    return c;
  }
}
