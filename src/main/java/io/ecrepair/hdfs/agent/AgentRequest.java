package io.ecrepair.hdfs.agent;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/**
 * One request on a connection an agent accepted: its streams after the cluster's handshake
 * (answers go through a small buffer until the request streams values out), and whether it took
 * a working slot.
 */
final class AgentRequest {
  final Socket socket;
  final AgentChannels.Channel channel;
  final DataInputStream in;
  private DataOutputStream out;
  /** The kind of working slot it took, once its request arrived whole; null before. */
  Admission.Slot slot;

  AgentRequest(Socket socket, AgentChannels.Channel channel) {
    this.socket = socket;
    this.channel = channel;
    this.in = new DataInputStream(new BufferedInputStream(channel.in(), 8 * 1024));
    this.out = new DataOutputStream(new BufferedOutputStream(channel.out(), 512));
  }

  DataOutputStream out() {
    return out;
  }

  /** Flushes what was written and writes through a large buffer from here (a request that streams values). */
  DataOutputStream streamingOut() throws IOException {
    out.flush();
    out = new DataOutputStream(new BufferedOutputStream(channel.out(), 128 * 1024));
    return out;
  }

  /** Tells the requester why its request is not served, if it still listens. */
  void tell(int errorCode, String why) {
    try {
      out.writeInt(errorCode);
      out.writeUTF(why.length() > 2000 ? why.substring(0, 2000) : why);
      out.flush();
    } catch (IOException gone) {
      // the requester hung up
    }
  }

  /** Tells the requester which kinds and versions this agent speaks, and why its request is not served. */
  void tell(AgentVersions.Unspoken why) {
    try {
      AgentVersions.tell(out, why);
      out.flush();
    } catch (IOException gone) {
      // the requester hung up
    }
  }

  /** A request the agent will not serve, told to the requester with {@code errorCode} and why. */
  static final class Refused extends IOException {
    final int errorCode;

    Refused(int errorCode, String message) {
      super(message);
      this.errorCode = errorCode;
    }

    /** A refusal for what {@code e} says went wrong. */
    Refused(int errorCode, IOException e) {
      this(errorCode, e.getMessage() != null ? e.getMessage() : e.toString());
    }
  }
}
