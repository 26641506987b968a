package io.ecrepair.hdfs.agent;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.apache.hadoop.hdfs.DFSClient;
import org.apache.hadoop.hdfs.net.BasicInetPeer;
import org.apache.hadoop.hdfs.protocol.DatanodeID;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.datatransfer.IOStreamPair;
import org.apache.hadoop.hdfs.protocol.datatransfer.sasl.DataEncryptionKeyFactory;
import org.apache.hadoop.hdfs.protocol.datatransfer.sasl.SaslDataTransferClient;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.security.token.Token;

/**
 * Connections to and from repair agents, protected exactly as the DataNode's own data transfer
 * is on this cluster: the same handshake HDFS's DataNodes use between themselves (its
 * {@code SaslDataTransferClient} and {@code SaslDataTransferServer}), so with
 * {@code dfs.encrypt.data.transfer} the bytes are encrypted, with
 * {@code dfs.data.transfer.protection} both ends authenticate with a block token and the bytes
 * get the configured integrity or privacy, and on a cluster with neither the streams are plain,
 * as HDFS's are there.
 */
public final class AgentChannels {
  private AgentChannels() {}

  /**
   * The most bytes an agent connection may carry before it is trusted (a request's header and
   * body, or a handshake and a proof), and the longest message SASL may wrap on it: the largest
   * frame a part may send (a piece of every value of a group, within a part's memory).
   */
  static final int MAX_UNTRUSTED_BYTES = PlanPartRequest.MAX_BODY + (1 << 20);
  static final int MAX_WRAPPED_MESSAGE = 64 << 20;

  /**
   * One connection to or from a repair agent, with the streams the handshake gave it and its
   * raw input's guard: until {@link #trust} a deadline and a byte cap bound what the other end
   * can make this side read.
   */
  public record Channel(Socket socket, InputStream in, OutputStream out, GuardedInput guard) implements Closeable {
    /** The other end proved itself (or its request arrived whole): no deadline or byte cap from here. */
    void trust() throws IOException {
      guard.trust();
    }

    /** How long each read waits from here (0: as long as it takes). */
    public void readTimeout(long millis) throws IOException {
      guard.readTimeout(millis);
    }

    @Override
    public void close() {
      IOUtils.closeSocket(socket);
    }
  }

  /**
   * A socket whose reads and writes Hadoop's streams can time out (one with a channel, as the
   * DataNode's own are): a plain socket's writes wait forever on a peer that stops reading.
   */
  static Socket newSocket() throws IOException {
    return java.nio.channels.SocketChannel.open().socket();
  }

  /**
   * The streams of {@code s} after the cluster's handshake, which {@code handshake} does on the
   * raw streams: the raw input guarded until the caller trusts the connection, and SASL's
   * wrapped messages bounded where it wraps them.
   */
  private static Channel channel(Socket s, long untrustedMillis, long readTimeoutMillis, int writeTimeoutMillis,
                                 Handshake handshake) throws IOException {
    OutputStream rawOut = NetUtils.getOutputStream(s, writeTimeoutMillis);
    GuardedInput rawIn = new GuardedInput(NetUtils.getInputStream(s), untrustedMillis, MAX_UNTRUSTED_BYTES,
        readTimeoutMillis);
    IOStreamPair p = handshake.run(rawOut, rawIn);
    if (p.in instanceof org.apache.hadoop.security.SaslInputStream) {
      rawIn.limitWrappedMessages(MAX_WRAPPED_MESSAGE);
    }
    return new Channel(s, p.in, p.out, rawIn);
  }

  /** The cluster's handshake on a connection's raw streams. */
  private interface Handshake {
    IOStreamPair run(OutputStream rawOut, InputStream rawIn) throws IOException;
  }

  /**
   * Opens connections for one request as DataNode {@code datanode}: {@code block} and
   * {@code token} are what its handshakes use, and value streams it opens prove it is this
   * DataNode with challenges about {@code block}.
   */
  public static Dialer dialer(DataNode datanode, ExtendedBlock block, Token<BlockTokenIdentifier> token) {
    return new Dialer(datanode.getSaslClient(), datanode.getDataEncryptionKeyFactoryForBlock(block), token,
        datanode.getDnConf().getSocketWriteTimeout(), datanode, block);
  }

  /**
   * Opens a client's connections for one request, as its block readers' are made (the
   * client's SASL client, its encryption keys from the NameNode, its write timeout). A client
   * sends no value streams.
   */
  public static Dialer clientDialer(DFSClient client, Token<BlockTokenIdentifier> token) {
    return new Dialer(client.getSaslDataTransferClient(), client, token, client.getConf().getDatanodeSocketWriteTimeout(),
        null, null);
  }

