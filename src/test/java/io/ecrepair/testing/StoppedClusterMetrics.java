package io.ecrepair.testing;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.impl.MetricsSystemImpl;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * After each {@link ClusterTest} class, drops from Hadoop's process-wide metrics system the
 * sources its stopped clusters left there. A DataNode registers its dataset ("FSDatasetState")
 * and a NameNode its namesystem ("FSNamesystem") as metrics sources and never unregisters them,
 * so each keeps its whole DataNode or NameNode reachable for the life of the JVM: the test JVM,
 * which runs every cluster test class in turn, otherwise runs out of heap. Registered for every
 * class like {@link ClusterTestGuard}; a class's clusters are shut down by the time this runs.
 */
public final class StoppedClusterMetrics implements AfterAllCallback {
  private static final Pattern LEFT_BEHIND = Pattern.compile("(FSDatasetState|FSNamesystem)(-\\d+)?");

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (!context.getTags().contains(ClusterTest.TAG)) {
      return;
    }
    MetricsSystem ms = DefaultMetricsSystem.instance();
    if (!(ms instanceof MetricsSystemImpl)) {
      return;
    }
    List<String> names;
    synchronized (ms) {
      names = sourceNames((MetricsSystemImpl) ms).stream().filter(n -> LEFT_BEHIND.matcher(n).matches()).toList();
    }
    names.forEach(ms::unregisterSource);
  }

  @SuppressWarnings("unchecked")
  private static List<String> sourceNames(MetricsSystemImpl ms) throws ReflectiveOperationException {
    Field all = MetricsSystemImpl.class.getDeclaredField("allSources");
    all.setAccessible(true);
    return List.copyOf(((Map<String, ?>) all.get(ms)).keySet());
  }
}
