package io.ecrepair.hdfs.datanode;

import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hdfs.DFSClientFaultInjector;

/**
 * Holds a client's packets to some units of a striped group: the streamer threads of those
 * units (named after their internal block) stop before sending a packet until {@link #fail()},
 * then fail without sending it, as if their DataNodes had gone. Installed with
 * {@link DFSClientFaultInjector#set}; every client in the JVM sees it.
 */
public final class HeldPackets extends DFSClientFaultInjector {
  private static final Pattern INTERNAL_BLOCK = Pattern.compile("blk_(-?\\d+)_");

  private final Set<Integer> units;
  private final CountDownLatch failed = new CountDownLatch(1);

  public HeldPackets(Set<Integer> units) {
    this.units = Set.copyOf(units);
  }

  @Override
  public boolean corruptPacket() {
    Matcher m = INTERNAL_BLOCK.matcher(Thread.currentThread().getName());
    if (m.find() && units.contains((int) (Long.parseLong(m.group(1)) & 0xF))) {
      try {
        failed.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("packet to unit " + (Long.parseLong(m.group(1)) & 0xF) + " held back");
    }
    return false;
  }

  /** Lets the held streamers go on, to fail. */
  public void fail() {
    failed.countDown();
  }
}
