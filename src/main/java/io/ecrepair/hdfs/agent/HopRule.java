package io.ecrepair.hdfs.agent;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Where a part may send values: to another DataNode's repair agent, never to an address a
 * DataNode of this cluster cannot have. A hop is a connection the agent opens on a requester's
 * word, so without this rule a token holder could point it at this host's own services, a
 * link-local metadata service or any port of the network (the agent dials it and runs a
 * handshake there: a port scanner). Refused: unresolved, wildcard and multicast addresses;
 * loopback and link-local ones unless this DataNode itself lives on one (a cluster on one host,
 * as in tests); and any port but this agent's own, since every agent listens on its DataNode's
 * transfer port plus the cluster's one offset, unless the operator says the DataNodes' transfer
 * ports differ ({@code ecrepair.datanode.agent.hops.any-port}) or they live on loopback.
 */
final class HopRule {
  /** Where this DataNode lives (known once it registered with the NameNode). */
  interface OwnAddress {
    InetAddress get() throws IOException;
  }

  private final OwnAddress ownAddress;
  private final int ownPort;
  private final boolean anyPort;
  private final boolean hostNames;

  /**
   * For the agent of the DataNode at {@code own} listening on {@code ownPort}. {@code hostNames}:
   * whether DataNodes reach one another by host name ({@code dfs.datanode.use.datanode.hostname});
   * otherwise a hop must be an IP address, so a requester cannot make the agent wait on a
   * resolver for names it chose.
   */
  HopRule(OwnAddress own, int ownPort, boolean anyPort, boolean hostNames) {
    this.ownAddress = own;
    this.ownPort = ownPort;
    this.anyPort = anyPort;
    this.hostNames = hostNames;
  }

  /** The address of the hop to {@code host}:{@code port}, or an IOException saying why it cannot be an agent. */
  InetSocketAddress check(String host, int port) throws IOException {
    if (!hostNames && !org.apache.hadoop.thirdparty.com.google.common.net.InetAddresses.isInetAddress(host)) {
      throw new IOException("a hop names " + host + ", not an IP address (DataNodes here reach one another by address)");
    }
    InetAddress own = ownAddress.get();
    InetSocketAddress a = new InetSocketAddress(host, port);
    InetAddress ip = a.getAddress();
    String why = null;
    if (a.isUnresolved() || port <= 0) {
      why = "it does not resolve to an address and port";
    } else if (ip.isAnyLocalAddress() || ip.isMulticastAddress()) {
      why = "a wildcard or multicast address";
    } else if (ip.isLoopbackAddress() && !own.isLoopbackAddress()) {
      why = "a loopback address, and this DataNode is not on one";
    } else if (ip.isLinkLocalAddress() && !own.isLinkLocalAddress()) {
      why = "a link-local address, and this DataNode is not on one";
    } else if (port != ownPort && !anyPort && !own.isLoopbackAddress()) {
      why = "agents listen on port " + ownPort + " here (ecrepair.datanode.agent.hops.any-port allows others)";
    }
    if (why != null) {
      throw new IOException("a hop names " + host + ":" + port + ", which cannot be a DataNode's repair agent: " + why);
    }
    return a;
  }
}
