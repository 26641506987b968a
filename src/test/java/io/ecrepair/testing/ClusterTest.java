package io.ecrepair.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class that starts a MiniDFSCluster (directly or through RepairCluster, MiniHdfs,
 * DegradedCluster, SecureCluster, the demo). Plain {@code mvn test} leaves these out and runs
 * the fast unit tests only; {@code mvn verify -Pall} and {@code dev-support/test} run them too.
 * {@link ClusterTestGuard} fails an unmarked class that starts a cluster.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(ClusterTest.TAG)
public @interface ClusterTest {
  /** The JUnit tag; the pom's {@code test.excludedGroups} names it. */
  String TAG = "cluster";
}
