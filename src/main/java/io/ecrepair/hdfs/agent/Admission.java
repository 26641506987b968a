package io.ecrepair.hdfs.agent;

import java.net.Socket;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.io.IOUtils;

/**
 * Which connections a repair agent serves. A connection first waits for its request to arrive
 * (authenticated, whole, within its deadline); at most {@code arriving} do at once, and a new one
 * cuts the one that has waited longest, so connections that trickle or never authenticate cannot
 * keep a genuine request out (it arrives within milliseconds, before it is the oldest). A request
 * that arrived takes one of {@code working} slots for as long as it is served; with none free it
 * is refused and its requester falls back.
 */
final class Admission {
  private final int arriving;
  private final LinkedHashSet<Socket> waiting = new LinkedHashSet<>();
  private final Semaphore working;
  private final LongAdder cut = new LongAdder();

  Admission(int arriving, int working) {
    this.arriving = arriving;
    this.working = new Semaphore(working);
  }

  /** Admits a new connection to wait for its request, cutting the longest-waiting one if all places are taken. */
  void arrive(Socket s) {
    Socket oldest = null;
    synchronized (this) {
      if (waiting.size() >= arriving) {
        Iterator<Socket> it = waiting.iterator();
        oldest = it.next();
        it.remove();
      }
      waiting.add(s);
    }
    if (oldest != null) {
      cut.increment();
      IOUtils.closeSocket(oldest); // its handler's next read fails, and it leaves
    }
  }

  /**
   * The request on {@code s} arrived: whether it may be served now (false when it was cut while
   * arriving, or when every working slot is taken).
   */
  boolean work(Socket s) {
    synchronized (this) {
      if (!waiting.remove(s)) {
        return false;
      }
    }
    return working.tryAcquire();
  }

  /** {@code s} is done: it leaves its place, waiting or working ({@code worked}: it had a working slot). */
  void leave(Socket s, boolean worked) {
    synchronized (this) {
      waiting.remove(s);
    }
    if (worked) {
      working.release();
    }
  }

  /** Connections cut while their request was still arriving. */
  long cut() {
    return cut.sum();
  }
}
