package io.ecrepair.hdfs.agent;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
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
 * Proofs between the ends of an agent connection that they hold the cluster's block keys, so
 * that only DataNodes can pass for an agent, a value stream's sender or a DataNode coordinator.
 *
 * <p>A challenge is the identifier of a block token plus a fresh random nonce; the answer is an
 * HMAC-SHA256 keyed by that token's password over the {@link Purpose}, the answering DataNode's
 * id, the nonce and what the proof is about (an address, a session, a request's digest). The
 * password is what the block keys give the identifier. A DataNode's challenge is a token it
 * minted itself for this ({@link #mint}: {@code COPY} mode and a storage id no other token
 * carries) and whose password never travels, so only a holder of the keys can answer it, and a
 * token with that mark is known never to have left one. A client mints no tokens: its challenges
 * are keyed by an access token the NameNode gave it ({@link Challenge#of}), which proves the agent
 * to the client but proves nothing of the client. Each purpose has its own MAC context, so one
 * kind of proof never stands in for another. Without block tokens there is nothing to prove
 * with: proofs are empty and the agents trust the network, as HDFS's own data transfer does there.
 */
public final class AgentProof {
  static final int NONCE_BYTES = 16;
  private static final int MAX_PROOF = 64;
  private static final int MAX_ID = 256;
  /** The storage id of the tokens DataNodes mint for challenges; no token the NameNode issues carries it. */
  static final String MINTED_MARK = "hadoop-ec-repair-challenge";
  private static final SecureRandom RANDOM = new SecureRandom();

  /** What a proof is for; each keys its MAC with its own context. */
  public enum Purpose {
    /** An agent answering a request (a part, ranges, a load probe). */
    SERVE("hadoop-ec-repair agent proof v3"),
    /** An agent receiving a value stream, bound to the address it accepted the stream on. */
    RECEIVE("hadoop-ec-repair value stream receiver proof v3"),
    /** A value stream's sender, bound to the session, its node and the receiving DataNode. */
    SEND("hadoop-ec-repair value stream sender proof v3"),
    /** A DataNode coordinator's part request, bound to the agent it is for and the request's bytes. */
    REQUEST("hadoop-ec-repair part request proof v3");

    private final byte[] context;

    Purpose(String context) {
      this.context = context.getBytes(StandardCharsets.US_ASCII);
    }
  }

  private AgentProof() {}

  /** A challenge about {@code block}, in a token minted by {@code datanode} (an empty token without block tokens). */
  static Token<BlockTokenIdentifier> mint(DataNode datanode, ExtendedBlock block) throws IOException {
    return datanode.getBlockAccessToken(block, EnumSet.of(BlockTokenIdentifier.AccessMode.COPY),
        StorageType.EMPTY_ARRAY, new String[] {MINTED_MARK});
  }

  /** A requester's side of one proof: the token keying it (its password stays here) and the nonce. */
  public static final class Challenge {
    private final Token<BlockTokenIdentifier> secret;
    private final boolean minted;
    private final byte[] nonce = new byte[NONCE_BYTES];

    private Challenge(Token<BlockTokenIdentifier> secret, boolean minted) {
      this.secret = secret;
      this.minted = minted;
      RANDOM.nextBytes(nonce);
    }

    /** A challenge about {@code block}, minted by {@code datanode}. */
    public static Challenge mint(DataNode datanode, ExtendedBlock block) throws IOException {
      return new Challenge(AgentProof.mint(datanode, block), true);
    }

    /**
     * A client's challenge, keyed by an access token the NameNode gave it for another internal
     * block of the same group, one it does not send to the agent it challenges (so something on
     * that agent's port that took the request's token still cannot answer). Agents answer
     * challenges about any block of the requested block's group.
     */
    public static Challenge of(Token<BlockTokenIdentifier> heldToken) {
      return new Challenge(heldToken, false);
    }

    /** The identifier of the token (never its password) and the nonce. */
    public void write(DataOutput out) throws IOException {
      WireTokens.writeIdentifier(out, secret);
      out.write(nonce);
    }

    byte[] nonce() {
      return nonce.clone();
    }

    /**
     * Reads an answer (or a refusal: {@code errorCode} and a message, or
     * {@link AgentVersions#REFUSED} and what the agent speaks) and checks it: the proof of
     * the DataNode {@code expectedId} (any DataNode's when null) for {@code purpose} about
     * {@code about}. Returns the id it names.
     */
    public String expect(DataInput in, String expectedId, String agent, int errorCode, Purpose purpose, byte[] about)
        throws IOException {
      int length = in.readInt();
      if (length == errorCode) {
        throw new IOException(agent + " refused the request: " + readMessage(in));
      }
      if (length == AgentVersions.REFUSED) {
        throw AgentVersions.read(in, agent);
      }
      if (length < 0 || length > MAX_PROOF) {
        throw new IOException(agent + " sent a proof of " + length + " bytes");
      }
      byte[] proof = new byte[length];
      in.readFully(proof);
      String id = readId(in);
      boolean right = (expectedId == null || expectedId.equals(id)) && (secret.getPassword().length == 0
          ? length == 0 : MessageDigest.isEqual(mac(secret.getPassword(), purpose, id, nonce, about), proof));
      if (!right) {
        throw new IOException(agent + " cannot prove it is " + (expectedId == null ? "a DataNode's agent"
            : "the agent of DataNode " + expectedId) + " (with the cluster's block keys, at this address); leaving it out");
      }
      return id;
    }

    /** As above, about nothing more than the nonce. */
    public String expect(DataInput in, String expectedId, String agent, int errorCode, Purpose purpose)
        throws IOException {
      return expect(in, expectedId, agent, errorCode, purpose, new byte[0]);
    }

    /**
     * This requester's proof that it holds the block keys, for a request to the agent of
     * {@code agentId} whose bytes digest to {@code digest}; empty when it cannot make one (a
     * client's challenge, or no block tokens).
     */
    byte[] requestProof(String agentId, byte[] digest) throws IOException {
      return minted && secret.getPassword().length > 0 ? mac(secret.getPassword(), Purpose.REQUEST, agentId, nonce,
          digest) : new byte[0];
    }
  }

  /** What an agent read of a challenge: the identifier of the challenger's token and the nonce. */
  record Received(byte[] identifier, byte[] nonce) {
    static Received read(DataInput in) throws IOException {
      byte[] id = WireTokens.readIdentifier(in);
      byte[] nonce = new byte[NONCE_BYTES];
      in.readFully(nonce);
      return new Received(id, nonce);
    }
  }

  /** As {@link #prove(DataOutput, DataNode, Received, ExtendedBlock, Purpose, byte[])}, about nothing more. */
  static void prove(DataOutput out, DataNode datanode, Received challenge, ExtendedBlock block, Purpose purpose)
      throws IOException {
    prove(out, datanode, challenge, block, purpose, new byte[0]);
  }

  /**
   * Writes this DataNode's answer: the proof length, the MAC (nothing without tokens) and its
   * id. The challenge must be about a block of {@code block}'s group, so an agent answers no
   * challenge about anything else.
   */
  static void prove(DataOutput out, DataNode datanode, Received challenge, ExtendedBlock block, Purpose purpose,
                    byte[] about) throws IOException {
    String id = idOf(datanode);
    byte[] proof = new byte[0];
    if (EcRepairDataNodeAccess.blockTokensEnforced(datanode)) {
      proof = mac(passwordOf(datanode, challenge, block), purpose, id, challenge.nonce(), about);
    }
    out.writeInt(proof.length);
    out.write(proof);
    out.writeUTF(id);
  }

  /**
   * Whether a part request's proof shows that its requester holds the block keys (a DataNode):
   * the challenge it sent is a token minted by a key holder for challenges, and the proof is
   * that token's MAC over this agent's id and the request's digest.
   */
  static boolean requestFromKeyHolder(DataNode datanode, Received challenge, ExtendedBlock block, byte[] proof,
                                      byte[] digest) throws IOException {
    if (!EcRepairDataNodeAccess.blockTokensEnforced(datanode) || proof.length == 0 || !minted(challenge)) {
      return false;
    }
    byte[] expected = mac(passwordOf(datanode, challenge, block), Purpose.REQUEST, idOf(datanode), challenge.nonce(),
        digest);
    return MessageDigest.isEqual(expected, proof);
  }

  /** Reads a request proof: a short length (at most a MAC's) and its bytes. */
  static byte[] readRequestProof(DataInput in) throws IOException {
    int length = in.readUnsignedShort();
    if (length > MAX_PROOF) {
      throw new IOException("a request proof of " + length + " bytes");
    }
    byte[] proof = new byte[length];
    in.readFully(proof);
    return proof;
  }

  static void writeRequestProof(DataOutput out, byte[] proof) throws IOException {
    out.writeShort(proof.length);
    out.write(proof);
  }

  /** Whether a challenge's token is one a key holder minted for challenges (its password never travels). */
  private static boolean minted(Received challenge) throws IOException {
    BlockTokenIdentifier id = decode(challenge.identifier());
    return id.getAccessModes().equals(EnumSet.of(BlockTokenIdentifier.AccessMode.COPY))
        && Arrays.equals(id.getStorageIds(), new String[] {MINTED_MARK});
  }

  /** The password the block keys give a challenge's token, which must be about a block of {@code block}'s group. */
  private static byte[] passwordOf(DataNode datanode, Received challenge, ExtendedBlock block) throws IOException {
    BlockTokenIdentifier token = decode(challenge.identifier());
    if (!sameGroup(token.getBlockId(), block.getBlockId()) || !token.getBlockPoolId().equals(block.getBlockPoolId())) {
      throw new IOException("a challenge about a block of another group");
    }
    return datanode.getBlockPoolTokenSecretManager().retrievePassword(token);
  }

  private static BlockTokenIdentifier decode(byte[] identifier) throws IOException {
    TokenShape.check(identifier);
    BlockTokenIdentifier token = new BlockTokenIdentifier();
    try {
      token.readFields(new DataInputStream(new ByteArrayInputStream(identifier)));
    } catch (RuntimeException e) { // Hadoop's decoder on a malformed token (an unknown enum name)
      throw new IOException("a malformed block token: " + e.getMessage(), e);
    }
    return token;
  }

  static String idOf(DataNode datanode) {
    String id = datanode.getDatanodeUuid();
    return id == null ? "" : id;
  }

  /** The same block, or internal blocks of one striped group (their ids differ in the low 4 bits only). */
  static boolean sameGroup(long a, long b) {
    return a == b || (BlockIdManager.isStripedBlockID(a) && BlockIdManager.isStripedBlockID(b)
        && (a & ~HdfsServerConstants.BLOCK_GROUP_INDEX_MASK) == (b & ~HdfsServerConstants.BLOCK_GROUP_INDEX_MASK));
  }

  /** An address as proofs bind it: its IP address bytes and port. */
  static byte[] about(InetSocketAddress address) {
    byte[] ip = address.getAddress() == null ? new byte[0] : address.getAddress().getAddress();
    return concat(ip, new byte[] {(byte) (address.getPort() >>> 8), (byte) address.getPort()});
  }

  /** What a sender's proof is bound to: the session, the sending node, the receiving DataNode and the sender's nonce. */
  static byte[] aboutStream(long sessionHi, long sessionLo, int fromNode, String receiverId, byte[] senderNonce)
      throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(b);
    out.writeLong(sessionHi);
    out.writeLong(sessionLo);
    out.writeInt(fromNode);
    out.writeUTF(receiverId);
    out.write(senderNonce);
    return b.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  private static String readId(DataInput in) throws IOException {
    int length = in.readUnsignedShort();
    if (length > MAX_ID) {
      throw new IOException("a DataNode id of " + length + " bytes");
    }
    byte[] b = new byte[length];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  /** A refusal's message, read with its length bounded (as {@link DataOutput#writeUTF} wrote it). */
  static String readMessage(DataInput in) throws IOException {
    return in.readUTF(); // at most 65535 bytes by its own encoding
  }

  static byte[] mac(byte[] key, Purpose purpose, String datanodeId, byte[] nonce) throws IOException {
    return mac(key, purpose, datanodeId, nonce, new byte[0]);
  }

  static byte[] mac(byte[] key, Purpose purpose, String datanodeId, byte[] nonce, byte[] about) throws IOException {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      m.update(purpose.context);
      byte[] id = datanodeId.getBytes(StandardCharsets.UTF_8);
      m.update(new byte[] {(byte) (id.length >>> 8), (byte) id.length});
      m.update(id);
      m.update(nonce);
      return m.doFinal(about);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot compute an agent proof: " + e.getMessage(), e);
    }
  }
}
