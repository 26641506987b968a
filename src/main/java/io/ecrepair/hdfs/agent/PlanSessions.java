package io.ecrepair.hdfs.agent;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The distributed repairs this DataNode takes part in, by session id: the repair agent hands
 * each incoming value stream to its session. A session id is 128 random bits the coordinator
 * chose and told only the participants.
 */
public final class PlanSessions {
  private final Map<String, PlanSession> sessions = new ConcurrentHashMap<>();

  private static String key(long hi, long lo) {
    return Long.toHexString(hi) + ":" + Long.toHexString(lo);
  }

  public void register(long hi, long lo, PlanSession s) {
    if (sessions.putIfAbsent(key(hi, lo), s) != null) {
      throw new IllegalStateException("session " + key(hi, lo) + " exists");
    }
  }

  PlanSession get(long hi, long lo) {
    return sessions.get(key(hi, lo));
  }

  public void remove(long hi, long lo) {
    sessions.remove(key(hi, lo));
  }

  /** Removes the session of that id only if it is {@code session} (not another that took the id since). */
  void remove(long hi, long lo, PlanSession session) {
    sessions.remove(key(hi, lo), session);
  }

  public int size() {
    return sessions.size();
  }
}
