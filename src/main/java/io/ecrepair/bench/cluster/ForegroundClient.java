package io.ecrepair.bench.cluster;

import io.ecrepair.bench.cluster.ForegroundOps.Kind;
import io.ecrepair.bench.cluster.ForegroundOps.Op;
import io.ecrepair.harness.PatternData;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;

/**
 * The foreground workload of {@code bench cluster --foreground}, a JVM in the client namespace:
 * an application reading and writing healthy, replicated files at a steady offered load while
 * the cluster recovers from a failure. It first writes its read set, then signals ready, then
 * issues operations open-loop: each is due at a fixed rate whatever the others do, runs on a
 * pool of client threads, and is logged with its latency from when it was due
 * ({@link ForegroundOps}). Every byte read is checked. It stops when the stop file appears.
 *
 * <p>Its files avoid one DataNode (the one the benchmark will fail), through HDFS's favoured
 * nodes, so that its reads stay healthy reads and the failure leaves them nothing to re-replicate.
 *
 * <p>Arguments: uri dir log ready stop avoid readBytesPerSecond writeBytesPerSecond seed benchPid. It
 * also stops when the benchmark's JVM is gone (killed, or torn down by Ctrl-C).
 */
public final class ForegroundClient {
  /** Bytes of one positional read, and of the file one write creates. */
  static final int READ_BYTES = 128 << 10;
  static final int WRITE_BYTES = 512 << 10;
  /** The read set: files of one partial block each, three replicas, as HDFS keeps hot data. */
  static final int READ_FILES = 16;
  static final int READ_FILE_BYTES = 4 << 20;
  static final short REPLICATION = 3;
  static final int THREADS = 64;

  private final DistributedFileSystem fs;
  private final Path dir;
  private final PrintWriter log;
  private final InetSocketAddress[] favoured;
  private final long seed;
  private final List<FSDataInputStream> readSet = new ArrayList<>();
  private final AtomicLong writes = new AtomicLong();
  /** Operations running or waiting for a thread, by a number of their own: logged as unfinished if the stop cuts them off. */
  private final java.util.Map<Long, InFlight> inFlight = new java.util.concurrent.ConcurrentHashMap<>();

  /** An operation issued and not yet logged. */
  private record InFlight(long dueNanos, Kind kind, long bytes) {}
  private final AtomicLong opSeq = new AtomicLong();
  private final long epochAtStart = System.currentTimeMillis();
  private final long nanoAtStart = System.nanoTime();

