package io.ecrepair.hdfs.agent;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;

/**
 * What the helpers' downlinks still have to carry: each helper's repair agent is asked (all at
 * once, a short wait) how many bytes the repairs on its DataNode still expect to receive; one
 * that does not answer in time counts as unknown (-1). The plan decides with it (which helper heads a
 * chain, which plan a task runs); this class only asks.
 */
public final class AgentLoads {
  /**
   * How long a load probe may take. An agent slower than that counts as unknown, not busy: in a
   * bench cluster recovery, taking slow answers for busy links sent the last tasks to central
   * repair on a loaded cluster, and they decided the recovery time.
   */
  private static final int PROBE_TIMEOUT_MS = 500;

  private AgentLoads() {}

  /**
   * The load of the agent of each unit's first source, in the order of {@code units}; each probe
   * carries a token for that unit's block ({@code blockOf}), minted by this DataNode as its helper
   * reads are.
   */
  public static long[] probe(AgentContext ctx, int[] units, Map<Integer, Deque<DatanodeInfo>> sources,
                             IntFunction<ExtendedBlock> blockOf) {
    return probe(ctx, units, sources, blockOf, 0);
  }

  /**
   * The same, announcing to each agent that this repair would add {@code intentBytes} to its
   * DataNode's backlog if it chose it, so that repairs planned at the same moment see one
   * another ({@link LoadIntents}).
   */
  public static long[] probe(AgentContext ctx, int[] units, Map<Integer, Deque<DatanodeInfo>> sources,
                             IntFunction<ExtendedBlock> blockOf, long intentBytes) {
    long[] intents = new long[units.length];
    java.util.Arrays.fill(intents, intentBytes);
    return ask(ctx, units, sources, blockOf, intents);
  }

  /**
   * Announces a choice: tells each unit's agent that the chosen plan brings {@code bytes[i]} to
   * {@code units[i]}'s DataNode, so the repairs planned next see it before any of its bytes move
   * ({@link LoadIntents}); returns once every agent answered or the probe timed out.
   */
  public static void announce(AgentContext ctx, int[] units, Map<Integer, Deque<DatanodeInfo>> sources,
                              IntFunction<ExtendedBlock> blockOf, long[] bytes) {
    ask(ctx, units, sources, blockOf, bytes);
  }

  private static long[] ask(AgentContext ctx, int[] units, Map<Integer, Deque<DatanodeInfo>> sources,
                            IntFunction<ExtendedBlock> blockOf, long[] intents) {
    List<Future<Long>> asked = new ArrayList<>();
    for (int i = 0; i < units.length; i++) {
      int u = units[i];
      long intentBytes = intents[i];
      org.apache.hadoop.hdfs.protocol.DatanodeInfo source = sources.get(u).peekFirst();
      InetSocketAddress agent = ctx.agentAddress(source);
      ExtendedBlock block = blockOf.apply(u);
      asked.add(ctx.readPool().submit(() -> {
        Token<BlockTokenIdentifier> token = ctx.datanode().getBlockAccessToken(block,
            EnumSet.of(BlockTokenIdentifier.AccessMode.READ), StorageType.EMPTY_ARRAY, new String[0]);
        return LoadProbe.inboundLoad(ctx.datanode(), agent, source.getDatanodeUuid(), block, token, PROBE_TIMEOUT_MS,
            intentBytes);
      }));
    }
    return answersWithin(asked, 2L * PROBE_TIMEOUT_MS);
  }

  /**
   * Each probe's answer, or -1 for one that failed or had not answered when the round's one
   * deadline, {@code roundMillis} from now, passed (it is cancelled). One deadline for the round,
   * not one per probe: on a starved host, waits per probe add up to seconds on a task's planning.
   */
  static long[] answersWithin(List<Future<Long>> asked, long roundMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(roundMillis);
    long[] loads = new long[asked.size()];
    for (int i = 0; i < loads.length; i++) {
      try {
        loads[i] = asked.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        loads[i] = -1;
      } catch (Exception e) {
        loads[i] = -1;
      }
      if (loads[i] == -1) {
        asked.get(i).cancel(true);
      }
    }
    return loads;
  }
}
