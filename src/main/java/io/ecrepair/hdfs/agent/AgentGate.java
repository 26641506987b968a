package io.ecrepair.hdfs.agent;

import java.io.IOException;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.EcRepairDataNodeAccess;
import org.apache.hadoop.security.token.Token;

/**
 * What every request to an agent passes before it is served: its block token for a replica this
 * DataNode holds, the memory it may hold reserved under the agent's caps, and a working slot
 * once it arrived whole. Each failure is a refusal the requester is told.
 */
final class AgentGate {
  private final DataNode datanode;
  private final LocalRangeServer replicas;
  private final AgentMemory memory;
  private final Admission admission;

  AgentGate(DataNode datanode, LocalRangeServer replicas, AgentMemory memory, Admission admission) {
    this.datanode = datanode;
    this.replicas = replicas;
    this.memory = memory;
    this.admission = admission;
  }

  /**
   * Checks that {@code token} lets its holder read {@code block} and that this DataNode holds its
   * finalized replica of exactly that generation and length; returns that replica.
   */
  LocalRangeServer.Replica authenticate(Token<BlockTokenIdentifier> token, ExtendedBlock block, int errorCode)
      throws IOException {
    try {
      checkReadAccess(datanode, token, block);
    } catch (IOException e) {
      throw new AgentRequest.Refused(errorCode, "access to the block refused");
    }
    try {
      return replicas.replica(block);
    } catch (IOException e) {
      throw new AgentRequest.Refused(errorCode, publicReason(e, "no replica of " + block + " to serve"));
    }
  }

  /** Before an agent reads or connects anywhere: the request must carry a valid token for our block. */
  static void checkReadAccess(DataNode datanode, Token<BlockTokenIdentifier> token, ExtendedBlock block)
      throws IOException {
    // As the DataNode's own data transfer does: tokens are required when the NameNode's keys say so.
    if (EcRepairDataNodeAccess.blockTokensEnforced(datanode)) {
      TokenShape.check(token.getIdentifier());
      try {
        datanode.getBlockPoolTokenSecretManager().checkAccess(token, null, block, BlockTokenIdentifier.AccessMode.READ);
      } catch (RuntimeException e) { // Hadoop's decoder on a malformed token (an unknown enum name, block pool)
        throw new IOException("a malformed block token: " + e.getMessage(), e);
      }
    }
  }

  /** Reserves {@code bytes} for {@code what}, or refuses the request. */
  AgentMemory.Grant reserve(long bytes, String what, int errorCode) throws AgentRequest.Refused {
    try {
      return memory.reserve(bytes, what);
    } catch (IOException e) {
      throw new AgentRequest.Refused(errorCode, e);
    }
  }

  /**
   * The request arrived whole: from here it is served without its deadline, in a working slot of
   * {@code kind}; without one (cut while arriving, or every slot taken) it is refused.
   */
  void startWork(AgentRequest r, Admission.Slot kind, int errorCode) throws IOException {
    r.slot = admission.work(r.socket, kind);
    if (r.slot == null) {
      throw new AgentRequest.Refused(errorCode, "this repair agent serves as many requests as it may at once; "
          + "try again later");
    }
    r.channel.trust();
  }

  /**
   * What a requester is told when its request fails: what failed and the kind of error, not the
   * DataNode's own message (paths, addresses, internals), which goes to its log.
   */
  static String publicReason(Throwable e, String what) {
    return what + " (" + e.getClass().getSimpleName() + "; the DataNode's log has the details)";
  }
}
