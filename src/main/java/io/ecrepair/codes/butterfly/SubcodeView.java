package io.ecrepair.codes.butterfly;

import java.util.Arrays;

/**
 * One sub-code met in the Butterfly recursion: the data columns {@code firstColumn..k-1} of the
 * alpha x k data array, restricted to some of its rows, listed in the order the sub-code sees
 * them (local row i is global row {@code row(i)}). It is a Butterfly(k - firstColumn) code in
 * its own right.
 *
 * <p>A view of w columns has 2^(w-1) rows. Its first column splits into a top half a and a
 * bottom half b; the remaining columns split into the two sub-codes of the next level:
 * {@link #top()} (the top half of the rows) and {@link #flippedBottom()} (the bottom half read
 * upside down, the "P B" of the paper, P being the flip permutation).
 */
final class SubcodeView {
  private final int[] rows;
  private final int firstColumn;

  private SubcodeView(int[] rows, int firstColumn) {
    this.rows = rows;
    this.firstColumn = firstColumn;
  }

  /** The whole code: rows 0..alpha-1 in order, all columns. */
  static SubcodeView whole(int alpha) {
    int[] rows = new int[alpha];
    Arrays.setAll(rows, i -> i);
    return new SubcodeView(rows, 0);
  }

  /** The global column holding this view's column 0. */
  int firstColumn() {
    return firstColumn;
  }

  int height() {
    return rows.length;
  }

  /** Half the rows: the size of each sub-code of the next level. */
  int half() {
    return rows.length / 2;
  }

  /** True for the one-column, one-row code that ends the recursion. */
  boolean isSingleColumn() {
    return rows.length == 1;
  }

  /** Global row of local row i. */
  int row(int i) {
    return rows[i];
  }

  /** Global row of the local row mirrored across the view: local height-1-i (the flip P). */
  int mirrored(int i) {
    return rows[rows.length - 1 - i];
  }

  /** The next-level sub-code on the top half of the rows (the paper's A). */
  SubcodeView top() {
    return new SubcodeView(Arrays.copyOfRange(rows, 0, half()), firstColumn + 1);
  }

  /** The next-level sub-code on the bottom half of the rows, upside down (the paper's P B). */
  SubcodeView flippedBottom() {
    int h = half();
    int[] flipped = new int[h];
    for (int i = 0; i < h; i++) {
      flipped[i] = rows[rows.length - 1 - i];
    }
    return new SubcodeView(flipped, firstColumn + 1);
  }

  /** The top half of the rows, same columns (for a row-parity step on the first column). */
  SubcodeView topHalf() {
    return new SubcodeView(Arrays.copyOfRange(rows, 0, half()), firstColumn);
  }

  /** The bottom half of the rows in order, same columns. */
  SubcodeView bottomHalf() {
    return new SubcodeView(Arrays.copyOfRange(rows, half(), rows.length), firstColumn);
  }
}
