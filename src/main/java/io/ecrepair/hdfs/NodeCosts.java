package io.ecrepair.hdfs;

import io.ecrepair.plan.MeasuredCosts;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;

/**
 * The cost of reading a byte from each DataNode, as a client's degraded reads and a DataNode's
 * reconstructions see it: what the operator set ({@link StaticCosts}, {@value CostKeys#COSTS_KEY})
 * times what recent reads from the node measured ({@link MeasuredCosts}, on unless
 * {@value CostKeys#COSTS_MEASURED_KEY} = false), 1 for a typical node.
 */
public final class NodeCosts {
  /** Reads smaller than this say more about latency than throughput and are not measured. */
  static final long MIN_MEASURED_BYTES = 64 * 1024;

  private final StaticCosts statics;
  private final MeasuredCosts measured;

  /** @param measured null when costs are not measured */
  public NodeCosts(StaticCosts statics, MeasuredCosts measured) {
    this.statics = statics;
    this.measured = measured;
  }

  /** Costs from {@code conf}: the operator's, and measured ones kept in {@code measured} if {@value CostKeys#COSTS_MEASURED_KEY} is on. */
  public static NodeCosts from(Configuration conf, MeasuredCosts measured) {
    boolean measure = conf.getBoolean(CostKeys.COSTS_MEASURED_KEY, CostKeys.COSTS_MEASURED_DEFAULT);
    return new NodeCosts(StaticCosts.from(conf), measure ? measured : null);
  }

  /** A measured-cost store with {@code conf}'s half-life (whether it is used is {@link #from}'s choice). */
  public static MeasuredCosts newMeasured(Configuration conf) {
    long halfLife = Math.max(1, conf.getLong(CostKeys.COSTS_MEASURED_HALF_LIFE_SECONDS_KEY,
        CostKeys.COSTS_MEASURED_HALF_LIFE_SECONDS_DEFAULT));
    return new MeasuredCosts(System::nanoTime, TimeUnit.SECONDS.toNanos(halfLife), MIN_MEASURED_BYTES);
  }

  /** The factor of a byte from {@code node} (1 = typical). */
  public double of(DatanodeInfo node) {
    double f = statics.of(node);
    return measured == null ? f : f * measured.factor(node.getXferAddr());
  }

  /** A read of {@code bytes} from {@code node} took {@code nanos}. */
  public void record(DatanodeInfo node, long bytes, long nanos) {
    if (measured != null) {
      measured.record(node.getXferAddr(), bytes, nanos);
    }
  }

  /** A read from {@code node} failed or stalled. */
  public void recordFailure(DatanodeInfo node) {
    if (measured != null) {
      measured.recordFailure(node.getXferAddr());
    }
  }

  /** Whether costs may differ between DataNodes: the operator set some, or reads measure them. */
  public boolean active() {
    return statics.any() || measured != null;
  }
}
