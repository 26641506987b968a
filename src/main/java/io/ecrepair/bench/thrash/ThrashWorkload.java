package io.ecrepair.bench.thrash;

import io.ecrepair.harness.DegradedReadProbe;
import io.ecrepair.harness.PatternData;
import io.ecrepair.hdfs.client.DegradedReadStats;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * The thrash run's clients, a JVM in the benchmark cluster's client namespace: writers create
 * files of every policy given (each directory /thrash/POLICY carries its policy) through our
 * client, record each completed write's SHA-256, and now and then delete a file and create it
 * again; readers read whole files, positional ranges and small random ranges of completed files
 * through our client and, for codes HDFS's decoders handle, the stock one, checking every byte.
 * Everything goes to the {@link WorkloadLog}. It stops when the stop file appears.
 *
 * <p>Arguments: uri log stop seed maxBytes policy:stockReadable... [--writers N] [--readers N];
 * or {@code --one-write uri path policy length seed} (a client that is killed mid-write), or
 * {@code --reading uri path} (one killed mid-read).
 */
public final class ThrashWorkload {
  private final Configuration conf;
  private final URI uri;
  private final PrintWriter log;
  private final java.nio.file.Path stop;
  private final long maxBytes;
  private final List<String> policies;
  private final Map<String, Boolean> stockReadable;
  private final Map<String, WorkloadLog.Written> live = new ConcurrentHashMap<>();
  private final AtomicLong fileSeq = new AtomicLong();
  private final long t0 = System.currentTimeMillis();

  private ThrashWorkload(URI uri, java.nio.file.Path logFile, java.nio.file.Path stop, long maxBytes,
                         Map<String, Boolean> policies) throws IOException {
    this.conf = new Configuration();
    this.uri = uri;
    this.log = new PrintWriter(Files.newBufferedWriter(logFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND), true);
    this.stop = stop;
    this.maxBytes = maxBytes;
    this.policies = new ArrayList<>(policies.keySet());
    this.stockReadable = policies;
  }

  public static void main(String[] args) throws Exception {
    if (args.length >= 1 && args[0].equals("--one-write")) {
      oneWrite(URI.create(args[1]), new Path(args[2]), Long.parseLong(args[4]), Long.parseLong(args[5]));
      return;
    }
    if (args.length >= 1 && args[0].equals("--reading")) {
      readUntilKilled(URI.create(args[1]), new Path(args[2]));
      return;
    }
    if (args.length < 6) {
      System.err.println("usage: ThrashWorkload uri log stop seed maxBytes policy:stockReadable... "
          + "[--writers N] [--readers N]");
      System.exit(2);
    }
    Map<String, Boolean> policies = new LinkedHashMap<>();
    int writers = 2;
    int readers = 2;
    for (int i = 5; i < args.length; i++) {
      if (args[i].equals("--writers")) {
        writers = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--readers")) {
        readers = Integer.parseInt(args[++i]);
      } else {
        String[] p = args[i].split(":");
        policies.put(p[0], Boolean.parseBoolean(p[1]));
      }
    }
    ThrashWorkload w = new ThrashWorkload(URI.create(args[0]), java.nio.file.Path.of(args[1]),
        java.nio.file.Path.of(args[2]), Long.parseLong(args[4]), policies);
    long seed = Long.parseLong(args[3]);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      long s = seed * 1000 + i;
      int id = i;
      threads.add(new Thread(() -> w.writeLoop(id, new Random(s)), "thrash-writer-" + i));
    }
    for (int i = 0; i < readers; i++) {
      long s = seed * 1000 + 500 + i;
      threads.add(new Thread(() -> w.readLoop(new Random(s)), "thrash-reader-" + i));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    DegradedReadStats total = DegradedReadStats.total();
    Map<String, Long> totals = new LinkedHashMap<>();
    totals.put("degradedStreams", total.degradedStreams());
    totals.put("cellsRebuilt", total.cellsRebuilt());
    totals.put("agentReads", total.agentReads());
    totals.put("agentFallbacks", total.agentFallbacks());
    totals.put("corruptReported", total.corruptReplicasReported());
    w.log.println(WorkloadLog.totals(w.now(), totals));
    w.log.close();
    System.exit(0);
  }

