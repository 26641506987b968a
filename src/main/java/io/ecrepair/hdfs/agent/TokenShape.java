package io.ecrepair.hdfs.agent;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.io.WritableUtils;

/**
 * Checks, before Hadoop decodes a block token's identifier to verify it, that every length
 * the identifier declares fits in the bytes it has. Hadoop's legacy decoder (the format a 3.3
 * NameNode issues unless {@code dfs.block.access.token.protobuf.enable}) allocates each string
 * and array at the length it reads, so a forged identifier of a few bytes could make it
 * allocate gigabytes. The protobuf format's decoder bounds lengths by the bytes itself.
 */
final class TokenShape {
  private TokenShape() {}

  static void check(byte[] identifier) throws IOException {
    if (identifier.length == 0) {
      throw new IOException("an empty block token");
    }
    if (identifier[0] > 0) {
      return; // protobuf (BlockTokenIdentifier.readFields decides on the first byte the same way)
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(identifier));
    try {
      WritableUtils.readVLong(in); // expiry
      WritableUtils.readVInt(in); // key id
      string(in); // user
      string(in); // block pool
      WritableUtils.readVLong(in); // block id
      int modes = WritableUtils.readVIntInRange(in, 0, BlockTokenIdentifier.AccessMode.values().length);
      for (int i = 0; i < modes; i++) {
        text(in);
      }
    } catch (EOFException e) {
      throw new IOException("a block token cut short", e);
    }
    try { // later fields, absent from older NameNodes' tokens
      int types = count(in);
      for (int i = 0; i < types; i++) {
        text(in);
      }
      int ids = count(in);
      for (int i = 0; i < ids; i++) {
        string(in);
      }
      skip(in, count(in)); // handshake secret
    } catch (EOFException older) {
      // as Hadoop's decoder: a token without them
    }
  }

  /** WritableUtils.readString: an int length (-1 for null), then that many bytes. */
  private static void string(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length != -1) {
      skip(in, length);
    }
  }

  /** Text (an enum's name): a vint length, then that many bytes. */
  private static void text(DataInputStream in) throws IOException {
    skip(in, WritableUtils.readVInt(in));
  }

  private static int count(DataInputStream in) throws IOException {
    int n = WritableUtils.readVInt(in);
    if (n < 0 || n > in.available()) {
      throw new IOException("a block token declares " + n + " entries in " + in.available() + " bytes");
    }
    return n;
  }

  private static void skip(DataInputStream in, int length) throws IOException {
    if (length < 0 || length > in.available()) {
      throw new IOException("a block token declares " + length + " bytes where " + in.available() + " are left");
    }
    in.skipBytes(length);
  }
}
