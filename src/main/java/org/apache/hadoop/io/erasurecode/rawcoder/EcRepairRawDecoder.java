package org.apache.hadoop.io.erasurecode.rawcoder;

import io.ecrepair.codes.ErasureCode;
import io.ecrepair.codes.UndecodableException;
import io.ecrepair.hdfs.coder.StockDecodeFailures;
import java.io.IOException;
import org.apache.hadoop.HadoopIllegalArgumentException;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;

/**
 * Hadoop's raw decoder over any hadoop-ec-repair {@link ErasureCode}. Hadoop checks the
 * arguments (n input slots, at least k of them live, at most m erasures) before we are
 * called. Given a refusal, every decode fails with it before touching an output: for vector
 * codes, whose sub-chunk layout depends on the whole cell, HDFS's partial-range decodes
 * would be wrong.
 */
public class EcRepairRawDecoder extends RawErasureDecoder {
  private final ErasureCode code;
  private final boolean preferDirect;
  private final String refusal;

  public EcRepairRawDecoder(ErasureCoderOptions options, ErasureCode code, boolean preferDirect) {
    this(options, code, preferDirect, null);
  }

  public EcRepairRawDecoder(ErasureCoderOptions options, ErasureCode code, boolean preferDirect, String refusal) {
    super(options);
    if (code.dataUnits() != options.getNumDataUnits() || code.parityUnits() != options.getNumParityUnits()) {
      throw new HadoopIllegalArgumentException("coder options (" + options.getNumDataUnits() + ","
          + options.getNumParityUnits() + ") do not match " + code.name());
    }
    this.code = code;
    this.preferDirect = preferDirect;
    this.refusal = refusal;
  }

  private void refuseIfVector() throws IOException {
    if (refusal != null) {
      StockDecodeFailures.record(refusal);
      throw new IOException(refusal);
    }
  }

  /** An LRC loss the k blocks HDFS's reader picked cannot rebuild. */
  private IOException undecodable(UndecodableException e) {
    String why = e.getMessage() + ". HDFS's own readers decode from the first " + code.dataUnits()
        + " internal blocks they reach; hadoop-ec-repair's client FileSystem (fs.hdfs.impl="
        + "io.ecrepair.hdfs.client.EcRepairDistributedFileSystem) reads the blocks this loss needs";
    StockDecodeFailures.record(why);
    return new IOException(why, e); // HDFS's readers handle IOExceptions
  }

  @Override
  protected void doDecode(ByteBufferDecodingState state) throws IOException {
    refuseIfVector();
    try {
      code.decode(state.inputs, EcRepairRawEncoder.positions(state.inputs), state.erasedIndexes,
          state.outputs, EcRepairRawEncoder.positions(state.outputs), state.decodeLength);
    } catch (UndecodableException e) {
      throw undecodable(e);
    }
  }

  @Override
  protected void doDecode(ByteArrayDecodingState state) throws IOException {
    refuseIfVector();
    try {
      code.decode(EcRepairBuffers.wrap(state.inputs), state.inputOffsets, state.erasedIndexes,
          EcRepairBuffers.wrap(state.outputs), state.outputOffsets, state.decodeLength);
    } catch (UndecodableException e) {
      throw undecodable(e);
    }
  }

  @Override
  public boolean preferDirectBuffer() {
    return preferDirect;
  }
}
