package io.ecrepair.codes.butterfly;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.CodingTables;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How the vector part of a stripe is encoded, in two named steps.
 *
 * <ol>
 *   <li><b>Suffix chain</b>: a few long XORs over whole units compute the suffix sums
 *       S_q = D_q + D_{q+1} + ... + D_{k-1} at some anchor depths q, each from the data
 *       columns since the previous anchor plus that anchor's sum; the last link is S_0 = H.
 *       These calls stream whole units, as fast as memory allows.
 *   <li><b>Butterfly rows</b>: one compiled program computes every B row as an XOR of
 *       sub-chunks. The recursion of {@link ButterflyParity} puts one partial horizontal
 *       parity S_d of some row into half of the B rows at every depth d; each is taken from
 *       the nearest anchor (S_q plus the columns between q and d) or from the data.
 * </ol>
 *
 * The B rows read scattered sub-chunks (the flips), so they cost more per byte than the
 * streaming chain: the anchors are chosen to minimise (bytes streamed) + 2.5 x (sub-chunks
 * the B rows read), measured on ISA-L (for k = 10: anchors at depths 3 and 6, 13 reads per
 * B row instead of 20 with H alone or 32.5 from the data alone).
 */
final class EncodePlan {
  private static final double SCATTERED_READ_COST = 2.5;

  private final int k;
  private final int alpha;
  /** Anchor depths, descending (without depth 0, which is H). */
  private final int[] anchors;
  private final CodingTables[] linkTables;
  /** Per chain link: the data columns it adds (from, to) and whether it adds the previous anchor. */
  private final int[][] linkColumns;
  private final UnitProgram rows;
  private final ThreadLocal<ByteBuffer> scratch = new ThreadLocal<>();

  private EncodePlan(ButterflyParity parity, RegionCoder coder, int[] anchors) {
    this.k = parity.dataUnits();
    this.alpha = parity.alpha();
    this.anchors = anchors;
    int links = anchors.length + 1;
    this.linkTables = new CodingTables[links];
    this.linkColumns = new int[links][];
    int prev = k;
    for (int i = 0; i < links; i++) {
      int depth = i < anchors.length ? anchors[i] : 0;
      int inputs = prev - depth + (i > 0 ? 1 : 0);
      byte[] ones = new byte[inputs];
      Arrays.fill(ones, (byte) 1);
      linkTables[i] = coder.prepare(new GFMatrix(1, inputs, ones));
      linkColumns[i] = new int[] {depth, prev};
      prev = depth;
    }
    int[] suffixUnits = new int[k];
    Arrays.fill(suffixUnits, -1);
    suffixUnits[0] = k;
    for (int i = 0; i < anchors.length; i++) {
      suffixUnits[anchors[i]] = anchorUnit(i);
    }
    int[][] terms = parity.butterfly(SubcodeView.whole(alpha), suffixUnits);
    Ecdag.Builder g = Ecdag.builder(alpha);
    Leaves leaf = new Leaves(g, anchorUnit(anchors.length), alpha);
    for (int r = 0; r < alpha; r++) {
      Xor x = new Xor();
      for (int t : terms[r]) {
        x.add(leaf.of(parity.unitOf(t), parity.rowOf(t)));
      }
      x.repaired(g, k + 1, r);
    }
    this.rows = UnitProgram.compile(g.build(), anchorUnit(anchors.length));
  }

  /** The plan with the cheapest anchors for this k under the cost model above. */
  static EncodePlan choose(ButterflyParity parity, RegionCoder coder) {
    int k = parity.dataUnits();
    int[] best = new int[0];
    double bestCost = cost(k, best);
    int depths = Math.max(0, k - 2); // candidate anchors 1..k-2
    for (int mask = 1; mask < 1 << depths; mask++) {
      int[] a = new int[Integer.bitCount(mask)];
      for (int d = depths, i = 0; d >= 1; d--) {
        if ((mask & 1 << (d - 1)) != 0) {
          a[i++] = d;
        }
      }
      double c = cost(k, a);
      if (c < bestCost - 1e-9) {
        best = a;
        bestCost = c;
      }
    }
    return new EncodePlan(parity, coder, best);
  }

  /** Estimated work per row: units streamed by the chain plus weighted B-row reads. */
  static double cost(int k, int[] descendingAnchors) {
    double streamed = 0;
    int prev = k;
    for (int i = 0; i <= descendingAnchors.length; i++) {
      int depth = i < descendingAnchors.length ? descendingAnchors[i] : 0;
      streamed += prev - depth + (i > 0 ? 1 : 0) + 1; // inputs + the written sum
      prev = depth;
    }
    double reads = 1; // the innermost column's single sub-chunk
    for (int d = 0; d <= k - 2; d++) {
      int partial = k - d;
      partial = Math.min(partial, d + 1); // from H
      for (int q : descendingAnchors) {
        partial = Math.min(partial, Math.abs(d - q) + 1);
      }
      reads += 0.5 + 0.5 * partial; // half the rows read one data sub-chunk, half a partial parity
    }
    return streamed + SCATTERED_READ_COST * reads;
  }

  /**
   * Encodes sub-chunks of s bytes: units[0..k-1] data (read), units[k] H and units[k+1] B
   * (written; H may be null when only B is wanted).
   */
  void encode(RegionCoder coder, ByteBuffer[] units, int[] bases, int s) {
    int len = alpha * s;
    int sums = anchors.length + (units[k] == null ? 1 : 0);
    ByteBuffer tmp = sums == 0 ? null : scratch(sums * len, units[0].isDirect());
    int total = anchorUnit(anchors.length);
    ByteBuffer[] all = Arrays.copyOf(units, total);
    int[] allBases = Arrays.copyOf(bases, total);
    for (int i = 0; i < anchors.length; i++) {
      all[anchorUnit(i)] = tmp;
      allBases[anchorUnit(i)] = i * len;
    }
    if (all[k] == null) {
      all[k] = tmp;
      allBases[k] = anchors.length * len;
    }
    // Suffix chain: S_{anchor 0}, S_{anchor 1}, ..., H.
    for (int i = 0; i <= anchors.length; i++) {
      List<ByteBuffer> in = new ArrayList<>();
      List<Integer> inOff = new ArrayList<>();
      for (int c = linkColumns[i][0]; c < linkColumns[i][1]; c++) {
        in.add(all[c]);
        inOff.add(allBases[c]);
      }
      if (i > 0) {
        in.add(all[anchorUnit(i - 1)]);
        inOff.add(allBases[anchorUnit(i - 1)]);
      }
      int out = i < anchors.length ? anchorUnit(i) : k;
      coder.encode(linkTables[i], in.toArray(new ByteBuffer[0]), inOff.stream().mapToInt(Integer::intValue).toArray(),
          new ByteBuffer[] {all[out]}, new int[] {allBases[out]}, len, false);
    }
    // Butterfly rows.
    rows.run(coder, all, allBases, s);
  }

  /** Anchor i is the pseudo-unit k+2+i of the row program. */
  private int anchorUnit(int i) {
    return k + 2 + i;
  }

  private ByteBuffer scratch(int size, boolean direct) {
    if (!direct) {
      return ByteBuffer.allocate(size);
    }
    ByteBuffer b = scratch.get();
    if (b == null || b.capacity() < size) {
      b = Buffers.alignedDirect(size);
      scratch.set(b);
    }
    return b;
  }
}
