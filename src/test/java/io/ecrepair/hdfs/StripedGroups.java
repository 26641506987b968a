package io.ecrepair.hdfs;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;

/** Where a striped file's internal blocks are, as the NameNode reports them (for mini-cluster tests). */
public final class StripedGroups {
  private StripedGroups() {}

  /** The file's block groups, in file order. */
  public static List<LocatedBlock> of(DistributedFileSystem fs, Path file) throws IOException {
    return fs.getClient().getLocatedBlocks(file.toString(), 0, Long.MAX_VALUE).getLocatedBlocks();
  }

  /** The DataNode holding internal block {@code index} of group {@code g} of {@code file}. */
  public static DatanodeInfo holder(DistributedFileSystem fs, Path file, int g, int index) throws IOException {
    LocatedStripedBlock group = (LocatedStripedBlock) of(fs, file).get(g);
    for (int j = 0; j < group.getBlockIndices().length; j++) {
      if (group.getBlockIndices()[j] == index) {
        return group.getLocations()[j];
      }
    }
    throw new AssertionError("no internal block " + index + " in group " + g + " of " + file);
  }
}
