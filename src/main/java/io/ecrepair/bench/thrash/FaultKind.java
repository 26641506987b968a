package io.ecrepair.bench.thrash;

/** The faults a thrash run injects; the label is how tables and JSON name them. */
public enum FaultKind {
  /** SIGKILL a DataNode, start it again later on its data. */
  DN_KILL("dn-kill", true),
  /**
   * SIGKILL a DataNode while the NameNode has reconstructions in flight (so it coordinates or
   * helps some of them, or serves a degraded read), start it again later.
   */
  DN_KILL_IN_REPAIR("dn-kill-in-repair", true),
  /** SIGKILL a DataNode, start it again later on an empty disk (a replaced machine). */
  DN_WIPE("dn-wipe", true),
  /** Cut a DataNode off from every other node while its JVM runs, then let it rejoin. */
  DN_ISOLATE("dn-isolate", true),
  /** SIGSTOP a DataNode's JVM (a stalled node: connections to it and its agent hang), then SIGCONT. */
  DN_PAUSE("dn-pause", true),
  /** Shape a DataNode's links down to a trickle (tbf delays and drops), then back. */
  LINK_SLOW("link-slow", true),
  /** Flip bytes of a finalized replica on disk, its stored checksums left as they were (now invalid). */
  REPLICA_CORRUPT("replica-corrupt", false),
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
