package io.ecrepair.codes.clay;

import io.ecrepair.gf.GF256;
import io.ecrepair.gf.GFMatrix;

/**
 * The coupling of a vertex pair (p, p*) (paper, section 3): with gamma the coupling
 * coefficient,
 * <pre>
 *   [U  ]   [1 g] [C  ]                      [C  ]   [1 g]^-1 [U  ]
 *   [U* ] = [g 1] [C* ]   (reverse, PRT)     [C* ] = [g 1]    [U* ]   (forward, PFT)
 * </pre>
 * U are the bytes of the uncoupled code (alpha layers of the base MDS code), C the stored
 * (coupled) bytes. The paper calls U -> C the pairwise <em>forward</em> transform and C -> U
 * the pairwise <em>reverse</em> transform; the method names below say the direction.
 *
 * <p>gamma = 2 (the generator of GF(2^8)*): gamma != 0 and gamma^2 = 4 != 1, so the matrix
 * is invertible and any two of {U, U*, C, C*} determine the other two. Every coefficient
 * the coding steps use is derived here.
 */
public final class PairwiseTransform {
  /** The coupling coefficient. */
  public static final byte GAMMA = 2;

  private static final byte ONE = 1;
  /** 1 + gamma^2 (addition is XOR). */
  private static final byte DET = (byte) (1 ^ GF256.mul(GAMMA, GAMMA));
  private static final byte INV_DET = GF256.inv(DET);
  private static final byte INV_GAMMA = GF256.inv(GAMMA);

  private PairwiseTransform() {}

  /** PRT as a matrix on (C, C*) giving (U, U*). */
  public static GFMatrix uncoupledFromCoupled() {
    return new GFMatrix(2, 2, new byte[] {ONE, GAMMA, GAMMA, ONE});
  }

  /** PFT as a matrix on (U, U*) giving (C, C*). */
  public static GFMatrix coupledFromUncoupled() {
    byte g = GF256.mul(GAMMA, INV_DET);
    return new GFMatrix(2, 2, new byte[] {INV_DET, g, g, INV_DET});
  }

  // ---- U of a known node: U = own * C + companion * (C* or U*) ----

  /** U(p) = C(p) + gamma C(p*): coefficient of C(p*) when both C are known. */
  public static byte companionCoupled() {
    return GAMMA;
  }

  /**
   * When p* is erased but U(p*) is known (an earlier layer): U(p) = (1 + gamma^2) C(p) +
   * gamma U(p*). This is the coefficient of C(p).
   */
  public static byte ownWhenCompanionUncoupled() {
    return DET;
  }

  /** ... and this the coefficient of U(p*). */
  public static byte companionUncoupled() {
    return GAMMA;
  }

  // ---- C of an erased node from its U ----

  /** C(p) = (U(p) + gamma U(p*)) / (1 + gamma^2): coefficient of U(p). */
  public static byte coupledOwnFromUncoupledPair() {
    return INV_DET;
  }

  /** ... and of U(p*). */
  public static byte coupledCompanionFromUncoupledPair() {
    return GF256.mul(GAMMA, INV_DET);
  }

  /** C(p) = U(p) + gamma C(p*) when C(p*) is known: coefficient of C(p*). */
  public static byte coupledFromUncoupledAndCompanion() {
    return GAMMA;
  }

  // ---- repair: the lost node is the companion p* of a helper p of its y-section ----

  /**
   * C(p*) = (U(p) + C(p)) / gamma: the coefficient 1/gamma applied to both U(p) and C(p).
   */
  public static byte companionFromUncoupledAndCoupled() {
    return INV_GAMMA;
  }
}
