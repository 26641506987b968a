package io.ecrepair.hdfs.agent;

import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.io.IOUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's range requests: a helper's ranges for a repair done elsewhere, from this
 * DataNode's replica ({@link LocalRangeServer}). The token first, then the ranges within their
 * reservation; the answer streams within the agent's time limit for a request, however slowly
 * the requester reads.
 */
final class RangeService {
  private static final Logger LOG = LoggerFactory.getLogger(RangeService.class);
  /** What a range request holds besides its ranges and the replica's read buffer: its output buffer. */
  private static final int OUTPUT_BUFFER = 128 * 1024;

  private final AgentContext ctx;
  private final AgentGate gate;
  private final LocalRangeServer replicas;
  private final ScheduledExecutorService alarms;
  private final java.util.concurrent.ExecutorService repairThreads;
  private final LongAdder served = new LongAdder();

  /** @param repairThreads where ranges are served, at repair's CPU priority ({@code RepairNice#pool}) */
  RangeService(AgentContext ctx, AgentGate gate, LocalRangeServer replicas, ScheduledExecutorService alarms,
               java.util.concurrent.ExecutorService repairThreads) {
    this.ctx = ctx;
    this.gate = gate;
    this.replicas = replicas;
    this.alarms = alarms;
    this.repairThreads = repairThreads;
  }

  long served() {
    return served.sum();
  }

  /** Serves the range request on {@code r}, whose magic was read. */
  void serve(AgentRequest r) throws IOException {
    RangeRequest.Header header = RangeRequest.readHeader(r.in);
    LocalRangeServer.Replica replica = gate.authenticate(header.token(), header.block(), RangeRequest.ERROR);
    long bytes = (long) header.count() * RangeRequest.BYTES_PER_RANGE + replica.readBufferBytes() + OUTPUT_BUFFER;
    try (AgentMemory.Grant held = gate.reserve(bytes, "a request for " + header.count() + " ranges",
        RangeRequest.ERROR)) {
      RangeRequest req;
      try {
        req = RangeRequest.readRanges(header, r.in);
      } catch (EOFException cut) {
        throw cut;
      } catch (IOException e) {
        throw new AgentRequest.Refused(RangeRequest.ERROR, e);
      }
      gate.startWork(r, Admission.Slot.REQUEST, RangeRequest.ERROR);
      AgentProof.prove(r.out(), ctx.datanode(), header.challenge(), req.block(), AgentProof.Purpose.SERVE);
      DataOutputStream out = r.streamingOut();
      ctx.budget().mark(r.socket);
      // A requester that reads slowly holds a replica open: at the limit its connection is closed.
      ScheduledFuture<?> alarm = alarms.schedule(() -> IOUtils.closeSocket(r.socket), ctx.limits().partMillis(),
          TimeUnit.MILLISECONDS);
      try {
        ctx.budget().nice().call(repairThreads, () -> {
          replicas.serve(req, out, ctx.budget());
          return null;
        });
        served.increment();
      } catch (IOException | RuntimeException e) {
        LOG.warn("ec-repair: repair agent on {} could not serve ranges of {}: {}", ctx.name(), req.block(),
            e.toString());
        r.tell(RangeRequest.ERROR, AgentGate.publicReason(e, "could not serve ranges of " + req.block()));
      } finally {
        alarm.cancel(false);
      }
    }
  }
}
