package org.apache.hadoop.hdfs.server.datanode.erasurecode;

import java.lang.reflect.Field;
import java.util.concurrent.ThreadPoolExecutor;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;

/**
 * hadoop-ec-repair's thin window into HDFS's package-private reconstruction classes
 * (docs/architecture.md#what-hdfs-offers-a-plugin): recognise a
 * {@link StripedBlockReconstructor}, read what the NameNode asked of it, and swap the
 * {@link ErasureCodingWorker}'s reconstruction pool. Package-private
 * members are called directly; private fields are read by reflection, each looked up once
 * and checked by {@link #check()} so a Hadoop version without them fails at plugin start.
 */
public final class EcRepairReconstructionAccess {
  private static final Field POOL = field(ErasureCodingWorker.class, "stripedReconstructionPool", ThreadPoolExecutor.class);
  private static final Field POLICY = field(StripedReconstructor.class, "ecPolicy", ErasureCodingPolicy.class);
  private static final Field WRITER = field(StripedBlockReconstructor.class, "stripedWriter", StripedWriter.class);
  private static final Field SOURCES = field(StripedReader.class, "sources", DatanodeInfo[].class);
  private static final Field LIVE = field(StripedReader.class, "liveIndices", byte[].class);
  private static final Field TARGETS = field(StripedWriter.class, "targets", DatanodeInfo[].class);
  private static final Field TARGET_INDICES = field(StripedWriter.class, "targetIndices", short[].class);
  private static final Field TARGET_TYPES = field(StripedWriter.class, "targetStorageTypes", StorageType[].class);
  private static final Field TARGET_IDS = field(StripedWriter.class, "targetStorageIds", String[].class);

  private EcRepairReconstructionAccess() {}

  /** Throws with the missing member's name when this Hadoop does not have what the hook needs. */
  public static void check() {
    // The static initializer already resolved every field; touching the class is the check.
  }

  public static boolean isBlockReconstructor(Runnable task) {
    return task instanceof StripedBlockReconstructor;
  }

  public static ErasureCodingPolicy policy(Runnable task) {
    return (ErasureCodingPolicy) get(POLICY, task);
  }

  public static ExtendedBlock blockGroup(Runnable task) {
    return ((StripedBlockReconstructor) task).getBlockGroup();
  }

  /** What the task will count against the DataNode's xmits (before HDFS's weight). */
  public static int xmits(Runnable task) {
    return ((StripedBlockReconstructor) task).getXmits();
  }

  /** Bytes HDFS's own reconstructor read so far (its own counter). */
  public static long bytesRead(Runnable task) {
    return ((StripedBlockReconstructor) task).getBytesRead();
  }

  /** Bytes HDFS's own reconstructor sent to its targets so far. */
  public static long bytesWritten(Runnable task) {
    return ((StripedBlockReconstructor) task).getBytesWritten();
  }

  public static byte[] liveIndices(Runnable task) {
    return (byte[]) get(LIVE, ((StripedBlockReconstructor) task).getStripedReader());
  }

  public static DatanodeInfo[] sources(Runnable task) {
    return (DatanodeInfo[]) get(SOURCES, ((StripedBlockReconstructor) task).getStripedReader());
  }

  /** The internal block indices HDFS chose to rebuild, one per target. */
  public static short[] targetIndices(Runnable task) {
    return (short[]) get(TARGET_INDICES, get(WRITER, task));
  }

  public static DatanodeInfo[] targets(Runnable task) {
    return (DatanodeInfo[]) get(TARGETS, get(WRITER, task));
  }

  public static StorageType[] targetStorageTypes(Runnable task) {
    return (StorageType[]) get(TARGET_TYPES, get(WRITER, task));
  }

  public static String[] targetStorageIds(Runnable task) {
    return (String[]) get(TARGET_IDS, get(WRITER, task));
  }

  public static ThreadPoolExecutor reconstructionPool(ErasureCodingWorker worker) {
    return (ThreadPoolExecutor) get(POOL, worker);
  }

  /** Replaces the worker's reconstruction pool; returns the one it had. */
  public static synchronized ThreadPoolExecutor swapReconstructionPool(ErasureCodingWorker worker,
                                                                       ThreadPoolExecutor pool) {
    ThreadPoolExecutor old = reconstructionPool(worker);
    try {
      POOL.set(worker, pool);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot replace ErasureCodingWorker.stripedReconstructionPool", e);
    }
    return old;
  }

  private static Object get(Field f, Object target) {
    try {
      return f.get(target);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read " + f, e);
    }
  }

  private static Field field(Class<?> owner, String name, Class<?> type) {
    try {
      Field f = owner.getDeclaredField(name);
      if (!type.isAssignableFrom(f.getType())) {
        throw new IllegalStateException(owner.getName() + "." + name + " is a " + f.getType().getName() + ", expected "
            + type.getName());
      }
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("this Hadoop has no " + owner.getName() + "." + name, e);
    }
  }
}
