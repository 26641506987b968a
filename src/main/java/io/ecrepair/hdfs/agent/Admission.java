package io.ecrepair.hdfs.agent;

import java.net.Socket;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.io.IOUtils;

/**
 * Which connections a repair agent serves. A connection first waits for its request to arrive
 * (authenticated, whole, within its deadline); at most {@code arriving} do at once, and a new one
 * cuts the one that has waited longest, so connections that trickle or never authenticate cannot
 * keep a genuine request out (it arrives within milliseconds, before it is the oldest). A request
 * that arrived takes a working slot of its kind for as long as it is served; with none free it is
 * refused and its requester falls back. Value streams have slots of their own: only a DataNode
 * can open one (it must prove it), so requests from token holders cannot take their place.
 */
final class Admission {
  /** What a request that arrived works at. */
  enum Slot { REQUEST, STREAM }

  private final int arriving;
  private final LinkedHashSet<Socket> waiting = new LinkedHashSet<>();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Semaphore requests;
  private final Semaphore streams;
  private final LongAdder cut = new LongAdder();

  Admission(int arriving, int requests, int streams) {
    this.arriving = arriving;
    this.requests = new Semaphore(requests);
    this.streams = new Semaphore(streams);
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
    open.add(s);
    if (oldest != null) {
      cut.increment();
      IOUtils.closeSocket(oldest); // its handler's next read fails, and it leaves
    }
  }

  /**
   * The request on {@code s} arrived: the slot it works in, or null when it may not be served
   * now (it was cut while arriving, or every slot of its kind is taken).
   */
  Slot work(Socket s, Slot kind) {
    synchronized (this) {
      if (!waiting.remove(s)) {
        return null;
      }
    }
    return (kind == Slot.STREAM ? streams : requests).tryAcquire() ? kind : null;
  }

  /** {@code s} is done: it leaves its place, waiting or working in {@code slot} (null: none). */
  void leave(Socket s, Slot slot) {
    synchronized (this) {
      waiting.remove(s);
    }
    open.remove(s);
    if (slot != null) {
      (slot == Slot.STREAM ? streams : requests).release();
    }
  }

  /** Closes every connection still open (the agent stops). */
  void closeAll() {
    open.forEach(IOUtils::closeSocket);
  }

  /** Connections cut while their request was still arriving. */
  long cut() {
    return cut.sum();
  }
}
