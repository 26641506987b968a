package io.ecrepair.hdfs.agent;

import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.server.datanode.EcRepairDataNodeAccess;

/**
 * An agent's part requests, from the header to the part's end: the token first, the body read
 * within its reservation, the part held to its block group's bounds and its hops to where agents
 * can be, the memory it may hold reserved, clients' parts limited (a part is a DataNode's only if
 * its requester proves it holds the block keys), then the part runs ({@link PlanParticipant}).
 */
final class PartService {
  /**
   * Memory a parsed part takes per byte of its body, at most: a step of one coefficient is 21
   * bytes on the wire and about 700 in objects; a value named in a group, 4 and about 100.
   */
  static final int PARSED_PER_BODY_BYTE = 40;

  private final AgentContext ctx;
  private final AgentGate gate;
  private final HopRule hops;
  private final PlanParticipant participant;
  private final Semaphore clientParts;
  private final FreshProofs fresh = new FreshProofs();
  private final LongAdder served = new LongAdder();
  private final LongAdder clientPartsRefused = new LongAdder();

  PartService(AgentContext ctx, AgentGate gate, HopRule hops, PlanParticipant participant) {
    this.ctx = ctx;
    this.gate = gate;
    this.hops = hops;
    this.participant = participant;
    this.clientParts = new Semaphore(ctx.clientPartsLimit());
  }

  long served() {
    return served.sum();
  }

  long clientPartsRefused() {
    return clientPartsRefused.sum();
  }

  /** Serves the part request on {@code r}, whose magic was read. */
  void serve(AgentRequest r) throws IOException {
    PlanPartRequest.Header header = PlanPartRequest.readHeader(r.in);
    ExtendedBlock block = header.block();
    LocalRangeServer.Replica replica = gate.authenticate(header.token(), block, PlanPartRequest.ERROR);
    try (AgentMemory.Grant body = gate.reserve((long) header.bodyLength() * (1 + PARSED_PER_BODY_BYTE),
        "a plan part of " + header.bodyLength() + " bytes", PlanPartRequest.ERROR)) {
      byte[] bytes = new byte[header.bodyLength()];
      r.in.readFully(bytes);
      PlanPartRequest req;
      try {
        req = PlanPartRequest.readBody(header, bytes);
        PartBounds.check(req, replica.length(), ctx.limits().maxCellBytes());
        for (PlanPartRequest.Peer p : req.peers().values()) {
          if (!p.control()) {
            hops.check(p.host(), p.port());
          }
        }
      } catch (IOException e) {
        throw new AgentRequest.Refused(PlanPartRequest.ERROR, e);
      }
      boolean fromDataNode = AgentProof.requestFromKeyHolder(ctx.datanode(), header.challenge(), block, header.proof(),
          PlanPartRequest.digest(header.sessionHi(), header.sessionLo(), block, header.sentAtMillis(), bytes))
          && fresh.take(header.proof(), header.sentAtMillis(), System.currentTimeMillis());
      boolean client = forClient(req, fromDataNode);
      try (AgentMemory.Grant run = gate.reserve(PartBounds.bytesHeld(req, replica), "part " + req.part().node()
          + " of a repair of " + block, PlanPartRequest.ERROR)) {
        gate.startWork(r, Admission.Slot.REQUEST, PlanPartRequest.ERROR);
        if (client && !clientParts.tryAcquire()) {
          clientPartsRefused.increment();
          throw new AgentRequest.Refused(PlanPartRequest.ERROR, "this repair agent runs " + ctx.clientPartsLimit()
              + " parts of clients' reads at once; fetch the read set instead");
        }
        try {
          AgentProof.prove(r.out(), ctx.datanode(), header.challenge(), block, AgentProof.Purpose.SERVE);
          if (participant.serve(req, client, r.channel, r.in, r.streamingOut(), hops)) {
            served.increment();
          }
        } finally {
          if (client) {
            clientParts.release();
          }
        }
      }
    }
  }

  /**
   * Whether a part counts as a client's read, which the agent limits: its request says so, or,
   * with block tokens, its requester did not prove it holds the block keys (only DataNodes do,
   * whatever user a client runs as). Without block tokens nothing can be proved, and the agent
   * takes the request's word, as HDFS's data transfer trusts the network there.
   */
  private boolean forClient(PlanPartRequest req, boolean fromDataNode) {
    return req.forClient() || (EcRepairDataNodeAccess.blockTokensEnforced(ctx.datanode()) && !fromDataNode);
  }
}
