package io.ecrepair.codes.butterfly;

import io.ecrepair.codes.CellLayout;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.codes.rs.ReedSolomonCode;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Butterfly codes (Pamies-Juarez, Blagojevic, Mateescu, Guyot, En Gad, Bandic, "Opening the
 * Chrysalis: On the Real Repair Performance of MSR Codes", FAST'16): an MDS array code with
 * k data units and two parities (n = k+2), sub-packetization alpha = 2^(k-1), built
 * recursively with XOR only (every coefficient is 0 or 1, valid in GF(2^8) as it is).
 *
 * <p>Units: data 0..k-1; unit k is the horizontal parity H, H[r] = XOR of sub-chunk r of every
 * data unit; unit k+1 is the butterfly parity B, defined by the recursion written out in
 * {@link ButterflyParity} (B of k columns from B of k-1 columns on the top half of the rows and
 * on the flipped bottom half). A cell of length L is laid out by {@link CellLayout}: alpha
 * sub-chunks of s = floor(L/alpha) bytes coded as above, and a tail of L - alpha*s bytes coded
 * byte-wise by the systematic {@link ReedSolomonCode} RS(k+2, k) (same units: H and B hold RS
 * parities 0 and 1 in their tail).
 *
 * <h2>Repair of one unit from the other k+1 ({@link #repairSubchunks(int, int)})</h2>
 * <ul>
 *   <li>a data unit: alpha/2 sub-chunks from each of the k+1 helpers, (k+1)*alpha/2 in all, the
 *       MSR optimum (RS reads k*alpha). Unit 0 reads one run (the top half); unit c reads
 *       2^(c-1)+1 runs; the innermost unit k-1 reads every other sub-chunk (the even ones from
 *       the data and H, the odd ones from B);
 *   <li>H: the bottom half (alpha/2 sub-chunks) of every helper, also (k+1)*alpha/2: optimal;
 *   <li>B: re-encoded from the k data units, k*alpha sub-chunks, as RS. An exhaustive search
 *       over all read sets for k = 2 and 3 (during design) found no cheaper repair of B with
 *       this construction.
 * </ul>
 * Against the paper: it is about the optimal repair of the data nodes, which this keeps (same
 * counts, helpers send without computing); for the parities it gives no optimal repair, and
 * the H parity is the one usually cited as not bandwidth-optimal. With this construction H is
 * in fact repaired optimally: by the recursion, B[alpha-1-g] = H[g] + (sub-chunks of rows
 * alpha/2..alpha-1 only) for every top row g, so the bottom halves of the data and of B give
 * the bottom half of H directly and its top half through B. Only B needs k*alpha, the cost of
 * re-encoding (and of RS); the direct {@link #repair} does exactly that with the encoder.
 *
 * <p>Helpers send stored sub-chunks unchanged (repair by transfer); the rebuilding node XORs.
 * Thread-safe; compiled programs and graphs are cached per erasure pattern.
 */
public final class ButterflyCode implements RepairableCode {
  public static final int MIN_K = 2;
  /** n = k+2 <= 16 units. */
  public static final int MAX_K = 14;

  private final int k;
  private final int alpha;
  private final RegionCoder coder;
  private final ReedSolomonCode tailCode;
  private final ButterflyParity parities;
  private volatile EncodePlan encodePlan;
  private final Map<Integer, Ecdag> repairGraphs = new ConcurrentHashMap<>();
  private final Map<Integer, UnitProgram> repairPrograms = new ConcurrentHashMap<>();
  private final Map<Integer, UnitProgram> decodePrograms = new ConcurrentHashMap<>();

  public ButterflyCode(int k, RegionCoder coder) {
    if (k < MIN_K || k > MAX_K) {
      throw new IllegalArgumentException("Butterfly needs " + MIN_K + " <= k <= " + MAX_K
          + " data units (n = k+2 <= 16, alpha = 2^(k-1)), got k=" + k);
    }
    this.k = k;
    this.alpha = 1 << (k - 1);
    this.coder = coder;
    this.tailCode = new ReedSolomonCode(k, 2, coder);
    this.parities = new ButterflyParity(k);
  }

  @Override
  public String name() {
    return "Butterfly(" + (k + 2) + "," + k + ")";
  }

  @Override
  public int dataUnits() {
    return k;
  }

  @Override
  public int parityUnits() {
    return 2;
  }

  @Override
  public int subPacketization() {
    return alpha;
  }

  /** Sub-chunks per unit: 2^(k-1). */
  public int alpha() {
    return alpha;
  }

  /** The unit holding the horizontal parity H: k. */
  public int horizontalParityUnit() {
    return k;
  }

  /** The unit holding the butterfly parity B: k+1. */
  public int butterflyParityUnit() {
    return k + 1;
  }

  /** The base MDS code of the byte-wise tail of a cell. */
  public ReedSolomonCode tailCode() {
    return tailCode;
  }

  /**
   * The vector part by {@link EncodePlan}: a short chain of long XORs over whole units (ending
   * with H) and one compiled program for the B rows; the tail by RS.
   */
  @Override
  public void encode(ByteBuffer[] data, int[] dataOff, ByteBuffer[] parity, int[] parityOff, int len) {
    if (data.length != k || dataOff.length < k || parity.length != 2 || parityOff.length < 2) {
      throw new IllegalArgumentException(name() + " encodes " + k + " data units into 2 parities, got "
          + data.length + " and " + parity.length);
    }
    CellLayout layout = new CellLayout(alpha, len);
    int s = layout.subchunkBytes();
    if (s > 0) {
      ByteBuffer[] units = Arrays.copyOf(data, k + 2);
      int[] bases = Arrays.copyOf(dataOff, k + 2);
      units[k] = parity[0];
      bases[k] = parityOff[0];
      units[k + 1] = parity[1];
      bases[k + 1] = parityOff[1];
      encodePlan().encode(coder, units, bases, s);
    }
    if (layout.tailBytes() > 0) {
      tailCode.encode(data, shifted(dataOff, k, layout.tailOffset()), parity,
          shifted(parityOff, 2, layout.tailOffset()), layout.tailBytes());
    }
  }

  /**
   * Rebuilds any one or two missing units (null entries of {@code units}); wanted units that
   * are present are copied. More than two missing units throw {@link UndecodableException}.
   */
  @Override
  public void decode(ByteBuffer[] units, int[] unitOff, int[] wanted, ByteBuffer[] out, int[] outOff, int len) {
    int n = k + 2;
    if (units.length != n || unitOff.length < n) {
      throw new IllegalArgumentException(name() + " takes " + n + " unit slots, got " + units.length);
    }
    if (wanted.length != out.length || outOff.length < out.length) {
      throw new IllegalArgumentException(wanted.length + " wanted units but " + out.length + " outputs");
    }
    int erasedMask = 0;
    for (int u = 0; u < n; u++) {
      if (units[u] == null) {
        erasedMask |= 1 << u;
      }
    }
    int outMask = 0;
    for (int w : wanted) {
      checkUnit(w);
      if ((outMask & 1 << w) != 0) {
        throw new IllegalArgumentException("unit " + w + " is wanted twice");
      }
      outMask |= 1 << w;
    }
    if (Integer.bitCount(erasedMask) > 2) {
      throw new UndecodableException(name() + " survives two missing units, " + Integer.bitCount(erasedMask)
          + " are missing");
    }
    int rebuildMask = outMask & erasedMask;
    for (int i = 0; i < wanted.length; i++) {
      if ((rebuildMask & 1 << wanted[i]) == 0) {
        out[i].put(outOff[i], units[wanted[i]], unitOff[wanted[i]], len);
      }
    }
    if (rebuildMask == 0) {
      return;
    }
    CellLayout layout = new CellLayout(alpha, len);
    int s = layout.subchunkBytes();
    if (s > 0) {
      ByteBuffer[] bufs = Arrays.copyOf(units, n);
      int[] bases = Arrays.copyOf(unitOff, n);
      for (int i = 0; i < wanted.length; i++) {
        if ((rebuildMask & 1 << wanted[i]) != 0) {
          bufs[wanted[i]] = out[i];
          bases[wanted[i]] = outOff[i];
        }
      }
      int em = erasedMask;
      int rm = rebuildMask;
      decodePrograms.computeIfAbsent(em | rm << 16,
          key -> UnitProgram.compile(ErasureDecoder.graph(parities, units(em), units(rm)), n))
          .run(coder, bufs, bases, s);
    }
    if (layout.tailBytes() > 0) {
      int[] rebuild = units(rebuildMask);
      ByteBuffer[] tailOut = new ByteBuffer[rebuild.length];
      int[] tailOutOff = new int[rebuild.length];
      for (int i = 0; i < wanted.length; i++) {
        if ((rebuildMask & 1 << wanted[i]) != 0) {
          int j = Arrays.binarySearch(rebuild, wanted[i]);
          tailOut[j] = out[i];
          tailOutOff[j] = outOff[i] + layout.tailOffset();
        }
      }
      tailCode.decode(units, shifted(unitOff, n, layout.tailOffset()), rebuild, tailOut, tailOutOff,
          layout.tailBytes());
    }
  }

  /**
   * Rebuilds unit {@code lost} into {@code out} reading from each helper u only the sub-chunks
   * {@link #repairSubchunks(int, int) repairSubchunks(lost, u)} (and the tail bytes of k
   * helpers, through RS). {@code units[lost]} is ignored. When a helper the repair needs is
   * missing (null), falls back to {@link #decode}.
   */
  public void repair(int lost, ByteBuffer[] units, int[] unitOff, ByteBuffer out, int outOff, int len) {
    int n = k + 2;
    checkUnit(lost);
    if (units.length != n || unitOff.length < n) {
      throw new IllegalArgumentException(name() + " takes " + n + " unit slots, got " + units.length);
    }
    ByteBuffer[] helpers = Arrays.copyOf(units, n);
    helpers[lost] = null;
    for (int u = 0; u < n; u++) {
      if (u != lost && helpers[u] == null && repairSubchunks(lost, u).length > 0) {
        decode(helpers, unitOff, new int[] {lost}, new ByteBuffer[] {out}, new int[] {outOff}, len);
        return;
      }
    }
    CellLayout layout = new CellLayout(alpha, len);
    int s = layout.subchunkBytes();
    if (s > 0 && lost == k + 1) {
      // B reads the k data units whatever: re-encode it the fast way, H into scratch.
      ByteBuffer[] bufs = Arrays.copyOf(helpers, n);
      int[] bases = Arrays.copyOf(unitOff, n);
      bufs[k] = null;
      bufs[lost] = out;
      bases[lost] = outOff;
      encodePlan().encode(coder, bufs, bases, s);
    } else if (s > 0) {
      ByteBuffer[] bufs = Arrays.copyOf(helpers, n);
      int[] bases = Arrays.copyOf(unitOff, n);
      bufs[lost] = out;
      bases[lost] = outOff;
      repairPrograms.computeIfAbsent(lost, u -> UnitProgram.compile(singleNodeGraph(u), n))
          .run(coder, bufs, bases, s);
    }
    if (layout.tailBytes() > 0) {
      tailCode.decode(helpers, shifted(unitOff, n, layout.tailOffset()), new int[] {lost},
          new ByteBuffer[] {out}, new int[] {outOff + layout.tailOffset()}, layout.tailBytes());
    }
  }

  /**
   * The sub-chunks each helper sends to repair {@code lost} alone: for a data unit or H, the
   * alpha/2 sub-chunks every data helper and H send (B sends the complementary set when lost =
   * k-1, see {@link #repairSubchunks(int, int)}); for B, all alpha sub-chunks of each data unit.
   */
  public int[] repairSubchunks(int lost) {
    checkUnit(lost);
    return SingleNodeRepair.subchunks(k, lost, lost == 0 ? 1 : 0);
  }

  /** The sub-chunks {@code helper} sends to repair {@code lost} alone (ascending, maybe empty). */
  public int[] repairSubchunks(int lost, int helper) {
    checkUnit(lost);
    checkUnit(helper);
    if (helper == lost) {
      throw new IllegalArgumentException("unit " + lost + " cannot help its own repair");
    }
    return SingleNodeRepair.subchunks(k, lost, helper);
  }

  /**
   * One lost unit with every other unit available: the single-node repair graph (for a data
   * unit or H it reads exactly (n-1)*alpha/2 sub-chunks). Otherwise the decoding graph of the
   * missing units (all units not in {@code available}), rebuilding {@code lost}.
   */
  @Override
  public Ecdag repairGraph(int[] lost, int[] available) {
    int erasedMask = erasedMask(lost, available);
    if (lost.length == 1 && Integer.bitCount(erasedMask) == 1) {
      return singleNodeGraph(lost[0]);
    }
    return ErasureDecoder.graph(parities, units(erasedMask), lost.clone());
  }

  /** The tail is RS(k+2, k): any k available units, one sub-chunk standing for the tail bytes. */
  @Override
  public Ecdag tailRepairGraph(int[] lost, int[] available) {
    erasedMask(lost, available);
    return tailCode.repairGraph(lost, available);
  }

  private Ecdag singleNodeGraph(int lost) {
    return repairGraphs.computeIfAbsent(lost, u -> SingleNodeRepair.graph(parities, u));
  }

  private EncodePlan encodePlan() {
    EncodePlan p = encodePlan;
    if (p == null) {
      p = EncodePlan.choose(parities, coder);
      encodePlan = p;
    }
    return p;
  }

  /** Validates a (lost, available) pair and returns the mask of units not available. */
  private int erasedMask(int[] lost, int[] available) {
    int n = k + 2;
    if (lost.length == 0) {
      throw new IllegalArgumentException("nothing to repair");
    }
    int availableMask = 0;
    for (int a : available) {
      checkUnit(a);
      availableMask |= 1 << a;
    }
    int lostMask = 0;
    for (int l : lost) {
      checkUnit(l);
      if ((availableMask & 1 << l) != 0 || (lostMask & 1 << l) != 0) {
        throw new IllegalArgumentException("unit " + l + " is lost twice or also available");
      }
      lostMask |= 1 << l;
    }
    int erased = ((1 << n) - 1) & ~availableMask;
    if (Integer.bitCount(erased) > 2) {
      throw new UndecodableException(name() + " needs " + k + " of its " + n + " units, only "
          + Integer.bitCount(availableMask) + " available");
    }
    return erased;
  }

  private void checkUnit(int u) {
    if (u < 0 || u >= k + 2) {
      throw new IllegalArgumentException("unit " + u + " is outside 0.." + (k + 1));
    }
  }

  private static int[] units(int mask) {
    int[] u = new int[Integer.bitCount(mask)];
    for (int i = 0, j = 0; j < u.length; i++) {
      if ((mask & 1 << i) != 0) {
        u[j++] = i;
      }
    }
    return u;
  }

  private static int[] shifted(int[] off, int count, int by) {
    int[] r = new int[count];
    for (int i = 0; i < count; i++) {
      r[i] = off[i] + by;
    }
    return r;
  }
}
