package io.ecrepair.testing;

import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that starts a MiniDFSCluster without being marked {@link ClusterTest}, so
 * the fast set stays fast and nothing that needs a cluster hides in it. Registered for every
 * class (META-INF/services, with extension autodetection on in junit-platform.properties).
 *
 * <p>The sign is Hadoop's metrics "mini cluster mode", which MiniDFSCluster switches on when its
 * class is first initialized and nothing switches off. It can only be seen to change once per
 * JVM: in the fast set (no marked class runs) the first unmarked class that starts a cluster is
 * caught; in a full run a marked class has usually switched it on already, and nothing is
 * checked from then on. Clusters started in a child JVM are not seen.
 */
public final class ClusterTestGuard implements BeforeAllCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ClusterTestGuard.class);
  private static final String BEFORE = "miniClusterModeBefore";

  @Override
  public void beforeAll(ExtensionContext context) {
    context.getStore(NS).put(BEFORE, DefaultMetricsSystem.inMiniClusterMode());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    Boolean before = context.getStore(NS).get(BEFORE, Boolean.class);
    if (Boolean.FALSE.equals(before) && DefaultMetricsSystem.inMiniClusterMode()
        && !context.getTags().contains(ClusterTest.TAG)) {
      throw new AssertionError(context.getRequiredTestClass().getName()
          + " started a MiniDFSCluster but is not marked @" + ClusterTest.class.getName()
          + ": mark it so that plain 'mvn test' (the fast unit tests) leaves it out");
    }
  }
}
