package io.ecrepair.hadooptests;

import static net.bytebuddy.matcher.ElementMatchers.named;

import java.io.IOException;
import java.util.Arrays;
import java.util.Set;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.loading.ClassReloadingStrategy;
import net.bytebuddy.implementation.MethodDelegation;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.StripedFileTestUtil;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.io.erasurecode.CodecUtil;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * The parity check of Hadoop's {@code StripedFileTestUtil.checkData}, one cell row at a time.
 * Hadoop's {@code verifyParityBlocks} hands the raw encoder whole internal blocks in one call,
 * which is the same thing for a code that works byte by byte (RS, LRC) but not for a vector code:
 * Clay splits each cell into sub-chunks, so its parity is defined per cell row, as HDFS's striped
 * writer and our StripeVerifier encode it. This check compares every stored parity byte as
 * Hadoop's does; only the unit it encodes differs.
 */
public final class CellRowParityOracle {
  private CellRowParityOracle() {}

  /**
   * Redefines {@code StripedFileTestUtil.verifyParityBlocks} in this JVM to {@link #verify}, after
   * DefaultPolicyOverride's install. A redefinition starts from the class's bytes as loaded (the JVM
   * hands an agent those, not an earlier redefinition's), so this one carries the override's
   * {@code getDefaultECPolicy} along.
   */
  static synchronized void install() {
    if (DefaultPolicyOverride.Target.getDefaultECPolicy() == null) {
      throw new IllegalStateException("install DefaultPolicyOverride first");
    }
    String policy = StripedFileTestUtil.getDefaultECPolicy().getName();
    new ByteBuddy().redefine(StripedFileTestUtil.class)
        .method(named("getDefaultECPolicy")).intercept(MethodDelegation.to(DefaultPolicyOverride.Target.class))
        .method(named("verifyParityBlocks")).intercept(MethodDelegation.to(CellRowParityOracle.class))
        .make().load(StripedFileTestUtil.class.getClassLoader(), ClassReloadingStrategy.fromInstalledAgent());
    if (!StripedFileTestUtil.getDefaultECPolicy().getName().equals(policy)) {
      throw new IllegalStateException("redefining verifyParityBlocks lost the default policy " + policy);
    }
  }

  /**
   * Same arguments and outcome as Hadoop's: {@code size} bytes of the group, {@code dataBytes}
   * as read (null or short where nothing was stored), {@code parityBytes} as read; parity block
   * {@code i} is compared when {@code checkSet} holds {@code dataBytes.length + i}.
   */
  public static void verify(Configuration conf, long size, int cellSize, byte[][] dataBytes, byte[][] parityBytes,
                            Set<Integer> checkSet, String codecName) {
    int k = dataBytes.length;
    int m = parityBytes.length;
    // A parity block is as long as data block 0: each row codes the length of its first cell.
    long parityLength = StripedBlockUtil.getInternalBlockLength(size, cellSize, k, k);
    RawErasureEncoder encoder = CodecUtil.createRawEncoder(conf, codecName, new ErasureCoderOptions(k, m));
    try {
      for (long from = 0; from < parityLength; from += cellSize) {
        int length = (int) Math.min(cellSize, parityLength - from);
        byte[][] data = new byte[k][];
        for (int u = 0; u < k; u++) {
          data[u] = slice(dataBytes[u], from, length);
        }
        byte[][] expected = new byte[m][length];
        encoder.encode(data, expected);
        for (int i = 0; i < m; i++) {
          if (!checkSet.contains(k + i)) {
            continue;
          }
          if (parityBytes[i].length != parityLength) {
            throw new AssertionError("parity block " + (k + i) + " has " + parityBytes[i].length + " bytes, not "
                + parityLength);
          }
          if (!Arrays.equals(expected[i], slice(parityBytes[i], from, length))) {
            throw new AssertionError("parity block " + (k + i) + " differs from the " + codecName
                + " encoding of its data in the cell row at block offset " + from);
          }
        }
      }
    } catch (IOException e) {
      throw new AssertionError("cannot encode with " + codecName, e);
    } finally {
      encoder.release();
    }
  }

  /** Bytes [from, from+length) of a block, zeros past its end (HDFS codes a short cell as zero-padded). */
  static byte[] slice(byte[] block, long from, int length) {
    byte[] out = new byte[length];
    if (block != null && from < block.length) {
      System.arraycopy(block, (int) from, out, 0, (int) Math.min(length, block.length - from));
    }
    return out;
  }
}
