package io.ecrepair.hdfs.agent;

import java.io.FilterInputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import org.apache.hadoop.net.SocketInputWrapper;

/**
 * The raw input of an agent connection, bounding what the other end can make this side read.
 * Until the connection is trusted ({@link #trust}: an accepted request arrived whole, or a
 * dialled agent proved itself) every read waits at most until a deadline, however often a byte
 * comes (a read timeout alone restarts with every byte), and at most {@code maxBytes} are read in
 * all: a connection that trickles, or that sends more than any request or handshake can be, is
 * cut. After that each read waits at most the read timeout. Where SASL wraps the bytes
 * ({@code integrity}, {@code privacy}), the length of every wrapped message is checked as it
 * passes, before Hadoop's SaslInputStream allocates an array of that length.
 */
final class GuardedInput extends FilterInputStream {
  private final SocketInputWrapper socket;
  private final long allowedMillis;
  private final long deadlineNanos;
  private final long maxBytes;
  private volatile boolean trusted;
  private long readBytes;
  private long readTimeoutMillis;
  /** Wrapped messages: their largest length (0: not wrapped), the header bytes seen, the payload left. */
  private int maxMessage;
  private int headerSeen;
  private int header;
  private long payloadLeft;

  /**
   * @param allowedMillis how long the connection has until it is trusted
   * @param maxBytes how much it may send until then
   * @param readTimeoutMillis how long a read waits once it is trusted (0: as long as it takes)
   */
  GuardedInput(SocketInputWrapper socket, long allowedMillis, long maxBytes, long readTimeoutMillis) {
    super(socket);
    this.socket = socket;
    this.allowedMillis = allowedMillis;
    this.deadlineNanos = System.nanoTime() + allowedMillis * 1_000_000L;
    this.maxBytes = maxBytes;
    this.readTimeoutMillis = readTimeoutMillis;
  }

  /** The connection is trusted: no deadline or byte cap from here, each read waits the read timeout. */
  void trust() throws IOException {
    trusted = true;
    socket.setTimeout(readTimeoutMillis);
  }

  /** How long each read waits from here (0: as long as it takes), once trusted. */
  void readTimeout(long millis) throws IOException {
    readTimeoutMillis = millis;
    if (trusted) {
      socket.setTimeout(millis);
    }
  }

  /** SASL wraps what follows: no wrapped message may be longer than {@code max}. */
  void limitWrappedMessages(int max) {
    maxMessage = max;
  }

  private void arm() throws IOException {
    if (trusted) {
      return;
    }
    long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
    if (left <= 0) {
      throw new SocketTimeoutException("the request did not arrive within " + allowedMillis + " ms");
    }
    socket.setTimeout(readTimeoutMillis > 0 ? Math.min(left, readTimeoutMillis) : left);
  }

  /** Counts {@code n} bytes read (into {@code b} at {@code off}), checking the cap and the wrapped messages' lengths. */
  private void count(byte[] b, int off, int n) throws IOException {
    if (n <= 0) {
      return;
    }
    if (!trusted) {
      readBytes += n;
      if (readBytes > maxBytes) {
        throw new IOException("the other end sent more than the " + maxBytes + " bytes a request may have");
      }
    }
    if (maxMessage == 0) {
      return;
    }
    for (int i = off; i < off + n; ) {
      if (payloadLeft > 0) {
        int skip = (int) Math.min(payloadLeft, off + n - i);
        payloadLeft -= skip;
        i += skip;
        continue;
      }
      header = header << 8 | (b[i++] & 0xff);
      if (++headerSeen == 4) {
        long length = header & 0xffffffffL;
        if (length > maxMessage) {
          throw new IOException("a wrapped message of " + length + " bytes (at most " + maxMessage + ")");
        }
        payloadLeft = length;
        headerSeen = 0;
        header = 0;
      }
    }
  }

  @Override
  public int read() throws IOException {
    arm();
    int c = super.read();
    if (c >= 0) {
      count(new byte[] {(byte) c}, 0, 1);
    }
    return c;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    arm();
    int n = super.read(b, off, len);
    count(b, off, n);
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    throw new IOException("an agent connection is read, not skipped");
  }
}
