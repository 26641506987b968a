package io.ecrepair.hdfs.agent;

import java.util.ArrayDeque;

/**
 * What repairs that are being planned may soon ask of a DataNode: each load probe may carry the
 * bytes its prober would add if it chose this DataNode, and the agent counts them for a short
 * while. Tasks of a full-node recovery start within a second of one another and probe before any
 * of them has sent a part, so their backlogs alone all look idle and every task would choose
 * the same helpers; with intents, the tenth task to probe a rack sees nine others considering
 * it. A task that has chosen announces what its plan brings to each helper, so that the tasks
 * choosing after it see the choice before any byte moves. An intent lapses after its lifetime
 * ({@link #LIFETIME_MS} for probes), by when a chosen plan counts its real backlog; until then an
 * announced choice counts twice, which makes the next tasks spare that DataNode a little more.
 */
public final class LoadIntents {
  /** How long an intent counts: a little more than the spread of a recovery's task starts. */
  static final long LIFETIME_MS = 2_000;
  /** Intents kept at most (the oldest go first), so a flood of probes cannot grow memory. */
  static final int MAX_KEPT = 4096;
  /** The most one probe may announce: a part takes in at most as much ({@link PlanParticipant#MAX_EXPECTED}). */
  public static final long MAX_BYTES = PlanParticipant.MAX_EXPECTED;

  private final ArrayDeque<long[]> kept = new ArrayDeque<>(); // {at ms, bytes}
  private final long lifetimeMs;
  private long sum;

  /** Intents of probes, counting {@link #LIFETIME_MS}. */
  LoadIntents() {
    this(LIFETIME_MS);
  }

  /** Intents counting {@code lifetimeMs} each. */
  public LoadIntents(long lifetimeMs) {
    this.lifetimeMs = lifetimeMs;
  }

  /** The bytes of the other intents still counting at {@code nowMs}; then counts {@code bytes} (0: none). */
  public synchronized long othersThenAdd(long bytes, long nowMs) {
    if (bytes < 0 || bytes > MAX_BYTES) {
      throw new IllegalArgumentException("an intent of " + bytes + " bytes");
    }
    while (!kept.isEmpty() && (nowMs - kept.peekFirst()[0] >= lifetimeMs || nowMs < kept.peekFirst()[0])) {
      sum -= kept.removeFirst()[1];
    }
    long others = sum;
    if (bytes > 0) {
      if (kept.size() == MAX_KEPT) {
        sum -= kept.removeFirst()[1];
      }
      kept.addLast(new long[] {nowMs, bytes});
      sum += bytes;
    }
    return others;
  }
}