  private long now() {
    return System.currentTimeMillis() - t0;
  }

  private boolean stopping() {
    return Files.exists(stop);
  }

  private FileSystem fileSystem(boolean stock) throws IOException {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", stock ? DistributedFileSystem.class.getName() : DegradedReadProbe.ECREPAIR_FS);
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.get(uri, c);
  }

  private void writeLoop(int id, Random random) {
    try (FileSystem fs = fileSystem(false)) {
      int turn = id;
      while (!stopping()) {
        List<String> paths = new ArrayList<>(live.keySet());
        if (!paths.isEmpty() && random.nextInt(5) == 0) {
          // delete a file, and write the same path again (a new generation of its blocks)
          String path = paths.get(random.nextInt(paths.size()));
          WorkloadLog.Written old = live.remove(path);
          try {
            fs.delete(new Path(path), false);
            log.println(WorkloadLog.deleted(now(), path));
          } catch (IOException e) {
            log.println(WorkloadLog.failed(now(), path, "delete: " + e));
            sleep(1000);
            continue;
          }
          if (old != null) {
            write(fs, path, old.policy(), random);
          }
          continue;
        }
        String policy = policies.get(turn++ % policies.size());
        write(fs, "/thrash/" + policy + "/f" + id + "-" + fileSeq.incrementAndGet(), policy, random);
      }
    } catch (IOException e) {
      log.println(WorkloadLog.failed(now(), "-", "writer " + id + " gave up: " + e));
    }
  }

  /** Lengths of three kinds: a few cells, about a group, and more than one group. */
  private long length(Random random) {
    return switch (random.nextInt(3)) {
      case 0 -> 1 + random.nextInt(1 << 20);
      case 1 -> maxBytes / 4 + random.nextLong(maxBytes / 4);
      default -> maxBytes / 2 + random.nextLong(maxBytes / 2);
    };
  }

  private void write(FileSystem fs, String path, String policy, Random random) {
    long length = length(random);
    long seed = random.nextLong();
    log.println(WorkloadLog.started(now(), path, policy, length));
    try {
      String sha = writeFile(fs, new Path(path), length, seed);
      WorkloadLog.Written w = new WorkloadLog.Written(path, policy, length, seed, sha);
      log.println(WorkloadLog.written(now(), w));
      live.put(path, w);
    } catch (IOException e) {
      log.println(WorkloadLog.failed(now(), path, e.toString()));
      try {
        fs.delete(new Path(path), false);  // a failed write leaves no half file to verify
      } catch (IOException ignored) {
        // the NameNode may be restarting; the end checks only look at completed files
      }
      sleep(1000);  // e.g. the NameNode restarting: do not spin
    }
  }

