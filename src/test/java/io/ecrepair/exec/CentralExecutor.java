package io.ecrepair.exec;

import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.gf.Buffers;
import io.ecrepair.gf.RegionCoder;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * Tests' evaluator of a whole ECDAG in one place (the "centralized" coloring) over scattered
 * regions: they are gathered into cell rows and the graph runs as a {@link CompiledGraph}. The
 * result maps each repaired (block, subchunk) to its bytes. The product's repairs run graphs
 * through {@link RowLoop} (in one place) or {@link PartRunner} (distributed).
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
    CompiledGraph compiled = CompiledGraph.compile(graph);
    int alpha = graph.subchunkCount();
    int maxBlock = graph.vertices().stream().mapToInt(Ecdag.Vertex::block).max().orElse(-1);
    ByteBuffer[] cells = new ByteBuffer[maxBlock + 1];
    for (Ecdag.Vertex leaf : graph.leaves()) {
      if (cells[leaf.block()] == null) {
        cells[leaf.block()] = Buffers.alignedDirect(Math.max(1, alpha * length));
      }
      Region r = source.read(leaf.block(), leaf.subchunk());
      cells[leaf.block()].put(leaf.subchunk() * length, r.buffer(), r.offset(), length);
    }
    int[] lost = compiled.lostBlocks();
    ByteBuffer[] out = new ByteBuffer[lost.length];
    for (int i = 0; i < lost.length; i++) {
      out[i] = Buffers.alignedDirect(Math.max(1, alpha * length));
    }
    compiled.run(coder, cells, 0, out, 0, length);
    Map<Key, ByteBuffer> result = new HashMap<>();
    for (Ecdag.Vertex v : graph.repaired()) {
      int i = java.util.Arrays.binarySearch(lost, v.block());
      result.put(new Key(v.block(), v.subchunk()), out[i].duplicate().position(v.subchunk() * length).slice()
          .limit(length).slice());
    }
    return result;
  }
}
