package io.ecrepair.bench.cluster;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * The single-block race on an idle cluster (ECPipe: repair close to a normal read; ParaRC Fig. 8):
 * one block group is written, the DataNode holding its data block 0 is cut off, and
 * the time the reconstruction task took to rebuild that block (its own time, the NameNode's
 * scheduling delay left out) is set against the time to read one healthy block over a link
 * like every DataNode's. It also says the most any live DataNode received, in blocks.
 */
public final class SingleBlockRace {
  /**
   * One race.
   *
   * @param seconds the reconstruction task's own time (plugin tasks), or the NameNode-observed
   *     repair time for HDFS's own tasks ({@code taskTimed} false), which includes its scheduling
   */
  public record Result(String scenario, String policy, String strategy, int lostIndex, double seconds,
                       boolean taskTimed, double healthySeconds, double maxLoadBlocks, long blockBytes,
                       Map<String, NodeCounters.Bytes> bytes, boolean verified, double cpuIdleShare,
                       Map<String, Double> cpuSeconds, String placement, double crossRackBlocks) {
    /** The live DataNodes' CPU seconds for the repair, beyond their idle background; NaN where not measured. */
    public double cpuSecondsTotal() {
      return cpuSeconds.isEmpty() ? Double.NaN : ProcessCpu.total(cpuSeconds);
    }

    public double ratio() {
      return seconds / healthySeconds;
    }
  }

  private final FullNodeRecovery recovery;
  private final DegradedRead reads;
  private final Consumer<String> progress;

  public SingleBlockRace(FullNodeRecovery recovery, DegradedRead reads, Consumer<String> progress) {
    this.recovery = recovery;
    this.reads = reads;
    this.progress = progress;
  }

  public Result run(Scenario s, ErasureCodingPolicy policy, long blockSize, long seed, LongConsumer written)
      throws IOException, InterruptedException {
    progress.accept(s.name() + ": single-block race: the time to read one healthy block");
    double healthy = reads.healthyRead(s.name(), policy, blockSize, seed);
    FullNodeRecovery.Result r = recovery.run(s.name() + "-single", policy, 1, blockSize, seed + 1,
        FullNodeRecovery.Loss.ISOLATION, Set.of(), 0, null, written);
    boolean timed = r.pluginTasks() > 0 && !Double.isNaN(r.taskSeconds());
    double seconds = timed ? r.taskSeconds() : r.repairSeconds();
    Result out = new Result(s.name(), policy.getName(), s.strategy(), r.lost().isEmpty() ? -1 : r.lost().get(0).index(),
        seconds, timed, healthy, r.busiestReceivedBlocks(), blockSize, r.bytes(), r.verified(), r.cpuIdleShare(),
        r.cpuSeconds(), s.placement(), r.crossRackBlocksPerRebuiltBlock());
    progress.accept(String.format(java.util.Locale.ROOT, "%s: single-block race: block %d rebuilt in %.2f s against "
        + "%.2f s for a healthy read (%.2fx), busiest DataNode received %.2f blocks%s, %s", s.name(), out.lostIndex(),
        seconds, healthy, out.ratio(), out.maxLoadBlocks(), Double.isNaN(out.crossRackBlocks()) ? ""
            : String.format(java.util.Locale.ROOT, ", %.2f blocks crossed racks (%s placement)", out.crossRackBlocks(),
                out.placement()), out.verified() ? "verified" : "WRONG BYTES"));
    return out;
  }
}