  /** Writes the file and returns the SHA-256 of what it wrote. */
  private static String writeFile(FileSystem fs, Path path, long length, long seed) throws IOException {
    PatternData data = new PatternData(seed);
    MessageDigest md = sha256();
    byte[] buf = new byte[1 << 20];
    try (FSDataOutputStream out = fs.create(path, false)) {
      for (long pos = 0; pos < length; ) {
        int n = (int) Math.min(buf.length, length - pos);
        data.fill(pos, buf, 0, n);
        out.write(buf, 0, n);
        md.update(buf, 0, n);
        pos += n;
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static void oneWrite(URI uri, Path path, long length, long seed) throws IOException {
    Configuration c = new Configuration();
    c.set("fs.hdfs.impl", DegradedReadProbe.ECREPAIR_FS);
    try (FileSystem fs = FileSystem.get(uri, c)) {
      System.out.println("writing " + path);
      writeFile(fs, path, length, seed);
    }
  }

  /** A client that reads the file over and over (positional reads of 64 KiB) until it is killed. */
  private static void readUntilKilled(URI uri, Path path) throws IOException {
    Configuration c = new Configuration();
    c.set("fs.hdfs.impl", DegradedReadProbe.ECREPAIR_FS);
    byte[] buf = new byte[64 << 10];
    try (FileSystem fs = FileSystem.get(uri, c)) {
      System.out.println("reading " + path);
      while (true) {
        try (FSDataInputStream in = fs.open(path)) {
          long length = fs.getFileStatus(path).getLen();
          for (long pos = 0; pos < length; pos += buf.length) {
            in.readFully(pos, buf, 0, (int) Math.min(buf.length, length - pos));
          }
        }
      }
    }
  }

  private void readLoop(Random random) {
    try (FileSystem ours = fileSystem(false); FileSystem stock = fileSystem(true)) {
      while (!stopping()) {
        List<WorkloadLog.Written> files = new ArrayList<>(live.values());
        if (files.isEmpty()) {
          sleep(500);
          continue;
        }
        WorkloadLog.Written f = files.get(random.nextInt(files.size()));
        boolean useStock = stockReadable.getOrDefault(f.policy(), false) && random.nextBoolean();
        String mode = switch (random.nextInt(3)) {
          case 0 -> "whole";
          case 1 -> "positional";
          default -> "small";
        };
        long[] wrong = {0};
        String outcome;
        String error = "";
        long bytes;
        try {
          bytes = read(useStock ? stock : ours, f, mode, random, wrong);
          outcome = wrong[0] > 0 ? "wrong" : "ok";
        } catch (FileNotFoundException e) {
          continue;  // deleted while being read
        } catch (IOException e) {
          outcome = "failed";
          error = e.toString();
          bytes = 0;
        }
        if (live.get(f.path()) != f) {
          continue;  // deleted (and perhaps written again) meanwhile: the bytes read were of either
        }
        log.println(WorkloadLog.read(now(), f.path(), mode, useStock ? "stock" : "ec-repair", outcome,
            outcome.equals("wrong") ? wrong[0] : bytes, error));
        if (outcome.equals("failed")) {
          sleep(1000);  // e.g. the NameNode restarting: do not spin
        }
      }
    } catch (IOException e) {
      log.println(WorkloadLog.failed(now(), "-", "reader gave up: " + e));
    }
  }

  /** One read of the file; returns the bytes read, {@code wrong[0]} the bytes that differed. */
  private static long read(FileSystem fs, WorkloadLog.Written f, String mode, Random random, long[] wrong)
      throws IOException {
    PatternData data = new PatternData(f.seed());
    byte[] buf = new byte[1 << 20];
    long total = 0;
    try (FSDataInputStream in = fs.open(new Path(f.path()))) {
      if (mode.equals("whole")) {
        for (long pos = 0; pos < f.length(); ) {
          int n = in.read(buf, 0, (int) Math.min(buf.length, f.length() - pos));
          if (n < 0) {
            throw new IOException("end of file at " + pos + " of " + f.length());
          }
          wrong[0] += differing(data, pos, buf, n);
          pos += n;
          total += n;
        }
        return total;
      }
      int reads = mode.equals("small") ? 8 : 1;
      for (int i = 0; i < reads; i++) {
        int len = (int) Math.min(f.length(), mode.equals("small") ? 1 + random.nextInt(4096) : 1 + random.nextInt(
            buf.length));
        long pos = random.nextLong(f.length() - len + 1);
        in.readFully(pos, buf, 0, len);
        wrong[0] += differing(data, pos, buf, len);
        total += len;
      }
      return total;
    }
  }

  static long differing(PatternData data, long pos, byte[] buf, int len) {
    byte[] expected = new byte[len];
    data.fill(pos, expected, 0, len);
    long n = 0;
    for (int i = 0; i < len; i++) {
      if (expected[i] != buf[i]) {
        n++;
      }
    }
    return n;
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
