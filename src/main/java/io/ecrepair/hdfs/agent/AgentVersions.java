package io.ecrepair.hdfs.agent;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The request kinds and versions an agent speaks, and the refusal that names them. An agent that
 * gets a kind or a version it does not speak answers {@link #REFUSED} with every (kind, version)
 * it speaks and why, instead of only hanging up: while DataNodes and clients of two releases run
 * side by side, the requester's log says which release is behind, and the requester falls back
 * as for any refusal. The refusal comes where a requester reads its first answer (a proof's
 * length, or -1 and a refusal's message; never -2), so every requester of this release and later
 * understands it.
 *
 * <p>On the wire: {@code int REFUSED, int count (1..MAX_SPOKEN), count x (int kind, int
 * version), UTF why}. A kind is the magic number a request opens with. A refusal is not
 * authenticated (anyone on the wire can forge one): it may only make a requester fall back,
 * never choose what it sends.
 */
final class AgentVersions {
  static final int REFUSED = -2;
  /** (kind, version) pairs a refusal may name. */
  static final int MAX_SPOKEN = 64;
  /**
   * A load probe carries no version field: it is version 0 of its kind, and a probe of another
   * form needs a magic number of its own.
   */
  static final int UNVERSIONED = 0;

  /** One version of one request kind. */
  record Spoken(int kind, int version) {
    @Override
    public String toString() {
      return kindName(kind) + " " + version;
    }
  }

  /** What this agent speaks. */
  static final List<Spoken> SPOKEN = List.of(new Spoken(PlanPartRequest.MAGIC, PlanPartRequest.VERSION),
      new Spoken(RangeRequest.MAGIC, RangeRequest.VERSION), new Spoken(PlanFrames.STREAM_MAGIC, PlanFrames.VERSION),
      new Spoken(PlanPartRequest.LOAD_PROBE, UNVERSIONED));

  private AgentVersions() {}

  /** Nothing, when this agent speaks {@code version} of request kind {@code kind}. */
  static void check(int kind, int version) throws Unspoken {
    if (!SPOKEN.contains(new Spoken(kind, version))) {
      throw new Unspoken("version " + version + " of " + kindName(kind) + " is not spoken here");
    }
  }

  /** The refusal of a request of a kind this agent does not know. */
  static Unspoken unknownKind(int kind) {
    return new Unspoken("not a repair agent request (kind " + Integer.toHexString(kind) + ")");
  }

  static String kindName(int kind) {
    return switch (kind) {
      case PlanPartRequest.MAGIC -> "plan parts";
      case RangeRequest.MAGIC -> "range requests";
      case PlanFrames.STREAM_MAGIC -> "value streams";
      case PlanPartRequest.LOAD_PROBE -> "load probes";
      default -> "kind " + Integer.toHexString(kind);
    };
  }

  /** Tells a requester what this agent speaks, and why its request was refused. */
  static void tell(DataOutput out, Unspoken why) throws IOException {
    out.writeInt(REFUSED);
    out.writeInt(SPOKEN.size());
    for (Spoken s : SPOKEN) {
      out.writeInt(s.kind());
      out.writeInt(s.version());
    }
    out.writeUTF(why.getMessage());
  }

  /** Reads a refusal after its {@link #REFUSED}, every count bounded, from the agent described by {@code agent}. */
  static Refused read(DataInput in, String agent) throws IOException {
    int count = in.readInt();
    if (count < 1 || count > MAX_SPOKEN) {
      throw new IOException(agent + " refused the request naming " + count + " versions (1.." + MAX_SPOKEN + ")");
    }
    List<Spoken> spoken = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      spoken.add(new Spoken(in.readInt(), in.readInt()));
    }
    return new Refused(spoken, agent + " refused the request: " + AgentProof.readMessage(in));
  }

  /** This agent's own refusal of a request in a kind or version it does not speak (it tells {@link #SPOKEN}). */
  static final class Unspoken extends IOException {
    Unspoken(String why) {
      super(why);
    }
  }

  /** A refusal read off the wire: what the refusing agent says it speaks (unauthenticated: only a reason to fall back). */
  static final class Refused extends IOException {
    private final List<Spoken> spoken;

    Refused(List<Spoken> spoken, String why) {
      super(why + "; it speaks " + spoken.stream().map(Spoken::toString).collect(Collectors.joining(", "))
          + " (a DataNode or client of another release of hadoop-ec-repair: the repair goes central, the read "
          + "fetches, until all run one release)");
      this.spoken = List.copyOf(spoken);
    }

    List<Spoken> spoken() {
      return spoken;
    }
  }
}
