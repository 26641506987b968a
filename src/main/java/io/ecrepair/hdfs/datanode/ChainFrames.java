package io.ecrepair.hdfs.datanode;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The answer an agent streams down a repair chain: frames of partial-sum bytes, then an end
 * frame; or an error frame naming the helper that failed, so the rebuilding DataNode logs
 * which one it was. A connection that ends without an end frame is a failure too.
 */
final class ChainFrames {
  private static final int END = 0;
  private static final int ERROR = -1;

  private ChainFrames() {}

  /** A chain that broke: {@code unit} is the helper whose hop failed (-1 when unknown). */
  static final class ChainFailure extends IOException {
    final int unit;

    ChainFailure(int unit, String message, Throwable cause) {
      super(message, cause);
      this.unit = unit;
    }
  }

  static void writeData(DataOutputStream out, ByteBuffer data, int len) throws IOException {
    out.writeInt(len);
    if (data.hasArray()) {
      out.write(data.array(), data.arrayOffset(), len);
    } else {
      byte[] b = new byte[len];
      data.get(0, b);
      out.write(b);
    }
  }

  static void writeEnd(DataOutputStream out) throws IOException {
    out.writeInt(END);
    out.flush();
  }

  static void writeError(DataOutputStream out, int unit, String message) throws IOException {
    out.writeInt(ERROR);
    out.writeInt(unit);
    out.writeUTF(message.length() > 2000 ? message.substring(0, 2000) : message);
    out.flush();
  }

  /**
   * Reads the next data frame, which must hold exactly {@code len} bytes, into {@code dst}
   * from index 0.
   *
   * @throws ChainFailure when the chain reported an error or the stream broke
   */
  static void readData(DataInputStream in, byte[] dst, int len, String from) throws ChainFailure {
    int n = readFrameLength(in, from, "");
    if (n == ERROR) {
      throw readError(in, from);
    }
    if (n != len) {
      throw new ChainFailure(-1, "the chain from " + from + " sent " + (n == END ? "its end" : n + " bytes")
          + " where " + len + " were due", null);
    }
    try {
      in.readFully(dst, 0, len);
    } catch (IOException e) {
      throw new ChainFailure(-1, "the chain from " + from + " broke: " + e, e);
    }
  }

  /** Reads the end frame that follows the last data frame. */
  static void readEnd(DataInputStream in, String from) throws ChainFailure {
    int n = readFrameLength(in, from, " before its end");
    if (n == ERROR) {
      throw readError(in, from);
    }
    if (n != END) {
      throw new ChainFailure(-1, "the chain from " + from + " sent more bytes than asked for", null);
    }
  }

  private static int readFrameLength(DataInputStream in, String from, String where) throws ChainFailure {
    try {
      return in.readInt();
    } catch (IOException e) {
      throw new ChainFailure(-1, "the chain from " + from + " broke" + where + ": " + e, e);
    }
  }

  private static ChainFailure readError(DataInputStream in, String from) {
    try {
      int unit = in.readInt();
      return new ChainFailure(unit, in.readUTF(), null);
    } catch (IOException e) {
      return new ChainFailure(-1, "the chain from " + from + " failed and broke while saying why: " + e, e);
    }
  }
}
