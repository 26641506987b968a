package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.NodePart;
import io.ecrepair.gf.GFMatrix;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;

/**
 * What the coordinator of a distributed repair (the rebuilding DataNode) sends a helper's
 * repair agent: the session, the helper's internal block with a token to read it, which cell
 * rows to run and how they are cut into slices, its {@link NodePart} of the plan, and where
 * the agents of the nodes it sends to listen. Everything read from the wire is bounded before
 * anything is allocated for it.
 *
 * @param readLimit the part reads its block only below this offset (beyond it the repair needs
 *     zeros: a scalar code's lost block ends there, or the rows asked for do); at most the
 *     block's length, and within the rows asked for
 * @param firstRow the first cell row of the block to run; {@code rows} full rows follow
 * @param pieceBytes bytes of each sub-chunk per slice (the last piece of a sub-chunk may be shorter)
 * @param forClient whether the repair is a client's degraded read (its agents limit those)
 */
public record PlanPartRequest(long sessionHi, long sessionLo, ExtendedBlock block, Token<BlockTokenIdentifier> token,
                       long readLimit, int cellSize, int subchunkBytes, int firstRow, int rows, int pieceBytes,
                       NodePart part, Map<Integer, Peer> peers, boolean forClient) {
  static final int MAGIC = 0x45435050; // "ECPP"
  /** A load probe instead of a request: the agent answers with the bytes its parts still expect to receive. */
  static final int LOAD_PROBE = 0x4543504c; // "ECPL"
  // 2: followed by the requester's challenge (AgentProof); 3: READY carries the replica's checksum;
  // 4: a peer may be the requester itself, reached back over the control connection (a client)
  static final int VERSION = 4;
  public static final int READY = 1;
  public static final int GO = 2;
  public static final int DONE = 3;
  public static final int ERROR = -1;
  static final int MAX_ALPHA = 1 << 13;
  static final int MAX_VERTEX = 1 << 20;
  static final int MAX_COUNT = 1 << 16;
  static final int MAX_NODES = 64;
  public static final int MIN_PIECE = 1024;
  public static final int MAX_PIECE = 8 << 20;
  /** Rows a part may span (the helper's block may be shorter: its bytes past the end are zeros). */
  static final int MAX_ROWS = 1 << 20;
  /** Memory a part may ask an agent for: sub-chunk and value buffers of one slice. */
  static final long MAX_SLICE_MEMORY = 64L << 20;
  /** Numbers a whole part may hold (vertex ids and coefficients together): about 16 MiB. */
  static final int MAX_PART_NUMBERS = 1 << 22;

  /**
   * A node's repair agent, or ({@link #CONTROL}) the requester itself, which listens nowhere (a
   * client): the part's values for it go back over the control connection the request came on.
   */
  public record Peer(String host, int port) {
    public static final Peer CONTROL = new Peer("", 0);

    /** Whether values for this peer go back over the request's own connection. */
    public boolean control() {
      return port == 0 && host.isEmpty();
    }

    /**
     * Where this hop's agent listens: a resolved unicast address and a real port. A hop names
     * another DataNode's agent; the stream to it carries values only once that agent proved it
     * holds the cluster's block keys (AgentProof), so a hop pointed elsewhere gets nothing.
     */
    java.net.InetSocketAddress address() throws IOException {
      java.net.InetSocketAddress a = new java.net.InetSocketAddress(host, port);
      if (a.isUnresolved() || port <= 0 || a.getAddress().isAnyLocalAddress() || a.getAddress().isMulticastAddress()) {
        throw new IOException("a hop names " + host + ":" + port + ", which cannot be a DataNode's repair agent");
      }
      return a;
    }
  }

  public PlanPartRequest {
    if (cellSize < 1 || subchunkBytes < 1 || (long) subchunkBytes * part.alpha() > cellSize) {
      throw new IllegalArgumentException("sub-chunks of " + subchunkBytes + " bytes x " + part.alpha()
          + " do not fit a cell of " + cellSize);
    }
    if (pieceBytes < 1 || pieceBytes > MAX_PIECE || firstRow < 0 || rows < 1 || (long) firstRow + rows > MAX_ROWS
        || readLimit > ((long) firstRow + rows) * cellSize) {
      throw new IllegalArgumentException("rows " + firstRow + "+" + rows + " of " + cellSize + " bytes, pieces of "
          + pieceBytes + ", do not cover the " + readLimit + " bytes of the block the part reads");
    }
    if (readLimit < 0 || readLimit > block.getNumBytes()) {
      throw new IllegalArgumentException("read limit " + readLimit + " outside the block's " + block.getNumBytes()
          + " bytes");
    }
    long slots = part.valuesIn() + part.steps().stream().mapToLong(s -> s.outputs().length).sum();
    if ((slots + part.alpha()) * (long) Math.min(pieceBytes, subchunkBytes) > MAX_SLICE_MEMORY) {
      throw new IllegalArgumentException("the part needs more than " + (MAX_SLICE_MEMORY >> 20) + " MiB per slice");
    }
    for (NodePart.Group g : part.outbound()) {
      if (!peers.containsKey(g.peer())) {
        throw new IllegalArgumentException("no address for node " + g.peer() + ", which the part sends to");
      }
    }
    if (peers.values().stream().filter(Peer::control).count() > 1) {
      throw new IllegalArgumentException("more than one peer is reached over the control connection");
    }
    peers = Map.copyOf(peers);
  }

  public void write(DataOutput out) throws IOException {
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    out.writeLong(sessionHi);
    out.writeLong(sessionLo);
    out.writeUTF(block.getBlockPoolId());
    out.writeLong(block.getBlockId());
    out.writeLong(block.getGenerationStamp());
    out.writeLong(block.getNumBytes());
    token.write(out);
    out.writeLong(readLimit);
    out.writeInt(cellSize);
    out.writeInt(subchunkBytes);
    out.writeInt(firstRow);
    out.writeInt(rows);
    out.writeInt(pieceBytes);
    out.writeInt(part.node());
    out.writeInt(part.alpha());
    int[][] leaves = part.leaves();
    out.writeInt(leaves.length);
    for (int[] l : leaves) {
      out.writeInt(l[0]);
      out.writeInt(l[1]);
    }
    writeGroups(out, part.inbound());
    writeGroups(out, part.outbound());
    out.writeInt(part.steps().size());
    for (NodePart.Step s : part.steps()) {
      out.writeInt(s.level());
      writeInts(out, s.inputs());
      writeInts(out, s.outputs());
      out.write(s.matrix().toArray());
    }
    out.writeInt(part.results().size());
    for (NodePart.Result r : part.results()) {
      out.writeInt(r.vertex());
      out.writeInt(r.block());
      out.writeInt(r.subchunk());
    }
    out.writeInt(peers.size());
    for (Map.Entry<Integer, Peer> p : new TreeMap<>(peers).entrySet()) {
      out.writeInt(p.getKey());
      out.writeUTF(p.getValue().host());
      out.writeInt(p.getValue().port());
    }
    out.writeBoolean(forClient);
  }

  /** Reads a request whose magic number was read; anything malformed or out of bounds is an IOException. */
  static PlanPartRequest readAfterMagic(DataInput in) throws IOException {
    int version = in.readInt();
    if (version != VERSION) {
      throw new IOException("plan part version " + version + ", this agent speaks " + VERSION);
    }
    long hi = in.readLong();
    long lo = in.readLong();
    ExtendedBlock block = new ExtendedBlock(in.readUTF(), in.readLong(), 0, 0);
    block.setGenerationStamp(in.readLong());
    block.setNumBytes(in.readLong());
    if (block.getNumBytes() < 0) {
      throw new IOException("negative block length");
    }
    Token<BlockTokenIdentifier> token = WireTokens.read(in);
    long readLimit = in.readLong();
    int cell = in.readInt();
    int sub = in.readInt();
    int firstRow = in.readInt();
    int rows = in.readInt();
    int piece = in.readInt();
    int node = bounded(in.readInt(), MAX_NODES, "node");
    int alpha = in.readInt();
    if (alpha < 1 || alpha > MAX_ALPHA) {
      throw new IOException("alpha " + alpha + " outside 1.." + MAX_ALPHA);
    }
    int leafCount = bounded(in.readInt(), alpha + 1, "leaf count");
    int[][] leaves = new int[leafCount][];
    for (int i = 0; i < leafCount; i++) {
      leaves[i] = new int[] {vertex(in), bounded(in.readInt(), alpha, "sub-chunk")};
    }
    int[] budget = {MAX_PART_NUMBERS - 2 * leafCount};
    List<NodePart.Group> inbound = readGroups(in, budget);
    List<NodePart.Group> outbound = readGroups(in, budget);
    int stepCount = bounded(in.readInt(), MAX_COUNT + 1, "step count");
    List<NodePart.Step> steps = new ArrayList<>();
    for (int i = 0; i < stepCount; i++) {
      int level = bounded(in.readInt(), MAX_VERTEX, "level");
      int[] inputs = readInts(in, budget);
      int[] outputs = readInts(in, budget);
      if ((long) inputs.length * outputs.length > MAX_COUNT) {
        throw new IOException("a step of " + outputs.length + " x " + inputs.length + " coefficients");
      }
      spend(budget, inputs.length * outputs.length);
      byte[] m = new byte[inputs.length * outputs.length];
      in.readFully(m);
      steps.add(new NodePart.Step(level, inputs, outputs, new GFMatrix(outputs.length, inputs.length, m)));
    }
    int resultCount = bounded(in.readInt(), alpha * 2 + 1, "result count");
    List<NodePart.Result> results = new ArrayList<>();
    for (int i = 0; i < resultCount; i++) {
      results.add(new NodePart.Result(vertex(in), bounded(in.readInt(), MAX_NODES, "block"),
          bounded(in.readInt(), alpha, "sub-chunk")));
    }
    int peerCount = bounded(in.readInt(), MAX_NODES + 1, "peer count");
    Map<Integer, Peer> peers = new TreeMap<>();
    for (int i = 0; i < peerCount; i++) {
      int p = bounded(in.readInt(), MAX_NODES, "peer");
      peers.put(p, new Peer(in.readUTF(), bounded(in.readInt(), 65536, "port")));
    }
    boolean forClient = in.readBoolean();
    try {
      NodePart part = new NodePart(node, alpha, leaves, inbound, outbound, steps, results);
      return new PlanPartRequest(hi, lo, block, token, readLimit, cell, sub, firstRow, rows, piece, part, peers,
          forClient);
    } catch (IllegalArgumentException e) {
      throw new IOException("bad plan part: " + e.getMessage(), e);
    }
  }

  private static void writeGroups(DataOutput out, List<NodePart.Group> groups) throws IOException {
    out.writeInt(groups.size());
    for (NodePart.Group g : groups) {
      out.writeInt(g.peer());
      out.writeInt(g.level());
      writeInts(out, g.vertices());
    }
  }

  private static List<NodePart.Group> readGroups(DataInput in, int[] budget) throws IOException {
    int count = bounded(in.readInt(), MAX_COUNT + 1, "group count");
    List<NodePart.Group> groups = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int peer = bounded(in.readInt(), MAX_NODES, "peer");
      int level = bounded(in.readInt(), MAX_VERTEX, "level");
      int[] vs = readInts(in, budget);
      if (vs.length == 0) {
        throw new IOException("an empty group");
      }
      groups.add(new NodePart.Group(peer, level, vs));
    }
    return groups;
  }

  private static void writeInts(DataOutput out, int[] a) throws IOException {
    out.writeInt(a.length);
    for (int x : a) {
      out.writeInt(x);
    }
  }

  private static int[] readInts(DataInput in, int[] budget) throws IOException {
    int n = bounded(in.readInt(), MAX_COUNT + 1, "count");
    spend(budget, n);
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = vertex(in);
    }
    return a;
  }

  /** Takes n from what the part may still hold, before anything of that size is allocated. */
  private static void spend(int[] budget, int n) throws IOException {
    budget[0] -= n;
    if (budget[0] < 0) {
      throw new IOException("the plan part holds more than " + MAX_PART_NUMBERS + " numbers");
    }
  }

  private static int vertex(DataInput in) throws IOException {
    return bounded(in.readInt(), MAX_VERTEX, "vertex id");
  }

  /** x itself when 0 <= x < limit. */
  private static int bounded(int x, int limit, String what) throws IOException {
    if (x < 0 || x >= limit) {
      throw new IOException(what + " " + x + " outside 0.." + (limit - 1));
    }
    return x;
  }
}
