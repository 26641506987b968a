package io.ecrepair.hdfs.agent;

import io.ecrepair.exec.NodePart;
import io.ecrepair.exec.SliceGeometry;
import java.io.IOException;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;

/**
 * A fault-injection point for tests, like HDFS's DataNodeFaultInjector: called after each
 * range a helper delivered, before a helper's bytes are copied into a row, and before each frame
 * a repair agent sends, it may throw to make that
 * helper fail at a chosen point of a repair; called when a distributed repair's session opens,
 * it lets an attack test know what an observer of the wire would. Does nothing unless a test sets it.
 */
public final class ReadFaults {
  /** What a test injects. */
  public interface Hook {
    default void afterRange(DatanodeInfo source, int rangesDelivered) throws IOException {
    }

    /**
     * A reconstruction's reader of helper {@code source} is about to copy received bytes into
     * its row buffer: a test may stall it here, where a reader that outlived its repair would
     * write into a buffer it no longer owns.
     */
    default void beforeCellWrite(DatanodeInfo source) {
    }

    /**
     * Before the part of node {@code node} on {@code datanode} sends its {@code frames}-th frame
     * of a distributed repair (the first {@code length} bytes of {@code frame}), whose checksum
     * is already computed: may change the bytes (a fault on the way) or throw (the participant
     * fails there).
     */
    default void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length) throws IOException {
    }

    /**
     * A part of session {@code sessionHi:sessionLo} was registered on {@code datanode} (its
     * transfer address) and waits for the values of its senders: stands in for someone who
     * reads session ids on the wire (possible without SASL privacy). Called before any sender
     * is told to go. {@code senders}: the DataNode (UUID) the plan names for each sending node.
     */
    default void sessionOpened(String datanode, long sessionHi, long sessionLo, NodePart part, SliceGeometry geometry,
                               java.util.Map<Integer, String> senders) {
    }
  }

  private static final Hook NONE = new Hook() { };
  private static volatile Hook hook = NONE;

  private ReadFaults() {}

  public static void set(Hook h) {
    hook = h == null ? NONE : h;
  }

  public static void afterRange(DatanodeInfo source, int rangesDelivered) throws IOException {
    hook.afterRange(source, rangesDelivered);
  }

  public static void beforeCellWrite(DatanodeInfo source) {
    hook.beforeCellWrite(source);
  }

  public static void sessionOpened(String datanode, long sessionHi, long sessionLo, NodePart part,
                                   SliceGeometry geometry, java.util.Map<Integer, String> senders) {
    hook.sessionOpened(datanode, sessionHi, sessionLo, part, geometry, senders);
  }

  static void beforeFrameSent(String datanode, int node, int frames, byte[] frame, int length) throws IOException {
    hook.beforeFrameSent(datanode, node, frames, frame, length);
  }
}
