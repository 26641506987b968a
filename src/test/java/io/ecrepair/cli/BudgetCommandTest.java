package io.ecrepair.cli;

import static io.ecrepair.cli.EcRepairCliTest.assertOneLineError;
import static io.ecrepair.cli.EcRepairCliTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@code ec-repair budget}'s arguments (the change on live DataNodes: LiveRepairBudgetTest). */
class BudgetCommandTest {
  @Test
  void ratesTakeBinaryPrefixesAndZeroIsUnlimited() {
    assertEquals(50L << 20, BudgetCommand.rate("--in", "50m"));
    assertEquals(500L << 10, BudgetCommand.rate("--in", "500k"));
    assertEquals(0L, BudgetCommand.rate("--out", "0"));
    assertNull(BudgetCommand.rate("--out", null));
    assertThrows(IllegalArgumentException.class, () -> BudgetCommand.rate("--in", "-1m"));
    assertThrows(IllegalArgumentException.class, () -> BudgetCommand.rate("--in", "fast"));
    assertThrows(IllegalArgumentException.class, () -> BudgetCommand.rate("--in", "2t"));
    assertThrows(IllegalArgumentException.class, () -> BudgetCommand.rate("--in", "1")); // would never be granted
  }

  @Test
  void badInputIsOneLine() {
    assertOneLineError(run("budget"), "--jmx HOST:PORT or --pid PID");
    assertOneLineError(run("budget", "--jmx", "localhost:1", "--in", "-5"), "--in: a repair bandwidth is 0 (unlimited) or 1024");
    assertOneLineError(run("budget", "--jmx", "no-port"), "host:port");
    assertOneLineError(run("budget", "--jmx", "localhost:1", "--user", "admin"), "--password-file");
  }
}
