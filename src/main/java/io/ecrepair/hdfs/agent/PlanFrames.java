package io.ecrepair.hdfs.agent;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import io.ecrepair.exec.NodePart;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Frames of values between the participants of a distributed repair: {@code int length > 0,
 * int crc32c, bytes}; {@code int 0} ends a stream, {@code int -1} and a message reports an
 * error. Every frame's checksum is verified where it is received, so a byte changed on the
 * way (or by a faulty sender's memory) fails the repair instead of entering the block.
 *
 * <p>A value stream opens with {@link #STREAM_MAGIC}, the version, the session and the
 * sending node, then the two ends prove to each other that they are the DataNodes the plan names
 * ({@link StreamHandshake}) before any frame is sent.
 */
final class PlanFrames {
  static final int STREAM_MAGIC = 0x45435053; // "ECPS"
  // 2: the sender's token identifier and challenge follow the header; 3: the receiver challenges the sender too
  static final int VERSION = 3;
  /**
   * Bytes the queues of a part's streams in one direction share, each stream at least
   * {@link #STREAM_WINDOW_BYTES}: a chain's one stream each way then queues 16 frames of 128 KiB,
   * which rides out a hop's scheduling gaps on a loaded host (with two frames, chains on the
   * benchmark cluster took twice as long and about 1.5x the CPU per byte, their threads waking
   * per frame), while a part with many peers holds about what it moves per slice.
   */
  static final int DIRECTION_WINDOW_BYTES = 4 * 1024 * 1024;
  /** Bytes a stream's queue may hold at least (at least 2 frames, at most {@link #MAX_WINDOW}). */
  static final int STREAM_WINDOW_BYTES = 256 * 1024;
  static final int MAX_WINDOW = 16;
  static final int END = 0;
  static final int ERROR = -1;

  private PlanFrames() {}

  /** A frame whose checksum did not match, or a stream that broke or said it failed. */
  static final class FrameFailure extends IOException {
    FrameFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  static void writeStreamHeader(DataOutputStream out, long sessionHi, long sessionLo, int fromNode) throws IOException {
    out.writeInt(STREAM_MAGIC);
    out.writeInt(VERSION);
    out.writeLong(sessionHi);
    out.writeLong(sessionLo);
    out.writeInt(fromNode);
  }

  /** Writes {@code len} bytes of {@code b} with their checksum ({@code crc} as computed by {@link #crc}). */
  static void writeFrame(DataOutputStream out, byte[] b, int len, int crc) throws IOException {
    out.writeInt(len);
    out.writeInt(crc);
    out.write(b, 0, len);
  }

  static void writeEnd(DataOutputStream out) throws IOException {
    out.writeInt(END);
    out.flush();
  }

  static void writeError(DataOutputStream out, String message) throws IOException {
    out.writeInt(ERROR);
    out.writeUTF(message.length() > 2000 ? message.substring(0, 2000) : message);
    out.flush();
  }

  /**
   * Frames a stream whose frames are at most {@code frameBytes} long queues when it is one of
   * {@code streams} in its direction: what fits in its share of {@link #DIRECTION_WINDOW_BYTES}
   * (never less than {@link #STREAM_WINDOW_BYTES}), at least 2 (one being used, one arriving) and
   * at most {@link #MAX_WINDOW}. A queue in bytes keeps a part's memory near what it moves per
   * slice, whatever the size of its groups.
   */
  static int window(int frameBytes, int streams) {
    int bytes = Math.max(STREAM_WINDOW_BYTES, DIRECTION_WINDOW_BYTES / Math.max(1, streams));
    return Math.max(2, Math.min(MAX_WINDOW, bytes / FrameBuffers.sizeClass(Math.max(1, frameBytes))));
  }

  /** Per peer of {@code groups}: the longest frame it carries (its largest group's values of one piece). */
  static Map<Integer, Integer> maxFrames(List<NodePart.Group> groups, int pieceBytes) {
    Map<Integer, Integer> max = new TreeMap<>();
    for (NodePart.Group g : groups) {
      max.merge(g.peer(), Math.multiplyExact(g.vertices().length, pieceBytes), Math::max);
    }
    return max;
  }

  /**
   * The most bytes of frames the streams of {@code groups} hold: per peer its queue full and
   * {@code inFlight} more frames (arrays as {@link FrameBuffers} sizes them).
   */
  static long bytesHeld(List<NodePart.Group> groups, int pieceBytes, int inFlight) {
    long bytes = 0;
    Map<Integer, Integer> frames = maxFrames(groups, pieceBytes);
    for (int frame : frames.values()) {
      bytes += (long) (window(frame, frames.size()) + inFlight) * FrameBuffers.sizeClass(frame);
    }
    return bytes;
  }

  /** A frame's bytes: {@code length} bytes at the start of {@code bytes}, an array of {@link FrameBuffers}. */
  record Frame(byte[] bytes, int length) {}

  /**
   * Reads the next frame of at most {@code maxLen} bytes into an array from {@code buffers} and
   * verifies its checksum; null at the end of the stream.
   */
  static Frame readFrame(DataInputStream in, int maxLen, String from, FrameBuffers buffers) throws IOException {
    int len = in.readInt();
    if (len == END) {
      return null;
    }
    if (len == ERROR) {
      throw new FrameFailure(from + " failed: " + in.readUTF(), null);
    }
    if (len < 0 || len > maxLen) {
      throw new FrameFailure(from + " sent a frame of " + len + " bytes (at most " + maxLen + " expected)", null);
    }
    int crc = in.readInt();
    byte[] b = buffers.take(len);
    in.readFully(b, 0, len);
    if (crc(b, 0, len) != crc) {
      throw new FrameFailure(from + " sent a frame of " + len + " bytes whose checksum does not match", null);
    }
    return new Frame(b, len);
  }
}