  /** Opens connections to repair agents on behalf of one request. */
  public static final class Dialer {
    private final SaslDataTransferClient sasl;
    private final DataEncryptionKeyFactory keys;
    private final Token<BlockTokenIdentifier> token;
    private final int writeTimeoutMs;
    private final DataNode datanode;
    private final ExtendedBlock block;

    private Dialer(SaslDataTransferClient sasl, DataEncryptionKeyFactory keys, Token<BlockTokenIdentifier> token,
                   int writeTimeoutMs, DataNode datanode, ExtendedBlock block) {
      this.sasl = sasl;
      this.keys = keys;
      this.token = token;
      this.writeTimeoutMs = writeTimeoutMs;
      this.datanode = datanode;
      this.block = block;
    }

    /**
     * Opens a value stream on {@code c} ({@link StreamHandshake}): returns once its receiver
     * proved it is DataNode {@code receiverId} at the address dialled and this DataNode proved
     * itself in turn.
     */
    void openStream(Channel c, DataOutputStream out, DataInputStream in, long sessionHi, long sessionLo, int from,
                    String receiverId, String receiver) throws IOException {
      if (datanode == null) {
        throw new IOException("a client sends no value streams");
      }
      InetSocketAddress dialed = new InetSocketAddress(c.socket().getInetAddress(), c.socket().getPort());
      StreamHandshake.open(out, in, sessionHi, sessionLo, from, receiverId, dialed,
          AgentProof.Challenge.mint(datanode, block), datanode, block, receiver);
      c.trust();
    }

    /**
     * Connects to {@code agent} and does the handshake; {@code receiveBufferBytes} (0: the
     * system's) is set before connecting, the read timeout after.
     */
    public Channel dial(InetSocketAddress agent, int connectTimeoutMs, int readTimeoutMs, int receiveBufferBytes)
        throws IOException {
      Socket s = newSocket();
      try {
        s.setTcpNoDelay(true);
        if (receiveBufferBytes > 0) {
          s.setReceiveBufferSize(receiveBufferBytes);
        }
        try {
          NetUtils.connect(s, agent, connectTimeoutMs);
        } catch (IOException e) {
          throw new Unreachable(agent, e);
        }
        // The agent's port stands for the transfer port in the handshake (HDFS skips SASL only for privileged ports).
        DatanodeID target = new DatanodeID(agent.getAddress().getHostAddress(), agent.getHostString(), "",
            agent.getPort(), 0, 0, 0);
        // Until the agent proved itself, twice the read timeout in all for the handshake and the
        // proof (a requester reads the proofs of a repair's helpers one after another).
        return channel(s, 2L * Math.max(1, readTimeoutMs), readTimeoutMs, writeTimeoutMs,
            (rawOut, rawIn) -> sasl.socketSend(s, rawOut, rawIn, keys, token, target));
      } catch (IOException | RuntimeException e) {
        IOUtils.closeSocket(s);
        throw e;
      }
    }
  }

  /** A repair agent that no connection reached (refused, no route, or no answer within the connect timeout). */
  public static final class Unreachable extends IOException {
    private final transient InetSocketAddress agent;

    Unreachable(InetSocketAddress agent, IOException cause) {
      super("cannot connect to the repair agent at " + agent + ": " + cause, cause);
      this.agent = agent;
    }

    public InetSocketAddress agent() {
      return agent;
    }

    /** The agents an exception, its causes and what it suppressed could not reach. */
    public static java.util.Set<InetSocketAddress> in(Throwable e) {
      java.util.Set<InetSocketAddress> agents = new java.util.HashSet<>();
      collect(e, agents, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
      return agents;
    }

    private static void collect(Throwable t, java.util.Set<InetSocketAddress> agents, java.util.Set<Throwable> seen) {
      if (t == null || !seen.add(t)) {
        return;
      }
      if (t instanceof Unreachable u) {
        agents.add(u.agent);
      }
      collect(t.getCause(), agents, seen);
      for (Throwable s : t.getSuppressed()) {
        collect(s, agents, seen);
      }
    }
  }

  /**
   * The server side of the handshake, on a connection an agent accepted: its request must arrive
   * whole within {@code arrivalMillis} (then the caller trusts it), each read after waits at most
   * {@code readTimeoutMillis}.
   */
  static Channel accept(DataNode datanode, Socket s, long arrivalMillis, long readTimeoutMillis) throws IOException {
    return channel(s, arrivalMillis, readTimeoutMillis, datanode.getDnConf().getSocketWriteTimeout(),
        (rawOut, rawIn) -> datanode.getSaslServer().receive(new BasicInetPeer(s), rawOut, rawIn, s.getLocalPort(),
            datanode.getDatanodeId()));
  }
}
