package io.ecrepair.hdfs.agent;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;

/**
 * The opening of a value stream between two agents, in which each end proves it is the DataNode
 * the plan names:
 * <ol>
 *   <li>the sender: {@link PlanFrames#STREAM_MAGIC}, the version, the session, its node in the
 *       plan, and a challenge it minted;</li>
 *   <li>the receiver, only if that session expects that node and it has not attached yet: its
 *       {@link AgentProof.Purpose#RECEIVE} proof, bound to the address it accepted the stream on
 *       (so a listener that relays the challenge to a genuine agent gets a proof for another
 *       address), then a challenge it minted;</li>
 *   <li>the sender, only once that proof names the DataNode the plan gave for that peer at the
 *       address it dialled: its {@link AgentProof.Purpose#SEND} proof, bound to the session, its
 *       node, the receiving DataNode and its own nonce, in the name of the DataNode the plan gave
 *       for that node.</li>
 * </ol>
 * Only a holder of the block keys can answer either challenge, so a client that learned a
 * session id (readable on the wire without SASL privacy) cannot attach as a sender and have its
 * frames taken as values, and a sender gives values to no one but the named DataNode's agent.
 */
final class StreamHandshake {
  private StreamHandshake() {}

  /** A stream the receiver accepted: the session and the sending node whose frames it carries. */
  record Accepted(PlanSession session, int from) {}

  /**
   * The sender's side, on a connection to {@code dialed}: returns once the receiver proved it is
   * DataNode {@code receiverId} and this DataNode answered its challenge.
   *
   * @param mine a challenge this DataNode minted about its block {@code block}
   */
  static void open(DataOutputStream out, DataInputStream in, long sessionHi, long sessionLo, int from,
                   String receiverId, InetSocketAddress dialed, AgentProof.Challenge mine, DataNode datanode,
                   ExtendedBlock block, String receiver) throws IOException {
    PlanFrames.writeStreamHeader(out, sessionHi, sessionLo, from);
    mine.write(out);
    out.flush();
    mine.expect(in, receiverId, receiver, PlanFrames.ERROR, AgentProof.Purpose.RECEIVE, AgentProof.about(dialed));
    AgentProof.Received theirs = AgentProof.Received.read(in);
    AgentProof.prove(out, datanode, theirs, block, AgentProof.Purpose.SEND,
        AgentProof.aboutStream(sessionHi, sessionLo, from, receiverId, mine.nonce()));
    out.flush();
  }

  /**
   * The receiver's side, after the magic: the accepted stream, or null when no session here
   * expects that sender (then nothing is proved to whoever asked).
   *
   * @throws IOException when the sender's proof fails
   */
  static Accepted accept(DataInputStream in, DataOutputStream out, Socket socket, DataNode datanode,
                         PlanSessions sessions) throws IOException {
    AgentVersions.check(PlanFrames.STREAM_MAGIC, in.readInt());
    long hi = in.readLong();
    long lo = in.readLong();
    int from = in.readInt();
    AgentProof.Received theirs = AgentProof.Received.read(in);
    PlanSession session = sessions.get(hi, lo);
    String sender = session == null ? null : session.expectedSender(from);
    if (sender == null) {
      return null;
    }
    AgentProof.prove(out, datanode, theirs, session.block(), AgentProof.Purpose.RECEIVE,
        AgentProof.about(new InetSocketAddress(socket.getLocalAddress(), socket.getLocalPort())));
    AgentProof.Challenge mine = AgentProof.Challenge.mint(datanode, session.block());
    mine.write(out);
    out.flush();
    mine.expect(in, sender, "node " + from + " of " + session.name(), PlanFrames.ERROR, AgentProof.Purpose.SEND,
        AgentProof.aboutStream(hi, lo, from, AgentProof.idOf(datanode), theirs.nonce()));
    return new Accepted(session, from);
  }
}
