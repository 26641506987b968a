package io.ecrepair.hdfs.namenode;

import io.ecrepair.hdfs.HadoopLine;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.util.ServicePlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NameNode plugin ({@code dfs.namenode.plugins}): lets our EC placement policy see the
 * namespace. Hadoop 3.3.6 hands a placement policy only a path, a width and DataNodes, never
 * the file's EC policy nor which internal block a target is for; combined locality needs
 * both. The NameNode starts its plugins with itself, so this one keeps the NameNode for the
 * policy, which finds it again by the network topology they share (one JVM may run several
 * NameNodes, as a test cluster does).
 */
public final class EcRepairNameNodePlugin implements ServicePlugin {
  private static final Logger LOG = LoggerFactory.getLogger(EcRepairNameNodePlugin.class);
  private static final List<NameNode> STARTED = new CopyOnWriteArrayList<>();

  private volatile NameNode nameNode;

  @Override
  public void start(Object service) {
    if (!(service instanceof NameNode nn)) {
      LOG.error("ec-repair: NameNode plugin started by {}, not a NameNode: it does nothing (list it in "
          + "dfs.namenode.plugins only)", service == null ? "null" : service.getClass().getName());
      return;
    }
    String otherLine = HadoopLine.mismatch();
    if (otherLine != null) {
      LOG.error("ec-repair: NameNode plugin NOT started: {}", otherLine);
      return;
    }
    nameNode = nn;
    STARTED.add(nn);
    LOG.info("ec-repair: NameNode plugin active: the EC placement policy can read the namespace (EC policy of a "
        + "file, block indices of a group)");
  }

  @Override
  public void stop() {
    NameNode nn = nameNode;
    if (nn != null) {
      STARTED.remove(nn);
      nameNode = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** The namespace of the started NameNode whose DataNodes form {@code topology}. */
  static Optional<FSNamesystem> namesystemOf(NetworkTopology topology) {
    for (NameNode nn : STARTED) {
      FSNamesystem fsn = nn.getNamesystem();
      if (fsn != null && fsn.getBlockManager().getDatanodeManager().getNetworkTopology() == topology) {
        return Optional.of(fsn);
      }
    }
    return Optional.empty();
  }
}
