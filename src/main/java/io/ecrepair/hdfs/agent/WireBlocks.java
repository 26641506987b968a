package io.ecrepair.hdfs.agent;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.regex.Pattern;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;

/**
 * A block and the names around it on the agents' wire: what a request may say is checked as it
 * is read, so nothing a requester chose reaches the DataNode's log or a lookup unchecked (a block
 * pool id with a line break in it, a host name the resolver would chase).
 */
final class WireBlocks {
  /** Block pool ids are "BP-" numbers and an address; DataNode ids are UUIDs; hosts are addresses or names. */
  private static final Pattern POOL = Pattern.compile("[A-Za-z0-9._:-]{1,256}");
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._:%-]{0,255}");
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{0,128}");

  private WireBlocks() {}

  static void write(DataOutput out, ExtendedBlock block) throws IOException {
    out.writeUTF(block.getBlockPoolId());
    out.writeLong(block.getBlockId());
    out.writeLong(block.getGenerationStamp());
    out.writeLong(block.getNumBytes());
  }

  /** A block as {@link #write} wrote it: block pool, id, generation stamp, length. */
  static ExtendedBlock read(DataInput in) throws IOException {
    ExtendedBlock block = new ExtendedBlock(checked(in.readUTF(), POOL, "block pool id"), in.readLong(), 0, 0);
    block.setGenerationStamp(in.readLong());
    block.setNumBytes(in.readLong());
    if (block.getNumBytes() < 0) {
      throw new IOException("a negative block length");
    }
    return block;
  }

  static String host(DataInput in) throws IOException {
    return checked(in.readUTF(), HOST, "host");
  }

  static String datanodeId(DataInput in) throws IOException {
    return checked(in.readUTF(), ID, "DataNode id");
  }

  private static String checked(String s, Pattern allowed, String what) throws IOException {
    if (!allowed.matcher(s).matches()) {
      throw new IOException("a " + what + " of " + s.length() + " characters that is not one");
    }
    return s;
  }
}
