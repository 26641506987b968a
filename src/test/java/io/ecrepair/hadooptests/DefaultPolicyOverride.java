package io.ecrepair.hadooptests;

import static net.bytebuddy.matcher.ElementMatchers.named;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.dynamic.loading.ClassReloadingStrategy;
import net.bytebuddy.implementation.MethodDelegation;
import org.apache.hadoop.hdfs.StripedFileTestUtil;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Some of Hadoop 3.3.6's EC test classes take their policy from
 * {@code StripedFileTestUtil.getDefaultECPolicy()} in a field initializer (the system policy
 * RS-6-3-1024k), with no method to override. For this JVM (each Hadoop test class runs in one of
 * its own), that method is redefined to return one of our policies instead, so that the whole
 * class, cluster size and file sizes included, runs on it.
 */
final class DefaultPolicyOverride {
  private static volatile ErasureCodingPolicy policy;

  private DefaultPolicyOverride() {}

  static synchronized void install(ErasureCodingPolicy p) {
    if (policy != null) {
      throw new IllegalStateException("the default policy of this JVM is already " + policy.getName());
    }
    policy = p;
    ByteBuddyAgent.install();
    new ByteBuddy().redefine(StripedFileTestUtil.class)
        .method(named("getDefaultECPolicy")).intercept(MethodDelegation.to(Target.class))
        .make().load(StripedFileTestUtil.class.getClassLoader(), ClassReloadingStrategy.fromInstalledAgent());
    if (!StripedFileTestUtil.getDefaultECPolicy().getName().equals(p.getName())) {
      throw new IllegalStateException("StripedFileTestUtil.getDefaultECPolicy() was not redefined");
    }
  }

  /**
   * Fails unless {@code test}'s class hierarchy took its policy, in field {@code field} (static
   * or not) of class {@code declaring}, from the override.
   */
  static void assertUsedBy(Class<?> declaring, Object test, String field) {
    try {
      java.lang.reflect.Field f = declaring.getDeclaredField(field);
      f.setAccessible(true);
      ErasureCodingPolicy used = (ErasureCodingPolicy) f.get(test);
      if (policy == null || !used.getName().equals(policy.getName())) {
        throw new AssertionError(declaring.getSimpleName() + " ran on " + used.getName() + ", not on "
            + (policy == null ? "an overriding policy" : policy.getName()));
      }
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("cannot read " + declaring.getSimpleName() + "." + field, e);
    }
  }

  /** What the redefined method calls. */
  public static final class Target {
    private Target() {}

    public static ErasureCodingPolicy getDefaultECPolicy() {
      return policy;
    }
  }
}
