package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.NodePart;
import io.ecrepair.gf.GFMatrix;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;

/**
 * What the coordinator of a distributed repair (the rebuilding DataNode, or a client reading a
 * lost block) sends a helper's repair agent: the session, the helper's internal block with a
 * token to read it, which cell rows to run and how they are cut into slices, its {@link NodePart}
 * of the plan, and every node it exchanges values with (where its agent listens and which
 * DataNode it is).
 *
 * <p>On the wire the request is authenticated before its body is read: the magic and version,
 * then a header (session, block, token, the requester's challenge, its proof that it holds the
 * block keys when it is a DataNode, the body's length), then the body. The agent checks the token
 * and the length before it reads a byte of the body, and everything in the body is bounded
 * before anything is allocated for it.
 *
 * @param readLimit the part reads its block only below this offset (beyond it the repair needs
 *     zeros: a scalar code's lost block ends there, or the rows asked for do); at most the
 *     block's length, and within the rows asked for
 * @param firstRow the first cell row of the block to run; {@code rows} full rows follow
 * @param pieceBytes bytes of each sub-chunk per slice (the last piece of a sub-chunk may be shorter)
 * @param peers every node the part receives values from or sends values to
 * @param forClient whether the repair is a client's degraded read (its agents limit those)
 */
public record PlanPartRequest(long sessionHi, long sessionLo, ExtendedBlock block, Token<BlockTokenIdentifier> token,
                       long readLimit, int cellSize, int subchunkBytes, int firstRow, int rows, int pieceBytes,
                       NodePart part, Map<Integer, Peer> peers, boolean forClient) {
  static final int MAGIC = 0x45435050; // "ECPP"
  /** A load probe instead of a request: the agent answers with the bytes its parts still expect to receive. */
  static final int LOAD_PROBE = 0x4543504c; // "ECPL"
  // 2: followed by the requester's challenge (AgentProof); 3: READY carries the replica's checksum;
  // 4: a peer may be the requester itself, reached back over the control connection (a client);
  // 5: a header authenticated before the body, a requester proof, every peer's DataNode id
  static final int VERSION = 5;
  public static final int READY = 1;
  public static final int GO = 2;
  public static final int DONE = 3;
  public static final int ERROR = -1;
  static final int MAX_ALPHA = 1 << 13;
  static final int MAX_VERTEX = 1 << 20;
  static final int MAX_COUNT = 1 << 16;
  /** Nodes of a plan are the internal blocks of one group: at most 16. */
  static final int MAX_NODES = 16;
  public static final int MIN_PIECE = 1024;
  public static final int MAX_PIECE = 8 << 20;
  /** Rows a part may span (the agent bounds them by its block's length too). */
  static final int MAX_ROWS = 1 << 20;
  /** Numbers a whole part may hold (vertex ids and coefficients together): about 4 MiB. */
  static final int MAX_PART_NUMBERS = 1 << 20;
  /** The longest body a request may have: every number of the largest part, with room for its peers. */
  static final int MAX_BODY = 4 << 20;
  /** Levels of a plan's graph a part may name: a shipped plan has at most 10. */
  static final int MAX_LEVEL = 256;

  /**
   * A node's repair agent and the DataNode (its UUID) that must answer for it, or
   * ({@link #CONTROL}) the requester itself, which listens nowhere (a client): the part's values
   * for it go back over the control connection the request came on.
   */
  public record Peer(String host, int port, String datanodeId) {
    public static final Peer CONTROL = new Peer("", 0, "");

    /** Whether values for this peer go back over the request's own connection. */
    public boolean control() {
      return port == 0 && host.isEmpty();
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
    for (NodePart.Group g : part.outbound()) {
      if (!peers.containsKey(g.peer())) {
        throw new IllegalArgumentException("no address for node " + g.peer() + ", which the part sends to");
      }
    }
    for (NodePart.Group g : part.inbound()) {
      Peer p = peers.get(g.peer());
      if (p == null || p.control() || p.datanodeId().isEmpty()) {
        throw new IllegalArgumentException("no DataNode named for node " + g.peer() + ", which sends to the part");
      }
    }
    for (Peer p : peers.values()) {
      if (!p.control() && p.datanodeId().isEmpty()) {
        throw new IllegalArgumentException("no DataNode named for the agent at " + p.host() + ":" + p.port());
      }
    }
    if (peers.values().stream().filter(Peer::control).count() > 1) {
      throw new IllegalArgumentException("more than one peer is reached over the control connection");
    }
    peers = Map.copyOf(peers);
  }

  /**
   * The request's header as the agent reads it before the body: enough to authenticate it.
   * {@code sentAtMillis}: the requester's clock when it wrote the request, which its proof covers.
   */
  record Header(long sessionHi, long sessionLo, ExtendedBlock block, Token<BlockTokenIdentifier> token,
                long sentAtMillis, AgentProof.Received challenge, byte[] proof, int bodyLength) {}

  /**
   * Writes the request, with {@code challenge} for the agent of DataNode {@code agentId} to
   * answer and, from a DataNode, the proof that it holds the block keys.
   */
  public void write(DataOutput out, AgentProof.Challenge challenge, String agentId) throws IOException {
    byte[] body = body();
    long now = System.currentTimeMillis();
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    out.writeLong(sessionHi);
    out.writeLong(sessionLo);
    WireBlocks.write(out, block);
    token.write(out);
    out.writeLong(now);
    challenge.write(out);
    AgentProof.writeRequestProof(out, challenge.requestProof(agentId, digest(sessionHi, sessionLo, block, now, body)));
    out.writeInt(body.length);
    out.write(body);
  }

  private byte[] body() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
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
      out.writeUTF(p.getValue().datanodeId());
    }
    out.writeBoolean(forClient);
    out.flush();
    return bytes.toByteArray();
  }

  /** What a requester's proof covers: the session, the block, when it was sent and the body. */
  static byte[] digest(long sessionHi, long sessionLo, ExtendedBlock block, long sentAtMillis, byte[] body)
      throws IOException {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      ByteBuffer b = ByteBuffer.allocate(48);
      b.putLong(sessionHi).putLong(sessionLo).putLong(block.getBlockId()).putLong(block.getGenerationStamp())
          .putLong(block.getNumBytes()).putLong(sentAtMillis);
      d.update(b.array());
      d.update(block.getBlockPoolId().getBytes(StandardCharsets.UTF_8));
      return d.digest(body);
    } catch (NoSuchAlgorithmException e) {
      throw new IOException("no SHA-256 here", e);
    }
  }

  /** Reads a request's header after its magic number: small, and every length in it bounded. */
  static Header readHeader(DataInput in) throws IOException {
    AgentVersions.check(MAGIC, in.readInt());
    long hi = in.readLong();
    long lo = in.readLong();
    ExtendedBlock block = WireBlocks.read(in);
    Token<BlockTokenIdentifier> token = WireTokens.read(in);
    long sentAt = in.readLong();
    AgentProof.Received challenge = AgentProof.Received.read(in);
    byte[] proof = AgentProof.readRequestProof(in);
    int bodyLength = in.readInt();
    if (bodyLength < 1 || bodyLength > MAX_BODY) {
      throw new IOException("a plan part of " + bodyLength + " bytes (1.." + MAX_BODY + " allowed)");
    }
    return new Header(hi, lo, block, token, sentAt, challenge, proof, bodyLength);
  }

  /** Parses a request's body, read whole after its header checked out; anything malformed is an IOException. */
  static PlanPartRequest readBody(Header header, byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
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
    // A part's groups and steps are few per sub-chunk (a stored plan has at most one step per sub-chunk).
    int perAlpha = Math.min(MAX_COUNT, 2 * alpha + 16);
    List<NodePart.Group> inbound = readGroups(in, budget, perAlpha);
    List<NodePart.Group> outbound = readGroups(in, budget, perAlpha);
    int stepCount = bounded(in.readInt(), perAlpha + 1, "step count");
    List<NodePart.Step> steps = new ArrayList<>();
    for (int i = 0; i < stepCount; i++) {
      int level = bounded(in.readInt(), MAX_LEVEL, "level");
      int[] inputs = readInts(in, budget);
      int[] outputs = readInts(in, budget);
      if ((long) inputs.length * outputs.length > MAX_COUNT) {
        throw new IOException("a step of " + outputs.length + " x " + inputs.length + " coefficients");
      }
      spend(budget, inputs.length * outputs.length);
      byte[] m = new byte[inputs.length * outputs.length];
      in.readFully(m);
      try {
        steps.add(new NodePart.Step(level, inputs, outputs, new GFMatrix(outputs.length, inputs.length, m)));
      } catch (IllegalArgumentException e) {
        throw new IOException("bad plan part: " + e.getMessage(), e);
      }
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
      String host = WireBlocks.host(in);
      int port = bounded(in.readInt(), 65536, "port");
      String id = WireBlocks.datanodeId(in);
      if (peers.put(p, new Peer(host, port, id)) != null) {
        throw new IOException("node " + p + " is named twice");
      }
    }
    boolean forClient = in.readBoolean();
    if (in.available() > 0) {
      throw new IOException("a plan part with " + in.available() + " bytes past its end");
    }
    try {
      NodePart part = new NodePart(node, alpha, leaves, inbound, outbound, steps, results);
      return new PlanPartRequest(header.sessionHi(), header.sessionLo(), header.block(), header.token(), readLimit,
          cell, sub, firstRow, rows, piece, part, peers, forClient);
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

  private static List<NodePart.Group> readGroups(DataInput in, int[] budget, int maxCount) throws IOException {
    int count = bounded(in.readInt(), maxCount + 1, "group count");
    List<NodePart.Group> groups = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int peer = bounded(in.readInt(), MAX_NODES, "peer");
      int level = bounded(in.readInt(), MAX_LEVEL, "level");
      int[] vs = readInts(in, budget);
      try {
        groups.add(new NodePart.Group(peer, level, vs));
      } catch (IllegalArgumentException e) {
        throw new IOException("bad plan part: " + e.getMessage(), e);
      }
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
