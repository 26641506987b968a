package io.ecrepair.hadooptests;

import org.apache.hadoop.hdfs.TestReadStripedFileWithDecodingCorruptData;
import org.junit.AfterClass;

/**
 * Hadoop 3.3.6's TestReadStripedFileWithDecodingCorruptData (stock-client degraded reads around corrupt replicas, which are reported) with our ISA-L RS coder: the class fixes its policy to
 * RS-6-3-1024k, so our Clay, Butterfly and LRC policies cannot be put under it.
 */
public class TestReadStripedFileWithDecodingCorruptDataOnRsIsal extends TestReadStripedFileWithDecodingCorruptData {
  public TestReadStripedFileWithDecodingCorruptDataOnRsIsal(int fileLength, int dataDelNum, int parityDelNum) {
    super(fileLength, dataDelNum, parityDelNum);
  }

  @AfterClass
  public static void rsWentThroughOurCoder() {
    RsIsalInUse.check();
  }
}
