package io.ecrepair.exec;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.GFMatrix;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a whole ECDAG in one place (the "centralized" coloring): every vertex is computed
 * here from its inputs, in id order. Leaves come from {@link SubchunkSource}; the result maps
 * each repaired (block, subchunk) to its bytes.
 */
public final class CentralExecutor {
  private final RegionCoder coder;

  public CentralExecutor(RegionCoder coder) {
    this.coder = coder;
  }

  /** Gives the bytes of a stored sub-chunk: buffer and offset of {@code length} bytes. */
  public interface SubchunkSource {
    Region read(int block, int subchunk);
  }

  /** {@code length} bytes of a buffer starting at {@code offset}. */
  public record Region(ByteBuffer buffer, int offset) {}

  /** A rebuilt sub-chunk. */
  public record Key(int block, int subchunk) {}

  /** Computes every vertex over regions of {@code length} bytes. */
  public Map<Key, ByteBuffer> run(Ecdag graph, SubchunkSource source, int length) {
    List<Ecdag.Vertex> vertices = graph.vertices();
    Region[] value = new Region[vertices.size()];
    Map<Key, ByteBuffer> out = new HashMap<>();
    for (Ecdag.Vertex v : vertices) {
      switch (v.kind()) {
        case LEAF -> value[v.id()] = source.read(v.block(), v.subchunk());
        case INNER, REPAIRED -> {
          value[v.id()] = new Region(combine(graph.inputs(v.id()), value, length), 0);
          if (v.kind() == Ecdag.Kind.REPAIRED) {
            out.put(new Key(v.block(), v.subchunk()), value[v.id()].buffer());
          }
        }
        case ROOT -> { }
      }
    }
    return out;
  }

  private ByteBuffer combine(List<Ecdag.Edge> in, Region[] value, int length) {
    ByteBuffer[] bufs = new ByteBuffer[in.size()];
    int[] offs = new int[in.size()];
    byte[] coefs = new byte[in.size()];
    for (int i = 0; i < in.size(); i++) {
      Region r = value[in.get(i).from()];
      bufs[i] = r.buffer();
      offs[i] = r.offset();
      coefs[i] = (byte) in.get(i).coef();
    }
    ByteBuffer result = ByteBuffer.allocateDirect(Math.max(1, length));
    coder.encode(coder.prepare(new GFMatrix(1, in.size(), coefs)), bufs, offs,
        new ByteBuffer[] {result}, new int[1], length, false);
    return result;
  }
}
