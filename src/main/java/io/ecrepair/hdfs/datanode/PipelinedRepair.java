package io.ecrepair.hdfs.datanode;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.ecdag.Ecdag;
import io.ecrepair.hdfs.RepairCatalog;
import io.ecrepair.layout.StripedLayout;
import io.ecrepair.plan.GraphTransforms;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.util.DataTransferThrottler;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.IOUtils;

/**
 * Rebuilds one lost internal block of a scalar code (RS, LRC) by repair pipelining (ECPipe's
 * basic path, {@link io.ecrepair.plan.Pipelines#chain}): the code's repair graph, flattened, is
 * the lost block as a sum of helper blocks times coefficients; the helpers' repair agents form
 * a chain that adds the terms one after another, and this DataNode receives the finished sum
 * from the last one and writes it row by row. No link carries more than one block, where the
 * rebuilding DataNode would otherwise receive as many blocks as there are helpers.
 *
 * <p>When the chain breaks, the rows written so far stay written and the caller goes on from
 * the next row the usual way (every helper read by this DataNode), so a failure costs time,
 * never data.
 */
final class PipelinedRepair {
  /** What the chain achieved: whole rows written, and why it stopped early (null if it did not). */
  record Outcome(int rows, long bytes, long waitNanos, long writeNanos, String failure) {}

  /** How long a load probe of a helper's agent may take. */
  private static final int PROBE_TIMEOUT_MS = 1000;

  private final ReconstructionContext ctx;
  private final ReconstructionOrder order;
  private final DataNodeConnector connector;

  PipelinedRepair(ReconstructionContext ctx, ReconstructionOrder order, DataNodeConnector connector) {
    this.ctx = ctx;
    this.order = order;
    this.connector = connector;
  }

  /** Whether a task may pipeline: agents on, one lost block of a scalar code, no re-decode check asked for. */
  static boolean applies(ReconstructionContext ctx, CodeSpec spec, int lostCount) {
    return ctx.agentPortOffset() > 0 && spec.subPacketization() == 1 && lostCount == 1 && !ctx.validation();
  }

  /**
   * The chain's hops: every helper whose block the repair reads with a nonzero coefficient (the
   * repaired cell as a combination of helper cells, from the cached repair plan) and that holds
   * bytes, rotated by the group id so that groups start their chains on different helpers.
   */
  List<ChainRequest.Hop> hops(CodeSpec spec, int lost, int[] available, Map<Integer, Deque<DatanodeInfo>> sources,
                              StripedLayout layout, long groupLength) throws IOException {
    Ecdag graph = RepairCatalog.plan(spec, new int[] {lost}, available).graph();
    RepairCatalog.prepareSingleLosses(spec);
    if (graph.repaired().size() != 1) {
      throw new IllegalStateException("a scalar repair of one block has one repaired vertex, not " + graph.repaired());
    }
    Map<Integer, Integer> coef = new TreeMap<>();
    GraphTransforms.leafExpressions(graph).get(graph.repaired().get(0).id())
        .forEach((leaf, c) -> coef.put(graph.vertex(leaf).block(), c));
    List<ChainRequest.Hop> hops = new ArrayList<>();
    for (Map.Entry<Integer, Integer> c : coef.entrySet()) {
      int unit = c.getKey();
      long length = layout.internalBlockLength(groupLength, unit);
      if (length == 0) {
        continue; // contributes zeros
      }
      Deque<DatanodeInfo> d = sources.get(unit);
      if (d == null || d.isEmpty()) {
        throw new IllegalStateException("the repair reads internal block " + unit + ", which has no source");
      }
      DatanodeInfo source = d.peekFirst();
      ExtendedBlock block = StripedBlockUtil.constructInternalBlock(order.blockGroup(), layout.cellSize(),
          layout.dataUnits(), unit);
      block.setNumBytes(length);
      InetSocketAddress agent = ctx.agentAddress(source);
      hops.add(new ChainRequest.Hop(unit, agent.getHostString(), source.getXferPort(), agent.getPort(),
          block.getBlockId(), block.getGenerationStamp(), length, c.getValue(), connector.token(block)));
    }
    if (!hops.isEmpty()) {
      java.util.Collections.rotate(hops, (int) Math.floorMod(order.blockGroup().getBlockId(), (long) hops.size()));
    }
    busiestFirst(hops);
    return hops;
  }

