package io.ecrepair.hadooptests;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.util.ServicePlugin;

/**
 * A test NameNode plugin: adds and enables the policies Hadoop's own tests run on
 * ({@link TestPolicies}) when the NameNode starts, as an operator would have with {@code hdfs
 * ec -addPolicies} and {@code -enablePolicy} (some of Hadoop's tests enable only system policies).
 */
public final class PoliciesAtStart implements ServicePlugin {
  /**
   * Plugins start before the NameNode takes requests and leaves safe mode: the policies are
   * added as soon as it does (within milliseconds; the cluster's DataNodes take longer).
   */
  @Override
  public void start(Object service) {
    NameNode nn = (NameNode) service;
    ErasureCodingPolicy[] policies = TestPolicies.all().toArray(new ErasureCodingPolicy[0]);
    Thread adder = new Thread(() -> {
      long deadline = System.currentTimeMillis() + 60_000;
      while (true) {
        try {
          nn.getRpcServer().addErasureCodingPolicies(policies);
          for (ErasureCodingPolicy p : policies) {
            nn.getRpcServer().enableErasureCodingPolicy(p.getName());
          }
          return;
        } catch (IOException e) {
          if (System.currentTimeMillis() > deadline) {
            throw new UncheckedIOException("adding the test policies at NameNode start", e);
          }
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "add test EC policies");
    adder.setDaemon(true);
    adder.start();
  }

  @Override
  public void stop() {
    // nothing to stop
  }

  @Override
  public void close() {
    // nothing to close
  }
}
