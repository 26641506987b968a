package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestFileChecksum;
import org.junit.AfterClass;

/**
 * Hadoop 3.3.6's TestFileChecksum (file checksums (MD5MD5CRC), whole and ranges, with up to three unavailable blocks; the DataNode decodes the lost blocks' checksums (StripedBlockChecksumReconstructor)) with our ISA-L RS coder: the class fixes its policy to
 * RS-6-3-1024k, so our Clay, Butterfly and LRC policies cannot be put under it.
 */
public class TestFileChecksumOnRsIsal extends TestFileChecksum {
  @AfterClass
  public static void rsWentThroughOurCoder() {
    RsIsalInUse.check();
  }
}
