package io.ecrepair.hdfs;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.codes.CodecFamily;
import io.ecrepair.codes.Codecs;
import io.ecrepair.codes.RepairableCode;
import io.ecrepair.codes.rs.RsFamily;
import io.ecrepair.exec.CellRowRepair;
import io.ecrepair.exec.NodePart;
import io.ecrepair.plan.CodeRepairs;
import io.ecrepair.plan.Plan;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Which HDFS policies hadoop-ec-repair repairs itself, and the repairs it runs for them, shared
 * by the DataNode plugin and the client FileSystem: the JVM's {@link CodeRepairs}, reached from
 * an HDFS policy.
 */
public final class RepairCatalog {
  private RepairCatalog() {}

  /** {@link CodeRepairs#parallelPlan}. */
  public static Optional<Plan> parallelPlan(CodeSpec spec, int lost) {
    return CodeRepairs.parallelPlan(spec, lost);
  }

  /** {@link CodeRepairs#parallelPlans(CodeSpec, int)}. */
  public static List<Plan> parallelPlans(CodeSpec spec, int lost) {
    return CodeRepairs.parallelPlans(spec, lost);
  }

  /** {@link CodeRepairs#parallelPlans(CodeSpec, int[])}. */
  public static List<Plan> parallelPlans(CodeSpec spec, int[] lost) {
    return CodeRepairs.parallelPlans(spec, lost);
  }

  /** {@link CodeRepairs#parallelPlansOfIndex}. */
  public static List<Plan> parallelPlansOfIndex(CodeSpec spec, int lost) {
    return CodeRepairs.parallelPlansOfIndex(spec, lost);
  }

  /** {@link CodeRepairs#searchParallelPlans(CodeSpec, int[])}. */
  public static void searchParallelPlans(CodeSpec spec, int[] lost) {
    CodeRepairs.searchParallelPlans(spec, lost);
  }

  /** {@link CodeRepairs#searchParallelPlans(CodeSpec)}. */
  public static void searchParallelPlans(CodeSpec spec) {
    CodeRepairs.searchParallelPlans(spec);
  }

  /** {@link CodeRepairs#centralPlan}. */
  public static Plan centralPlan(CodeSpec spec, int... lost) {
    return CodeRepairs.centralPlan(spec, lost);
  }

  /** {@link CodeRepairs#centralPlanIfReady}. */
  public static Optional<Plan> centralPlanIfReady(CodeSpec spec, int... lost) {
    return CodeRepairs.centralPlanIfReady(spec, lost);
  }

  /** {@link CodeRepairs#windowChain}. */
  public static CodeRepairs.WindowChain windowChain(CellRowRepair repair, int first, int count) {
    return CodeRepairs.windowChain(repair, first, count);
  }

  /** {@link CodeRepairs#scalarChain}. */
  public static CodeRepairs.WindowChain scalarChain(CellRowRepair repair) {
    return CodeRepairs.scalarChain(repair);
  }

  /** {@link CodeRepairs#parts}. */
  public static Map<Integer, NodePart> parts(Plan plan) {
    return CodeRepairs.parts(plan);
  }

  /**
   * Whether the policy's codec is one of ours that HDFS's own paths cannot do well (clay,
   * butterfly, lrc-*), or Hadoop's {@code rs} when {@code includeRs}. Codecs we do not know
   * stay with HDFS.
   */
  public static boolean owns(ErasureCodingPolicy policy, boolean includeRs) {
    if (policy == null || policy.getCodecName() == null) {
      return false;
    }
    try {
      CodecFamily family = Codecs.family(policy.getCodecName().toLowerCase(Locale.ROOT));
      return includeRs || !(family instanceof RsFamily);
    } catch (IllegalArgumentException unknown) {
      return false;
    }
  }

  public static CodeSpec spec(ErasureCodingPolicy policy) {
    return new CodeSpec(policy.getCodecName(), policy.getNumDataUnits(), policy.getNumParityUnits());
  }

  /** {@link CodeRepairs#code}. */
  public static RepairableCode code(CodeSpec spec) {
    return CodeRepairs.code(spec);
  }

  /** {@link CodeRepairs#prepareSingleLosses}. */
  public static void prepareSingleLosses(CodeSpec spec) {
    CodeRepairs.prepareSingleLosses(spec);
  }

  /** {@link CodeRepairs#isReadying}. */
  static boolean isReadying(CodeSpec spec) {
    return CodeRepairs.isReadying(spec);
  }

  /** {@link CodeRepairs#prepare}. */
  public static void prepare(CodeSpec spec) {
    CodeRepairs.prepare(spec);
  }

  /** {@link CodeRepairs#isCached}. */
  static boolean isCached(CodeSpec spec, int[] lost, int[] available) {
    return CodeRepairs.isCached(spec, lost, available);
  }

  /** {@link CodeRepairs#plan}. */
  public static CellRowRepair plan(CodeSpec spec, int[] lost, int[] available) {
    return CodeRepairs.plan(spec, lost, available);
  }
}
