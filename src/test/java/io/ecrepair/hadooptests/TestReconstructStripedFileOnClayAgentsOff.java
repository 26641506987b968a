package io.ecrepair.hadooptests;

import org.apache.hadoop.conf.Configuration;

/** Hadoop 3.3.6's TestReconstructStripedFile on CLAY-4-2-64k, the plugin without its agents (central repair). */
public class TestReconstructStripedFileOnClayAgentsOff extends TestReconstructStripedFileOnClay {
  static {
    Configuration.addDefaultResource("ec-repair-agents-off.xml"); // this JVM runs only this class
  }
}