  private ForegroundClient(DistributedFileSystem fs, Path dir, PrintWriter log, InetSocketAddress[] favoured,
                           long seed) {
    this.fs = fs;
    this.dir = dir;
    this.log = log;
    this.favoured = favoured;
    this.seed = seed;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 10) {
      System.err.println("usage: ForegroundClient uri dir log ready stop avoid readBytesPerSecond "
          + "writeBytesPerSecond seed benchPid");
      System.exit(2);
    }
    URI uri = URI.create(args[0]);
    java.nio.file.Path ready = java.nio.file.Path.of(args[3]);
    java.nio.file.Path stop = java.nio.file.Path.of(args[4]);
    double readRate = Double.parseDouble(args[6]);
    double writeRate = Double.parseDouble(args[7]);
    long seed = Long.parseLong(args[8]);
    ProcessHandle bench = ProcessHandle.of(Long.parseLong(args[9])).orElse(null);
    Configuration conf = new Configuration();
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    try (FileSystem any = FileSystem.get(uri, conf);
         PrintWriter log = new PrintWriter(Files.newBufferedWriter(java.nio.file.Path.of(args[2]),
             StandardCharsets.UTF_8))) {
      DistributedFileSystem fs = (DistributedFileSystem) any;
      ForegroundClient client = new ForegroundClient(fs, new Path(args[1]), log, favoured(fs, args[5]), seed);
      client.prepare();
      Files.writeString(ready, "ready\n");
      client.run(readRate, writeRate, () -> Files.exists(stop) || bench == null || !bench.isAlive());
    }
  }

  /**
   * Every live DataNode but the one to avoid (named by its IP, or by its transfer address
   * ip:port where DataNodes share an IP), by its data transfer address.
   */
  static InetSocketAddress[] favoured(DistributedFileSystem fs, String avoid) throws IOException {
    List<InetSocketAddress> out = new ArrayList<>();
    for (DatanodeInfo d : fs.getClient().datanodeReport(DatanodeReportType.LIVE)) {
      if (!d.getIpAddr().equals(avoid) && !d.getXferAddr().equals(avoid)) {
        out.add(new InetSocketAddress(d.getIpAddr(), d.getXferPort()));
      }
    }
    if (out.size() < REPLICATION) {
      throw new IOException("only " + out.size() + " live DataNodes besides " + avoid + " for " + REPLICATION
          + " replicas");
    }
    return out.toArray(new InetSocketAddress[0]);
  }

  private void prepare() throws IOException {
    fs.mkdirs(dir);
    for (int i = 0; i < READ_FILES; i++) {
      Path f = new Path(dir, "read-" + i);
      write(f, READ_FILE_BYTES, seed * 1000 + i, new Random(seed + i));
      readSet.add(fs.open(f));
    }
  }

  /** Writes {@code length} pattern bytes into a new replicated file on favoured DataNodes (shuffled per file). */
  private void write(Path f, int length, long dataSeed, Random random) throws IOException {
    List<InetSocketAddress> nodes = new ArrayList<>(List.of(favoured));
    Collections.shuffle(nodes, random);
    byte[] data = new byte[length];
    new PatternData(dataSeed).fill(0, data, 0, length);
    try (FSDataOutputStream out = fs.createFile(f).replicate().replication(REPLICATION).overwrite(true)
        .favoredNodes(nodes.toArray(new InetSocketAddress[0])).build()) {
      out.write(data);
    }
  }

  private void run(double readRate, double writeRate, java.util.function.BooleanSupplier stopped)
      throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS, r -> {
      Thread t = new Thread(r, "foreground-op");
      t.setDaemon(true);
      return t;
    });
    long readEvery = readRate > 0 ? (long) (READ_BYTES * 1e9 / readRate) : Long.MAX_VALUE;
    long writeEvery = writeRate > 0 ? (long) (WRITE_BYTES * 1e9 / writeRate) : Long.MAX_VALUE;
    long start = System.nanoTime();
    long nextRead = readRate > 0 ? start : Long.MAX_VALUE;
    long nextWrite = writeRate > 0 ? start + writeEvery / 2 : Long.MAX_VALUE;
    Random random = new Random(seed);
    long nextLook = start;
    while (true) {
      long now = System.nanoTime();
      if (now >= nextLook) {
        if (stopped.getAsBoolean()) {
          break;
        }
        synchronized (log) {
          log.flush();
        }
        nextLook = now + 100_000_000L;
      }
      long due = Math.min(nextRead, nextWrite);
      if (due > now) {
        LockSupport.parkNanos(Math.min(due, nextLook) - now);
        continue;
      }
      long id = opSeq.incrementAndGet();
      if (due == nextRead) {
        int file = random.nextInt(READ_FILES);
        long offset = random.nextInt(READ_FILE_BYTES - READ_BYTES + 1);
        inFlight.put(id, new InFlight(due, Kind.READ, READ_BYTES));
        pool.execute(() -> record(id, read(due, file, offset)));
        nextRead += readEvery;
      } else {
        long n = writes.incrementAndGet();
        inFlight.put(id, new InFlight(due, Kind.WRITE, WRITE_BYTES));
        pool.execute(() -> record(id, write(due, n)));
        nextWrite += writeEvery;
      }
    }
    pool.shutdown();
    if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
      System.err.println("foreground: " + inFlight.size() + " operations still running 60 s after the stop");
    }
    long now = System.nanoTime();
    synchronized (log) {
      // cut off by the stop: their latency so far is a lower bound, and they count as failed
      for (Long id : List.copyOf(inFlight.keySet())) {
        InFlight o = inFlight.remove(id);
        log.println(new Op(epochMs(o.dueNanos()), o.kind(), (now - o.dueNanos()) / 1e6, o.bytes(),
            "failed:Unfinished").line());
      }
      log.flush();
    }
  }

  private Op read(long due, int file, long offset) {
    byte[] buf = new byte[READ_BYTES];
    String outcome;
    try {
      readSet.get(file).readFully(offset, buf, 0, READ_BYTES);
      outcome = new PatternData(seed * 1000 + file).matches(offset, buf, 0, READ_BYTES) ? "ok" : "wrong";
    } catch (IOException | RuntimeException e) {
      outcome = failed(e);
    }
    return new Op(epochMs(due), Kind.READ, (System.nanoTime() - due) / 1e6, READ_BYTES, outcome);
  }

  private Op write(long due, long n) {
    String outcome;
    try {
      write(new Path(dir, "write-" + n), WRITE_BYTES, seed * 1000 + 500 + n, new Random(seed ^ n));
      outcome = "ok";
    } catch (IOException | RuntimeException e) {
      outcome = failed(e);
    }
    return new Op(epochMs(due), Kind.WRITE, (System.nanoTime() - due) / 1e6, WRITE_BYTES, outcome);
  }

  private static String failed(Exception e) {
    System.err.println("foreground: " + e);
    return "failed:" + e.getClass().getSimpleName();
  }

  private long epochMs(long nanos) {
    return epochAtStart + (nanos - nanoAtStart) / 1_000_000L;
  }

  private void record(long id, Op op) {
    synchronized (log) {
      if (inFlight.remove(id) != null) {
        log.println(op.line());
      }
    }
  }
}
