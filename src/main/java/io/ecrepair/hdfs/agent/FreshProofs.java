package io.ecrepair.hdfs.agent;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The request proofs an agent took lately: a DataNode coordinator's proof counts once, and only
 * near the time its request says it was sent, so a part request read off the wire (without SASL
 * privacy) and sent again cannot pass for a DataNode's to escape the limit of clients' parts.
 * Clocks of DataNodes further apart than {@link #WINDOW_MS} make their parts count as clients'.
 */
final class FreshProofs {
  static final long WINDOW_MS = 120_000;
  /** Proofs kept at most: past it a proof does not count (its part is limited as a client's). */
  static final int MAX_KEPT = 1 << 16;

  private final LinkedHashMap<ByteBuffer, Long> taken = new LinkedHashMap<>();

  /** Whether {@code proof}, of a request sent at {@code sentAtMillis}, counts: fresh and not taken before. */
  synchronized boolean take(byte[] proof, long sentAtMillis, long nowMillis) {
    if (Math.abs(nowMillis - sentAtMillis) > WINDOW_MS) {
      return false;
    }
    // A proof older than two windows can no longer be fresh: forget it (the oldest come first).
    for (Iterator<Map.Entry<ByteBuffer, Long>> it = taken.entrySet().iterator(); it.hasNext(); ) {
      if (it.next().getValue() >= nowMillis - 2 * WINDOW_MS) {
        break;
      }
      it.remove();
    }
    ByteBuffer key = ByteBuffer.wrap(proof.clone());
    if (taken.containsKey(key) || taken.size() >= MAX_KEPT) {
      return false;
    }
    taken.put(key, nowMillis);
    return true;
  }
}
