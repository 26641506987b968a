package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.hdfs.protocol.DatanodeID;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.jupiter.api.Test;

class StaticCostsTest {
  private static DatanodeInfo node(String ip, String host, int port, String rack) {
    DatanodeInfo d = new DatanodeInfo.DatanodeInfoBuilder()
        .setNodeID(new DatanodeID(ip, host, "uuid-" + host, port, 0, 0, 0)).build();
    d.setNetworkLocation(rack);
    return d;
  }

  @Test
  void hostsAndRacksMultiply() {
    StaticCosts c = StaticCosts.parse(" dn7=4 , /old=2,10.0.0.9:9866=3,10.0.0.8=5, junk, neg=-1, zero=0, =2");
    assertEquals(4, c.of(node("10.0.0.7", "dn7", 9866, "/new")));
    assertEquals(8, c.of(node("10.0.0.7", "dn7", 9866, "/old")), "host and rack");
    assertEquals(3, c.of(node("10.0.0.9", "dn9", 9866, "/new")), "by transfer address");
    assertEquals(1, c.of(node("10.0.0.9", "dn9", 9867, "/new")), "another port on that host");
    assertEquals(5, c.of(node("10.0.0.8", "dn8", 9866, "/new")), "by IP");
    assertEquals(2, c.of(node("10.0.0.1", "dn1", 9866, "/old")), "rack only");
    assertEquals(1, c.of(node("10.0.0.1", "neg", 9866, "/new")), "a negative factor is skipped");
    assertEquals(1, c.of(node("10.0.0.1", "zero", 9866, "/new")), "a zero factor is skipped");
    assertEquals(1, StaticCosts.parse("").of(node("10.0.0.1", "dn1", 1, "/r")));
  }
}
