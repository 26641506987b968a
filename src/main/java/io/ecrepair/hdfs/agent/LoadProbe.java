package io.ecrepair.hdfs.agent;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.security.token.Token;

/**
 * A load probe, both ends: a DataNode planning a repair asks a helper's agent how many bytes the
 * repairs on its DataNode still expect to receive (its downlink's backlog), announcing what its
 * own repair would add ({@link LoadIntents}). A probe names a block of that DataNode and carries
 * a token for it, like every other request: only a holder of a valid token learns the backlog.
 */
public final class LoadProbe {
  private LoadProbe() {}

  /** The agent's end: reads the probe (small, bounded), checks it, answers with the backlog and the others' intents. */
  static void answer(AgentRequest r, AgentContext ctx, AgentGate gate, LoadIntents intents) throws IOException {
    DataInputStream in = r.in;
    ExtendedBlock block = WireBlocks.read(in);
    long intent = in.readLong();
    if (intent < 0 || intent > LoadIntents.MAX_BYTES) {
      throw new IOException("a load probe announces " + intent + " bytes");
    }
    Token<BlockTokenIdentifier> token = WireTokens.read(in);
    AgentProof.Received challenge = AgentProof.Received.read(in);
    AgentGate.checkReadAccess(ctx.datanode(), token, block);
    if (ctx.datanode().getFSDataset().getReplica(block.getBlockPoolId(), block.getBlockId()) == null) {
      throw new IOException("a load probe names a block this DataNode does not hold");
    }
    gate.startWork(r, Admission.Slot.REQUEST, PlanPartRequest.ERROR);
    AgentProof.prove(r.out(), ctx.datanode(), challenge, block, AgentProof.Purpose.SERVE);
    r.out().writeLong(ctx.inbound().get() + ctx.plannedInbound()
        + intents.othersThenAdd(intent, System.currentTimeMillis()));
    r.out().flush();
  }

  /** The backlog of an agent, as the method below asks it, announcing no intent. */
  public static long inboundLoad(DataNode prober, InetSocketAddress agent, String datanodeId, ExtendedBlock block,
                                 Token<BlockTokenIdentifier> token, int timeoutMs) {
    return inboundLoad(prober, agent, datanodeId, block, token, timeoutMs, 0);
  }

  /**
   * The bytes the repairs on DataNode {@code datanodeId} (its agent at {@code agent}) still expect
   * to receive (its downlink's backlog), with what other probes of the last moments announced they
   * may add, asked by DataNode {@code prober}, or -1 when it does not answer within
   * {@code timeoutMs}; {@code block} is a block of that DataNode, {@code token} a token to read it.
   * {@code intentBytes}: what the prober's repair would add if it chose this DataNode (0: nothing
   * to announce), counted for the probes that follow ({@link LoadIntents}).
   */
  public static long inboundLoad(DataNode prober, InetSocketAddress agent, String datanodeId, ExtendedBlock block,
                                 Token<BlockTokenIdentifier> token, int timeoutMs, long intentBytes) {
    try (AgentChannels.Channel c = AgentChannels.dialer(prober, block, token).dial(agent, timeoutMs, timeoutMs, 0)) {
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.out()));
      out.writeInt(PlanPartRequest.LOAD_PROBE);
      WireBlocks.write(out, block);
      out.writeLong(intentBytes);
      token.write(out);
      AgentProof.Challenge challenge = AgentProof.Challenge.mint(prober, block);
      challenge.write(out);
      out.flush();
      DataInputStream in = new DataInputStream(c.in());
      challenge.expect(in, datanodeId, "the repair agent at " + agent, PlanPartRequest.ERROR, AgentProof.Purpose.SERVE);
      return in.readLong();
    } catch (IOException e) {
      return -1;
    }
  }
}
