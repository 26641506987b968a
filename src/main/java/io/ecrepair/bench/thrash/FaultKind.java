package io.ecrepair.bench.thrash;

/** The faults a thrash run injects; the label is how tables and JSON name them. */
public enum FaultKind {
  /** SIGKILL a DataNode, start it again later on its data. */
  DN_KILL("dn-kill", true),
  /**
   * SIGKILL a DataNode while it runs a reconstruction task (its XmitsInProgress is above 0: it
   * coordinates that repair, and may help others or serve a degraded read), start it again later.
   */
  DN_KILL_IN_REPAIR("dn-kill-in-repair", true),
  /** SIGKILL a DataNode, start it again later on an empty disk (a replaced machine). */
  DN_WIPE("dn-wipe", true),
  /** Cut a DataNode off from every other node while its JVM runs, then let it rejoin. */
  DN_ISOLATE("dn-isolate", true),
  /** SIGSTOP a DataNode's JVM (a stalled node: connections to it and its agent hang), then SIGCONT. */
  DN_PAUSE("dn-pause", true),
  /**
   * Hold every packet to or from a DataNode's repair agent port (the agent stalls mid-request;
   * HDFS's own data transfer goes on), then let them through.
   */
  AGENT_STALL("agent-stall", true),
  /**
   * Fill a DataNode's own disk until HDFS counts less than half a block available there (new
   * replicas are refused; those being written have their room), then free it.
   */
  DISK_FULL("disk-full", true),
  /** Shape a DataNode's links down to a trickle (tbf delays and drops), then back. */
  LINK_SLOW("link-slow", true),
  /** Flip bytes of a finalized replica on disk, its stored checksums left as they were (now invalid). */
  REPLICA_CORRUPT("replica-corrupt", false),
  /**
   * Flip bytes of a finalized parity replica and rewrite its stored checksums to match: only a
   * scrub that decodes (ec-repair verify) can tell, and tell which replica it is.
   */
  REPLICA_CORRUPT_SILENT("replica-corrupt-silent", false),
  /** SIGKILL the NameNode and start it again. */
  NN_RESTART("nn-restart", false),
  /** SIGKILL a client JVM in the middle of writing a file. */
  CLIENT_KILL("client-kill", false),
  /** SIGKILL a client JVM in the middle of reading a file. */
  CLIENT_KILL_READ("client-kill-read", false);

  private final String label;
  private final boolean takesNode;

  FaultKind(String label, boolean takesNode) {
    this.label = label;
    this.takesNode = takesNode;
  }

  public String label() {
    return label;
  }

  /** Whether, while it lasts, every replica on the DataNode counts as unavailable. */
  public boolean takesNode() {
    return takesNode;
  }

  /** Whether the DataNode's JVM is killed (and started again when the fault ends). */
  public boolean killsDataNode() {
    return this == DN_KILL || this == DN_KILL_IN_REPAIR || this == DN_WIPE;
  }
}
