package io.ecrepair.hdfs.agent;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.security.token.Token;

/**
 * A block access token on the agents' wire, in Hadoop's own encoding ({@link Token#write}), read
 * back with every length bounded before anything is allocated ({@link Token#readFields} would
 * allocate whatever length the peer sends).
 */
final class WireTokens {
  /** A block token's identifier is about a hundred bytes, its password 20 to 64. */
  static final int MAX_FIELD = 16 * 1024;

  private WireTokens() {}

  static Token<BlockTokenIdentifier> read(DataInput in) throws IOException {
    byte[] identifier = field(in, "identifier");
    byte[] password = field(in, "password");
    Text kind = new Text(field(in, "kind"));
    Text service = new Text(field(in, "service"));
    return new Token<>(identifier, password, kind, service);
  }

  /** A token's identifier alone, as a value stream's sender proves it with ({@link AgentProof}). */
  static byte[] readIdentifier(DataInput in) throws IOException {
    return field(in, "identifier");
  }

  static void writeIdentifier(DataOutput out, Token<BlockTokenIdentifier> token) throws IOException {
    WritableUtils.writeVInt(out, token.getIdentifier().length);
    out.write(token.getIdentifier());
  }

  private static byte[] field(DataInput in, String what) throws IOException {
    int length = WritableUtils.readVInt(in);
    if (length < 0 || length > MAX_FIELD) {
      throw new IOException("a token's " + what + " of " + length + " bytes (0.." + MAX_FIELD + " allowed)");
    }
    byte[] b = new byte[length];
    in.readFully(b);
    return b;
  }
}
