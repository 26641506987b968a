package io.ecrepair.hdfs.agent;

import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.EcRepairDataNodeAccess;
import org.apache.hadoop.security.token.Token;

/**
 * An agent proves it is the genuine agent of a DataNode of the cluster before a requester uses
 * anything it sends. With block tokens on, a request carries a fresh random challenge, and the
 * agent answers with a MAC of it keyed by the token's password, which only a holder of the
 * cluster's block keys can compute (the requester has the password from its token). An impostor
 * listening on the agent's port cannot answer and is left out, the repair going on without it.
 * Without block tokens there is nothing to prove with, and the agents trust the network as
 * HDFS's own data transfer does there. SASL, where configured, authenticates the ends as well.
 *
 * <p>The receiving end of a value stream proves itself the same way to the sender (so a hop
 * can only deliver a repair's values to a DataNode's agent), with a MAC of its own
 * {@link Purpose}: one kind of proof cannot stand in for the other.
 */
public final class AgentProof {
  static final int NONCE_BYTES = 16;
  private static final int MAX_PROOF = 64;

  /** What a proof is for; each keys its MAC with its own context. */
  public enum Purpose {
    /** An agent answering a request (a part, ranges, a load probe). */
    SERVE("hadoop-ec-repair agent proof v1"),
    /** An agent receiving a value stream of a distributed repair. */
    RECEIVE("hadoop-ec-repair value stream receiver proof v1");

    private final byte[] context;

    Purpose(String context) {
      this.context = context.getBytes(StandardCharsets.US_ASCII);
    }
  }
  private static final SecureRandom RANDOM = new SecureRandom();

  private AgentProof() {}

  public static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  static byte[] readNonce(DataInput in) throws IOException {
    byte[] n = new byte[NONCE_BYTES];
    in.readFully(n);
    return n;
  }

  /** The agent's answer to a request whose token checked out: a MAC of the challenge, or nothing without tokens. */
  static byte[] prove(DataNode datanode, Token<BlockTokenIdentifier> token, byte[] nonce) throws IOException {
    return prove(datanode, token.getIdentifier(), nonce, Purpose.SERVE);
  }

  /**
   * A proof for the token whose identifier is {@code identifier}: its password is what the
   * cluster's block keys give that identifier (an identifier of an unknown or expired key has
   * none, and is refused).
   */
  static byte[] prove(DataNode datanode, byte[] identifier, byte[] nonce, Purpose purpose) throws IOException {
    if (!EcRepairDataNodeAccess.blockTokensEnforced(datanode)) {
      return new byte[0];
    }
    TokenShape.check(identifier);
    BlockTokenIdentifier id = new BlockTokenIdentifier();
    id.readFields(new DataInputStream(new ByteArrayInputStream(identifier)));
    return mac(datanode.getBlockPoolTokenSecretManager().retrievePassword(id), nonce, purpose);
  }

  static void writeProof(DataOutput out, byte[] proof) throws IOException {
    out.writeInt(proof.length);
    out.write(proof);
  }

  /**
   * The requester's side: reads the agent's proof (or its refusal, {@code errorCode} and a
   * message) and checks it against the challenge and the token the request carried.
   */
  public static void expect(DataInput in, Token<BlockTokenIdentifier> token, byte[] nonce, String agent, int errorCode)
      throws IOException {
    expect(in, token, nonce, agent, errorCode, Purpose.SERVE);
  }

  static void expect(DataInput in, Token<BlockTokenIdentifier> token, byte[] nonce, String agent, int errorCode,
                     Purpose purpose) throws IOException {
    int length = in.readInt();
    if (length == errorCode) {
      throw new IOException(agent + " refused the request: " + in.readUTF());
    }
    if (length < 0 || length > MAX_PROOF) {
      throw new IOException(agent + " sent a proof of " + length + " bytes");
    }
    byte[] proof = new byte[length];
    in.readFully(proof);
    byte[] expected = token.getPassword().length == 0 ? new byte[0] : mac(token.getPassword(), nonce, purpose);
    if (!MessageDigest.isEqual(expected, proof)) {
      throw new IOException(agent + " cannot prove it holds the cluster's block keys: not a DataNode's repair "
          + "agent; leaving it out");
    }
  }

  private static byte[] mac(byte[] key, byte[] nonce, Purpose purpose) throws IOException {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      m.update(purpose.context);
      return m.doFinal(nonce);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot compute an agent proof: " + e.getMessage(), e);
    }
  }
}
