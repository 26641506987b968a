package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestDecommissionWithStriped;
import org.junit.AfterClass;

/**
 * Hadoop 3.3.6's TestDecommissionWithStriped (decommissioning and maintenance of DataNodes holding striped blocks, with busy and dead nodes) with our ISA-L RS coder: the class fixes its policy to
 * RS-6-3-1024k, so our Clay, Butterfly and LRC policies cannot be put under it.
 */
public class TestDecommissionWithStripedOnRsIsal extends TestDecommissionWithStriped {
  @AfterClass
  public static void rsWentThroughOurCoder() {
    RsIsalInUse.check();
  }
}
