package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.NodePart;
import io.ecrepair.hdfs.datanode.EcRepairDataNodePlugin;
import io.ecrepair.hdfs.datanode.RepairCluster;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;

/** What the attack tests send an agent, and how they read its answer and watch this JVM's memory. */
final class HostileRequests {
  private HostileRequests() {}

  static byte[] bytes(PlanPartRequest req, AgentProof.Challenge challenge, String agentId) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    req.write(new DataOutputStream(bytes), challenge, agentId);
    return bytes.toByteArray();
  }

  /**
   * A part request's bytes with group {@code g} (as written) replaced by one of {@code values},
   * which no honest writer would send (a value repeated, out of order): the body and its length
   * rewritten to match.
   */
  static byte[] withGroup(byte[] request, NodePart.Group g, int[] values) throws IOException {
    byte[] needle = group(g.peer(), g.level(), g.vertices());
    int at = indexOf(request, needle);
    if (at < 0) {
      throw new AssertionError("the group is not on the wire");
    }
    byte[] replacement = group(g.peer(), g.level(), values);
    byte[] out = new byte[request.length - needle.length + replacement.length];
    System.arraycopy(request, 0, out, 0, at);
    System.arraycopy(replacement, 0, out, at, replacement.length);
    System.arraycopy(request, at + needle.length, out, at + replacement.length, request.length - at - needle.length);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(request));
    in.readInt();
    int body = PlanPartRequest.readHeader(in).bodyLength();
    // The body runs to the end, its length just before it.
    ByteBuffer.wrap(out).putInt(request.length - body - 4, body + replacement.length - needle.length);
    return out;
  }

  private static byte[] group(int peer, int level, int[] values) {
    ByteBuffer b = ByteBuffer.allocate(12 + 4 * values.length).putInt(peer).putInt(level).putInt(values.length);
    for (int v : values) {
      b.putInt(v);
    }
    return b.array();
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** The first block group of {@code file}, with its internal blocks' tokens (a reader's). */
  static LocatedStripedBlock firstGroup(RepairCluster c, org.apache.hadoop.fs.Path file) throws IOException {
    return (LocatedStripedBlock) c.fs.getClient().getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).get(0);
  }

  /** Where {@code dn}'s repair agent listens. */
  static InetSocketAddress agentOf(DataNode dn) {
    return new InetSocketAddress("127.0.0.1", EcRepairDataNodePlugin.agentPort(dn));
  }

  /** Where each of the first {@code units} internal blocks of {@code file}'s first group is: its agent and DataNode. */
  static Map<Integer, PlanPartRequest.Peer> peers(RepairCluster c, org.apache.hadoop.fs.Path file, int units)
      throws IOException {
    Map<Integer, PlanPartRequest.Peer> peers = new TreeMap<>();
    for (int u = 0; u < units; u++) {
      DataNode dn = c.dataNode(c.holder(file, 0, u));
      peers.put(u, new PlanPartRequest.Peer("127.0.0.1", EcRepairDataNodePlugin.agentPort(dn), dn.getDatanodeUuid()));
    }
    return peers;
  }

  /** Part {@code node} of session {@code hi:lo} for internal block {@code node} of {@code group}, as a client requests it. */
  static byte[] clientPart(RepairCluster c, LocatedStripedBlock group, long hi, long lo, NodePart part,
                           Map<Integer, PlanPartRequest.Peer> peers) throws IOException {
    LocatedBlock internal = AgentFuzzTest.internalBlock(group, part.node(), c.k(), c.cell());
    Map<Integer, PlanPartRequest.Peer> own = new TreeMap<>();
    part.outbound().forEach(g -> own.put(g.peer(), peers.get(g.peer())));
    part.inbound().forEach(g -> own.put(g.peer(), peers.get(g.peer())));
    int sub = c.cell() / part.alpha();
    return bytes(new PlanPartRequest(hi, lo, internal.getBlock(), internal.getBlockToken(), internal.getBlockSize(),
        c.cell(), sub, 0, (int) (internal.getBlockSize() / c.cell()), sub, part, own, false),
        AgentProof.Challenge.of(internal.getBlockToken()), "any");
  }

  /**
   * Sends a part request to {@code agent} and reads its proof and READY: the part's session is
   * open there, waiting for GO (and for its senders' streams) while the returned connection is.
   */
  static Socket ready(InetSocketAddress agent, byte[] request) throws IOException {
    Socket s = new Socket();
    s.connect(agent, 5000);
    s.setSoTimeout(10_000);
    s.getOutputStream().write(request);
    DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
    int proof = in.readInt();
    if (proof < 0) {
      String why = in.readUTF();
      s.close();
      throw new AssertionError("the part was refused: " + why);
    }
    in.readFully(new byte[proof]);
    in.readUTF();
    if (in.readInt() != PlanPartRequest.READY) {
      s.close();
      throw new AssertionError("the part is not ready");
    }
    return s;
  }

  /** What an agent answered a part request: READY after its proof, or its refusal and why. */
  record Answer(boolean ready, String refusal) {}

  /**
   * Sends a part request and reads the answer; {@code go} says GO after READY and waits for the
   * part's end. The connection closes after.
   */
  static Answer ask(InetSocketAddress agent, byte[] request, boolean go) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(agent, 5000);
      s.setSoTimeout(60_000);
      s.getOutputStream().write(request);
      s.getOutputStream().flush();
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      int proof = in.readInt();
      if (proof == PlanPartRequest.ERROR) {
        return new Answer(false, in.readUTF());
      }
      in.readFully(new byte[proof]);
      in.readUTF(); // the agent's DataNode id
      int status = in.readInt();
      if (status != PlanPartRequest.READY) {
        return new Answer(false, status == PlanPartRequest.ERROR ? in.readUTF() : "answer " + status);
      }
      if (go) {
        new DataOutputStream(s.getOutputStream()).writeInt(PlanPartRequest.GO);
        in.readByte();
        in.readInt();
        int end = in.readInt();
        return new Answer(end == PlanPartRequest.DONE, end == PlanPartRequest.ERROR ? in.readUTF() : null);
      }
      return new Answer(true, null);
    }
  }

  /** This JVM's heap in use plus its direct buffers: where every DataNode of a MiniDFSCluster allocates. */
  static long memoryInUse() {
    long direct = 0;
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        direct = pool.getMemoryUsed();
      }
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() + direct;
  }

  /** The highest {@link #memoryInUse} seen while it runs, sampled every few milliseconds. */
  static final class PeakMemory implements AutoCloseable {
    private final Thread sampler;
    private volatile boolean done;
    private volatile long peak;

    PeakMemory() {
      sampler = new Thread(() -> {
        while (!done) {
          peak = Math.max(peak, memoryInUse());
          try {
            Thread.sleep(5);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "peak-memory");
      sampler.setDaemon(true);
      sampler.start();
    }

    long peak() {
      return Math.max(peak, memoryInUse());
    }

    @Override
    public void close() throws InterruptedException {
      done = true;
      sampler.join();
    }
  }
}