  /**
   * Every hop of a chain but the head receives one block; the head receives nothing. So the
   * head's place goes to the helper whose agent still expects the most bytes from other chains
   * (asked in parallel, a short wait; one that does not answer counts as idle). The DataNodes
   * forming chains at the same time see each other's chains, so the busiest downlinks are
   * spared, without any node knowing the whole recovery.
   */
  private void busiestFirst(List<ChainRequest.Hop> hops) {
    if (hops.size() < 2) {
      return;
    }
    int timeout = PROBE_TIMEOUT_MS;
    List<java.util.concurrent.Future<Long>> loads = new ArrayList<>();
    for (ChainRequest.Hop h : hops) {
      loads.add(ctx.readPool().submit(() -> RepairAgent.inboundLoad(h, timeout)));
    }
    int best = 0;
    long bestLoad = 0;
    for (int i = 0; i < hops.size(); i++) {
      long load;
      try {
        load = loads.get(i).get(2L * timeout, java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        load = -1;
        loads.get(i).cancel(true);
      }
      if (load > bestLoad) {
        best = i;
        bestLoad = load;
      }
    }
    if (best > 0) {
      hops.add(0, hops.remove(best));
    }
  }

  /**
   * Streams the lost block {@code lost} from the chain into {@code writer} (opened here with
   * the DataNode's default checksum), whole rows at a time.
   *
   * @throws IOException when the target cannot be written (the chain's failures end in an Outcome)
   */
  Outcome run(List<ChainRequest.Hop> hops, int lost, StripedLayout layout, long groupLength, TargetWriter writer)
      throws IOException {
    int cellSize = layout.cellSize();
    long length = layout.internalBlockLength(groupLength, lost);
    int slice = ctx.pipelineSliceBytes();
    ChainRequest req = new ChainRequest(order.blockGroup().getBlockPoolId(), length, slice, hops);
    byte[] in = new byte[slice];
    byte[] row = new byte[cellSize];
    int rowFill = 0;
    int rowsDone = 0;
    long written = 0;
    long wait = 0;
    long write = 0;
    DataTransferThrottler throttle = ctx.datanode().getEcReconstuctWriteThrottler();
    Socket s = null;
    try {
      long t0 = System.nanoTime();
      s = RepairAgent.open(req, req.firstSliceMillis(ctx.stallMillis()), ctx.datanode().getDnConf().getSocketTimeout());
      DataInputStream chain = new DataInputStream(new BufferedInputStream(s.getInputStream(), 128 * 1024));
      String from = req.self().toString();
      for (long pos = 0; pos < length; pos += slice) {
        int len = (int) Math.min(slice, length - pos);
        ChainFrames.readData(chain, in, len, from);
        if (pos == 0) {
          s.setSoTimeout((int) ctx.stallMillis());
        }
        long t1 = System.nanoTime();
        wait += t1 - t0;
        int used = 0;
        while (used < len) {
          int rowLength = layout.cellLength(groupLength, rowsDone, lost);
          int n = Math.min(len - used, rowLength - rowFill);
          System.arraycopy(in, used, row, rowFill, n);
          used += n;
          rowFill += n;
          if (rowFill == rowLength) {
            if (!writer.isOpen()) {
              writer.open(ctx.defaultChecksum());
            }
            if (throttle != null) {
              throttle.throttle(rowLength);
            }
            writer.write(ByteBuffer.wrap(row, 0, rowLength));
            written += rowLength;
            rowsDone++;
            rowFill = 0;
          }
        }
        t0 = System.nanoTime();
        write += t0 - t1;
      }
      ChainFrames.readEnd(chain, from);
      return new Outcome(rowsDone, written, wait, write, null);
    } catch (ChainFrames.ChainFailure f) {
      return new Outcome(rowsDone, written, wait, write, f.getMessage());
    } finally {
      IOUtils.closeSocket(s);
    }
  }
}
