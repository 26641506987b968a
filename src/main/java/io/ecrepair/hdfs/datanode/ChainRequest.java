package io.ecrepair.hdfs.datanode;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.security.token.Token;

/**
 * A repair pipelining request (ECPipe's basic path) as it travels between repair agents: the
 * helpers of one lost internal block of a scalar code (RS, LRC), head first. The agent that
 * receives it is the last hop: it asks the hop before it for the partial sum of the hops
 * before, adds {@code coef} times its own block, and streams the sum on, so every link of
 * the chain carries one block and the rebuilding DataNode receives one block in all.
 *
 * <p>Bytes past a helper's block length are zeros (the striped layout pads short cells with
 * zeros before coding), so the sum of the whole blocks is the lost block.
 *
 * @param length bytes of the lost internal block to produce, from offset 0
 * @param sliceBytes the size of the pieces that flow along the chain
 */
record ChainRequest(String blockPoolId, long length, int sliceBytes, List<Hop> hops) {
  static final int MAGIC = 0x45435043; // "ECPC"
  /** A load probe instead of a request: the agent answers with the bytes its hops still expect from upstream. */
  static final int LOAD_PROBE = 0x4543504c; // "ECPL"
  static final int VERSION = 1;
  static final int MAX_HOPS = 64;
  static final int MIN_SLICE = 4 * 1024;
  static final int MAX_SLICE = 8 * 1024 * 1024;

  /**
   * One helper: its internal block index, where it is (host, data transfer port, agent port),
   * its block, the coefficient of its block in the lost one and a token to read it.
   */
  record Hop(int unit, String host, int xferPort, int agentPort, long blockId, long genStamp, long numBytes,
             int coef, Token<BlockTokenIdentifier> token) {
    ExtendedBlock block(String blockPoolId) {
      return new ExtendedBlock(blockPoolId, blockId, numBytes, genStamp);
    }

    @Override
    public String toString() {
      return "internal block " + unit + " on " + host + ":" + xferPort;
    }
  }

  ChainRequest {
    if (hops.isEmpty() || hops.size() > MAX_HOPS) {
      throw new IllegalArgumentException("a chain has 1.." + MAX_HOPS + " helpers, not " + hops.size());
    }
    if (sliceBytes < MIN_SLICE || sliceBytes > MAX_SLICE) {
      throw new IllegalArgumentException("slice of " + sliceBytes + " bytes outside " + MIN_SLICE + ".." + MAX_SLICE);
    }
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length);
    }
    hops = List.copyOf(hops);
  }

  /** The hop that serves this request: the last one. */
  Hop self() {
    return hops.get(hops.size() - 1);
  }

  /**
   * How long to wait for the first slice of this chain's answer: every hop may take up to a
   * stall to set up (reach the hop before it, start its block read), so a long chain on busy
   * DataNodes is not taken for a dead one. Later slices get one stall each.
   */
  int firstSliceMillis(long stallMillis) {
    return (int) Math.min(Integer.MAX_VALUE, stallMillis * hops.size());
  }

  /** The request this hop sends the hop before it (null at the head). */
  ChainRequest upstream() {
    return hops.size() == 1 ? null : new ChainRequest(blockPoolId, length, sliceBytes, hops.subList(0, hops.size() - 1));
  }

  void write(DataOutput out) throws IOException {
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    out.writeUTF(blockPoolId);
    out.writeLong(length);
    out.writeInt(sliceBytes);
    out.writeInt(hops.size());
    for (Hop h : hops) {
      out.writeInt(h.unit());
      out.writeUTF(h.host());
      out.writeInt(h.xferPort());
      out.writeInt(h.agentPort());
      out.writeLong(h.blockId());
      out.writeLong(h.genStamp());
      out.writeLong(h.numBytes());
      out.writeByte(h.coef());
      h.token().write(out);
    }
  }

  /** Reads a request; anything malformed is an IOException naming what was wrong. */
  static ChainRequest read(DataInput in) throws IOException {
    int magic = in.readInt();
    if (magic != MAGIC) {
      throw new IOException("not a repair chain request (magic " + Integer.toHexString(magic) + ")");
    }
    return readAfterMagic(in);
  }

  /** Reads a request whose magic number was read (and was {@link #MAGIC}). */
  static ChainRequest readAfterMagic(DataInput in) throws IOException {
    int version = in.readInt();
    if (version != VERSION) {
      throw new IOException("repair chain request version " + version + ", this agent speaks " + VERSION);
    }
    String pool = in.readUTF();
    long length = in.readLong();
    int slice = in.readInt();
    int count = in.readInt();
    if (count < 1 || count > MAX_HOPS) {
      throw new IOException("a chain has 1.." + MAX_HOPS + " helpers, not " + count);
    }
    List<Hop> hops = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int unit = in.readInt();
      String host = in.readUTF();
      int xfer = in.readInt();
      int agent = in.readInt();
      long id = in.readLong();
      long gs = in.readLong();
      long bytes = in.readLong();
      int coef = in.readUnsignedByte();
      Token<BlockTokenIdentifier> token = new Token<>();
      token.readFields(in);
      if (bytes < 0) {
        throw new IOException("negative block length for hop " + i);
      }
      hops.add(new Hop(unit, host, xfer, agent, id, gs, bytes, coef, token));
    }
    try {
      return new ChainRequest(pool, length, slice, hops);
    } catch (IllegalArgumentException e) {
      throw new IOException("bad repair chain request: " + e.getMessage(), e);
    }
  }
}
