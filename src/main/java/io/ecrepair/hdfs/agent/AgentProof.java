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
import java.util.EnumSet;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockIdManager;
import org.apache.hadoop.hdfs.server.common.HdfsServerConstants;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.EcRepairDataNodeAccess;
import org.apache.hadoop.security.token.Token;

/**
 * An agent proves it is the genuine agent of a DataNode of the cluster before anyone uses what it
 * sends. With block tokens on, the requester (a DataNode) mints a token of its own for this
 * purpose ({@code COPY} mode, so it is never the access token the request carries) and sends only
 * its identifier with a fresh random nonce; the agent answers with its DataNode's id and
 * HMAC-SHA256 keyed by that token's password over the purpose, its id and the nonce. The
 * password is what the cluster's block keys give the identifier: only a holder of the keys can
 * compute it, and nothing on the wire carries it, so something else on the agent's port cannot
 * answer (the access token's password, which the request does carry, is no help). The id in the
 * MAC binds the answer to one DataNode: another DataNode's agent cannot answer for this one.
 * Without block tokens there is nothing to prove with, and the agents trust the network as HDFS's
 * own data transfer does there. SASL, where configured, authenticates the ends as well.
 *
 * <p>The receiving end of a value stream proves itself the same way to the sender, which mints
 * the challenge for its own block, so a hop can only deliver a repair's values to a DataNode's
 * agent; each {@link Purpose} has its own context, so one kind of proof cannot stand in for the
 * other.
 */
public final class AgentProof {
  static final int NONCE_BYTES = 16;
  private static final int MAX_PROOF = 64;
  private static final int MAX_ID = 256;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** What a proof is for; each keys its MAC with its own context. */
  public enum Purpose {
    /** An agent answering a request (a part, ranges, a load probe). */
    SERVE("hadoop-ec-repair agent proof v2"),
    /** An agent receiving a value stream of a distributed repair. */
    RECEIVE("hadoop-ec-repair value stream receiver proof v2");

    private final byte[] context;

    Purpose(String context) {
      this.context = context.getBytes(StandardCharsets.US_ASCII);
    }
  }

  private AgentProof() {}

  /** A requester's side of one proof: the token it minted (its password stays here) and the nonce. */
  public static final class Challenge {
    private final Token<BlockTokenIdentifier> secret;
    private final byte[] nonce = new byte[NONCE_BYTES];

    private Challenge(Token<BlockTokenIdentifier> secret) {
      this.secret = secret;
      RANDOM.nextBytes(nonce);
    }

    /** A challenge about {@code block}, minted by {@code datanode} (an empty token without block tokens). */
    public static Challenge mint(DataNode datanode, ExtendedBlock block) throws IOException {
      return new Challenge(datanode.getBlockAccessToken(block, EnumSet.of(BlockTokenIdentifier.AccessMode.COPY),
          StorageType.EMPTY_ARRAY, new String[0]));
    }

    /**
     * A client's challenge: a client mints no tokens, so it keys the proof with an access token
     * the NameNode gave it for another internal block of the same group, one it does not send to
     * the agent it challenges (so something on that agent's port that took the request's token
     * still cannot answer). Agents answer challenges about any block of the requested block's group.
     */
    public static Challenge of(Token<BlockTokenIdentifier> heldToken) {
      return new Challenge(heldToken);
    }

    /** The identifier of the minted token (never its password) and the nonce. */
    public void write(DataOutput out) throws IOException {
      WireTokens.writeIdentifier(out, secret);
      out.write(nonce);
    }

    /**
     * Reads the agent's answer (or its refusal: {@code errorCode} and a message) and checks it:
     * the MAC of the DataNode {@code expectedId} (any DataNode of the cluster when null).
     */
    public void expect(DataInput in, String expectedId, String agent, int errorCode, Purpose purpose)
        throws IOException {
      int length = in.readInt();
      if (length == errorCode) {
        throw new IOException(agent + " refused the request: " + in.readUTF());
      }
      if (length < 0 || length > MAX_PROOF) {
        throw new IOException(agent + " sent a proof of " + length + " bytes");
      }
      byte[] proof = new byte[length];
      in.readFully(proof);
      String id = readId(in);
      boolean right = secret.getPassword().length == 0 ? length == 0
          : (expectedId == null || expectedId.equals(id))
              && MessageDigest.isEqual(mac(secret.getPassword(), purpose, id, nonce), proof);
      if (!right) {
        throw new IOException(agent + " cannot prove it is a DataNode's repair agent holding the cluster's block "
            + "keys; leaving it out");
      }
    }
  }

  /** What an agent read of a challenge: the identifier of the requester's token and the nonce. */
  record Received(byte[] identifier, byte[] nonce) {
    static Received read(DataInput in) throws IOException {
      byte[] id = WireTokens.readIdentifier(in);
      byte[] nonce = new byte[NONCE_BYTES];
      in.readFully(nonce);
      return new Received(id, nonce);
    }
  }

  /**
   * The agent's answer: its DataNode's id and the MAC, or nothing without tokens. For a request
   * ({@code block} not null) the challenge must be about that block, so an agent answers no
   * challenge for anything else it is asked.
   */
  static void prove(DataOutput out, DataNode datanode, Received challenge, ExtendedBlock block, Purpose purpose)
      throws IOException {
    String id = datanode.getDatanodeUuid();
    byte[] proof = new byte[0];
    if (EcRepairDataNodeAccess.blockTokensEnforced(datanode)) {
      TokenShape.check(challenge.identifier());
      BlockTokenIdentifier token = new BlockTokenIdentifier();
      token.readFields(new DataInputStream(new ByteArrayInputStream(challenge.identifier())));
      if (block != null && (!sameGroup(token.getBlockId(), block.getBlockId())
          || !token.getBlockPoolId().equals(block.getBlockPoolId()))) {
        throw new IOException("a challenge about a block of another group");
      }
      proof = mac(datanode.getBlockPoolTokenSecretManager().retrievePassword(token), purpose, id, challenge.nonce());
    }
    out.writeInt(proof.length);
    out.write(proof);
    out.writeUTF(id == null ? "" : id);
  }

  /** The same block, or internal blocks of one striped group (their ids differ in the low 4 bits only). */
  static boolean sameGroup(long a, long b) {
    return a == b || (BlockIdManager.isStripedBlockID(a) && BlockIdManager.isStripedBlockID(b)
        && (a & ~HdfsServerConstants.BLOCK_GROUP_INDEX_MASK) == (b & ~HdfsServerConstants.BLOCK_GROUP_INDEX_MASK));
  }

  private static String readId(DataInput in) throws IOException {
    String id = in.readUTF();
    if (id.length() > MAX_ID) {
      throw new IOException("a DataNode id of " + id.length() + " characters");
    }
    return id;
  }

  static byte[] mac(byte[] key, Purpose purpose, String datanodeId, byte[] nonce) throws IOException {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      m.update(purpose.context);
      byte[] id = datanodeId.getBytes(StandardCharsets.UTF_8);
      m.update(new byte[] {(byte) (id.length >>> 8), (byte) id.length});
      m.update(id);
      return m.doFinal(nonce);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot compute an agent proof: " + e.getMessage(), e);
    }
  }
}
