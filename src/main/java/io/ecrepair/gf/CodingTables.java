package io.ecrepair.gf;

import java.nio.ByteBuffer;

/**
 * A coefficient matrix made ready for one {@link RegionCoder}: for ISA-L the 32-byte
 * expanded tables per coefficient from {@code ec_init_tables}, in a direct buffer.
 * Prepare once per matrix, use for every region.
 */
public final class CodingTables {
  private final GFMatrix matrix;
  private final ByteBuffer isalTables;

  CodingTables(GFMatrix matrix, ByteBuffer isalTables) {
    this.matrix = matrix;
    this.isalTables = isalTables;
  }

  public GFMatrix matrix() {
    return matrix;
  }

  /** Number of input regions. */
  public int inputs() {
    return matrix.cols();
  }

  /** Number of output regions. */
  public int outputs() {
    return matrix.rows();
  }

  ByteBuffer isalTables() {
    return isalTables;
  }
}
