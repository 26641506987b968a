package io.ecrepair.hdfs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ecrepair.codes.CodeSpec;
import io.ecrepair.exec.CellRowRepair;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The JVM-wide repair cache, and compiling every single-loss repair of a code ahead of need. */
class RepairCatalogTest {
  private static int[] allBut(int n, int lost) {
    return IntStream.range(0, n).filter(u -> u != lost).toArray();
  }

  @Test
  void preparesEverySingleLossRepairInTheBackground() throws InterruptedException {
    // A code no other test uses, so nothing is cached before.
    CodeSpec spec = new CodeSpec("clay", 5, 3);
    int n = spec.n();
    for (int lost = 0; lost < n; lost++) {
      assertFalse(RepairCatalog.isCached(spec, new int[] {lost}, allBut(n, lost)), "cached before: " + lost);
    }
    RepairCatalog.prepareSingleLosses(spec);
    long deadline = System.currentTimeMillis() + 60_000;
    for (int lost = 0; lost < n; lost++) {
      while (!RepairCatalog.isCached(spec, new int[] {lost}, allBut(n, lost))) {
        assertTrue(System.currentTimeMillis() < deadline, "repair of " + lost + " not prepared within 60 s");
        Thread.sleep(20);
      }
    }
    // The prepared plan is a real repair of its block: the lost block is not among its helpers.
    CellRowRepair prepared = RepairCatalog.plan(spec, new int[] {2}, allBut(n, 2));
    assertTrue(Arrays.stream(prepared.helpers()).noneMatch(u -> u == 2));
    // Patterns with more than one loss are left to the repairs that need them.
    assertFalse(RepairCatalog.isCached(spec, new int[] {0, 1}, IntStream.range(2, n).toArray()));
  }

  /**
   * A client's lookup takes the stored plans of its lost block and leaves the rest of the code
   * alone (no background search of every index in the client's JVM); a code not shipped gets
   * that one index searched. Run in a JVM of its own: other tests ready every shipped code in this one.
   */
  @Test
  void aClientLookupLoadsOneIndexOnly() throws Exception {
    Process p = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), ClientLookup.class.getName())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), out);
    assertTrue(out.contains("plans=3 readying=false central=false"), out);
    assertTrue(out.contains("not shipped: 0 at first, then 1 or more, readying=false"), out);
  }

  /** The child JVM of {@link #aClientLookupLoadsOneIndexOnly}. */
  static final class ClientLookup {
    public static void main(String[] args) throws InterruptedException {
      CodeSpec spec = new CodeSpec("clay", 10, 4);
      int plans = RepairCatalog.parallelPlansOfIndex(spec, 0).size();
      Thread.sleep(1000); // time for a background preparer to start, had one been asked
      System.out.println("plans=" + plans + " readying=" + RepairCatalog.isReadying(spec)
          + " central=" + RepairCatalog.centralPlanIfReady(spec, 1).isPresent());
      CodeSpec other = new CodeSpec("clay", 4, 2);
      int first = RepairCatalog.parallelPlansOfIndex(other, 0).size();
      long deadline = System.currentTimeMillis() + 50_000;
      int later = 0;
      while (later == 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
        later = RepairCatalog.parallelPlansOfIndex(other, 0).size();
      }
      System.out.println("not shipped: " + first + " at first, then " + (later > 0 ? "1 or more" : "none")
          + ", readying=" + RepairCatalog.isReadying(other));
    }
  }
}
