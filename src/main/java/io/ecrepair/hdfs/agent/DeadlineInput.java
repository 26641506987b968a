package io.ecrepair.hdfs.agent;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * The raw input of an accepted agent connection while its request arrives: every read waits at
 * most until the request's deadline, so a request that trickles in a byte at a time is cut when
 * its time is up, however often a byte comes (a read timeout alone restarts with every byte).
 * {@link #lift} ends the deadline once the request is in; reads then wait at most the idle
 * timeout each, as before.
 */
final class DeadlineInput extends FilterInputStream {
  private final Socket socket;
  private final int idleMillis;
  private final long allowedMillis;
  private final long deadlineNanos;
  private volatile boolean lifted;

  /** The request on {@code socket} (read through {@code in}) must arrive within {@code allowedMillis}. */
  DeadlineInput(Socket socket, InputStream in, long allowedMillis, int idleMillis) {
    super(in);
    this.socket = socket;
    this.idleMillis = idleMillis;
    this.allowedMillis = allowedMillis;
    this.deadlineNanos = System.nanoTime() + allowedMillis * 1_000_000L;
  }

  /** The request arrived: reads wait the idle timeout from here. */
  void lift() throws IOException {
    lifted = true;
    socket.setSoTimeout(idleMillis);
  }

  private void arm() throws IOException {
    if (lifted) {
      return;
    }
    long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
    if (left <= 0) {
      throw new SocketTimeoutException("the request did not arrive within " + allowedMillis + " ms");
    }
    socket.setSoTimeout((int) Math.min(left, idleMillis));
  }

  @Override
  public int read() throws IOException {
    arm();
    return super.read();
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    arm();
    return super.read(b, off, len);
  }

  @Override
  public long skip(long n) throws IOException {
    arm();
    return super.skip(n);
  }
}
