package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * Where a part may send values: another DataNode's agent. A DataNode on a routable address
 * refuses hops to loopback, link-local, wildcard and multicast addresses and to any port but its
 * agents' own; a DataNode that itself lives on loopback (a cluster on one host) allows loopback
 * and any port, since its peers really live there.
 */
class HopRuleTest {
  private static HopRule at(String own, int port, boolean anyPort) {
    return new HopRule(() -> InetAddress.getByName(own), port, anyPort, false);
  }

  @Test
  void aDataNodeOnTheNetworkSendsOnlyToAgentsOnTheNetwork() throws IOException {
    HopRule rule = at("10.1.2.3", 9876, false);
    assertEquals(9876, rule.check("10.1.2.4", 9876).getPort());
    for (String host : new String[] {"127.0.0.1", "127.8.9.10", "::1", "169.254.169.254", "fe80::1",
        "0.0.0.0", "::", "224.0.0.1", "ff02::1"}) {
      assertThrows(IOException.class, () -> rule.check(host, 9876), host);
    }
    assertThrows(IOException.class, () -> rule.check("10.1.2.4", 22), "another port than the agents'");
    assertThrows(IOException.class, () -> rule.check("10.1.2.4", 0));
    assertThrows(IOException.class, () -> rule.check("no-such-host.invalid", 9876));
    assertThrows(IOException.class, () -> rule.check("dn4.example.com", 9876), "a name, where DataNodes use addresses");
    // A cluster whose DataNodes use different transfer ports says so.
    assertEquals(9900, at("10.1.2.3", 9876, true).check("10.1.2.4", 9900).getPort());
    assertThrows(IOException.class, () -> at("10.1.2.3", 9876, true).check("127.0.0.1", 9900));
  }

  @Test
  void namesAreResolvedOnlyWhereDataNodesUseThem() throws IOException {
    HopRule byName = new HopRule(() -> InetAddress.getByName("127.0.0.1"), 40007, false, true);
    assertEquals(41234, byName.check("localhost", 41234).getPort());
    assertThrows(IOException.class, () -> at("127.0.0.1", 40007, false).check("localhost", 41234));
  }

  @Test
  void aClusterOnLoopbackHopsOnLoopback() throws IOException {
    HopRule rule = at("127.0.0.1", 40007, false);
    assertEquals(41234, rule.check("127.0.0.1", 41234).getPort(), "its DataNodes listen on many ports there");
    assertThrows(IOException.class, () -> rule.check("0.0.0.0", 41234));
    assertThrows(IOException.class, () -> rule.check("224.0.0.1", 41234));
    assertThrows(IOException.class, () -> rule.check("169.254.169.254", 41234));
  }
}
