package io.ecrepair.hdfs.agent;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The memory a repair agent's requests and parts hold, against two caps: one part's and the
 * agent's. What a part may hold (its buffers, its streams' queues full) is reserved before
 * anything of it is allocated and given back when it ends, so a DataNode's memory in use, not
 * only what its pools keep idle, stays bounded whatever its requesters ask; a request that does
 * not fit is refused and its requester falls back.
 */
final class AgentMemory {
  private final long capBytes;
  private final long partCapBytes;
  private final LongAdder refused = new LongAdder();
  private long used;

  AgentMemory(long capBytes, long partCapBytes) {
    this.capBytes = capBytes;
    this.partCapBytes = partCapBytes;
  }

  /** Memory held by one request or part until it is closed. */
  final class Grant implements AutoCloseable {
    private long bytes;

    private Grant(long bytes) {
      this.bytes = bytes;
    }

    @Override
    public void close() {
      synchronized (AgentMemory.this) {
        used -= bytes;
        bytes = 0;
      }
    }
  }

  /** Reserves {@code bytes} for {@code what}, or refuses it (an IOException saying why). */
  Grant reserve(long bytes, String what) throws IOException {
    if (bytes > partCapBytes) {
      refused.increment();
      throw new IOException(what + " needs " + mib(bytes) + " of memory, more than the " + mib(partCapBytes)
          + " a part may hold here");
    }
    synchronized (this) {
      if (used + bytes > capBytes) {
        refused.increment();
        throw new IOException(what + " needs " + mib(bytes) + " of memory and this agent holds " + mib(used) + " of its "
            + mib(capBytes) + "; try again later");
      }
      used += bytes;
    }
    return new Grant(bytes);
  }

  synchronized long inUse() {
    return used;
  }

  /** Requests refused because they did not fit. */
  long refused() {
    return refused.sum();
  }

  private static String mib(long bytes) {
    return String.format("%.1f MiB", bytes / 1048576.0);
  }
}
