package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import org.apache.hadoop.net.NetUtils;
import org.junit.jupiter.api.Test;

/**
 * The raw input of an agent connection: a request trickling in is cut at its deadline however
 * often a byte comes, one larger than any request is cut at its cap, and a wrapped message longer
 * than allowed is refused before anything reads its body.
 */
class GuardedInputTest {
  /** A connected pair of sockets with channels (as the agent's are): {accepted, dialled}. */
  private static Socket[] pair(ServerSocketChannel server) throws IOException {
    Socket dialled = AgentChannels.newSocket();
    dialled.connect(server.socket().getLocalSocketAddress());
    return new Socket[] {server.accept().socket(), dialled};
  }

  private static ServerSocketChannel server() throws IOException {
    ServerSocketChannel s = ServerSocketChannel.open();
    s.socket().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    return s;
  }

  @Test
  void aTricklingRequestIsCutAtItsDeadline() throws Exception {
    try (ServerSocketChannel server = server()) {
      Socket[] p = pair(server);
      Thread trickler = new Thread(() -> {
        try {
          OutputStream out = p[1].getOutputStream();
          for (int i = 0; i < 50; i++) {
            out.write(7);
            out.flush();
            Thread.sleep(100);
          }
        } catch (IOException | InterruptedException e) {
          // cut
        }
      });
      trickler.start();
      GuardedInput in = new GuardedInput(NetUtils.getInputStream(p[0]), 800, 1 << 20, 10_000);
      long t0 = System.nanoTime();
      assertThrows(SocketTimeoutException.class, () -> new DataInputStream(in).readFully(new byte[100]));
      double seconds = (System.nanoTime() - t0) / 1e9;
      assertTrue(seconds < 3, "cut after " + seconds + " s, though a byte came every 0.1 s");
      p[0].close();
      p[1].close();
      trickler.join();
    }
  }

  @Test
  void moreThanARequestMayHaveIsCutAndTrustLiftsTheCap() throws Exception {
    try (ServerSocketChannel server = server()) {
      Socket[] p = pair(server);
      p[1].getOutputStream().write(new byte[3000]);
      GuardedInput in = new GuardedInput(NetUtils.getInputStream(p[0]), 10_000, 1000, 10_000);
      IOException e = assertThrows(IOException.class, () -> new DataInputStream(in).readFully(new byte[2000]));
      assertTrue(e.getMessage().contains("more than"), e.getMessage());

      Socket[] q = pair(server);
      q[1].getOutputStream().write(new byte[3000]);
      GuardedInput trusted = new GuardedInput(NetUtils.getInputStream(q[0]), 10_000, 1000, 10_000);
      new DataInputStream(trusted).readFully(new byte[500]);
      trusted.trust();
      new DataInputStream(trusted).readFully(new byte[2500]);
      for (Socket s : new Socket[] {p[0], p[1], q[0], q[1]}) {
        s.close();
      }
    }
  }

  @Test
  void aWrappedMessageLongerThanAllowedIsRefusedAtItsHeader() throws Exception {
    try (ServerSocketChannel server = server()) {
      Socket[] p = pair(server);
      ByteBuffer ok = ByteBuffer.allocate(4 + 10).putInt(10).put(new byte[10]);
      ByteBuffer huge = ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE);
      p[1].getOutputStream().write(ok.array());
      p[1].getOutputStream().write(huge.array());
      GuardedInput in = new GuardedInput(NetUtils.getInputStream(p[0]), 10_000, 1 << 20, 10_000);
      in.limitWrappedMessages(1000);
      byte[] first = new byte[14];
      new DataInputStream(in).readFully(first); // a message of 10 bytes passes, its header and body as sent
      assertArrayEquals(ok.array(), first);
      IOException e = assertThrows(IOException.class, () -> new DataInputStream(in).readFully(new byte[4]));
      assertTrue(e.getMessage().contains("wrapped message of " + Integer.MAX_VALUE), e.getMessage());
      p[0].close();
      p[1].close();
    }
  }
}
