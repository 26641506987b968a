package org.apache.hadoop.io.erasurecode.rawcoder;

import io.ecrepair.codes.ErasureCode;
import org.apache.hadoop.HadoopIllegalArgumentException;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;

/**
 * Hadoop's raw decoder over any hadoop-ec-repair {@link ErasureCode} whose units can be
 * decoded from arbitrary byte ranges (a scalar code). Hadoop checks the arguments (n input
 * slots, at least k of them live, at most m erasures) before we are called.
 */
public class EcRepairRawDecoder extends RawErasureDecoder {
  private final ErasureCode code;
  private final boolean preferDirect;

  public EcRepairRawDecoder(ErasureCoderOptions options, ErasureCode code, boolean preferDirect) {
    super(options);
    if (code.dataUnits() != options.getNumDataUnits() || code.parityUnits() != options.getNumParityUnits()) {
      throw new HadoopIllegalArgumentException("coder options (" + options.getNumDataUnits() + ","
          + options.getNumParityUnits() + ") do not match " + code.name());
    }
    this.code = code;
    this.preferDirect = preferDirect;
  }

  @Override
  protected void doDecode(ByteBufferDecodingState state) {
    code.decode(state.inputs, EcRepairRawEncoder.positions(state.inputs), state.erasedIndexes,
        state.outputs, EcRepairRawEncoder.positions(state.outputs), state.decodeLength);
  }

  @Override
  protected void doDecode(ByteArrayDecodingState state) {
    code.decode(EcRepairBuffers.wrap(state.inputs), state.inputOffsets, state.erasedIndexes,
        EcRepairBuffers.wrap(state.outputs), state.outputOffsets, state.decodeLength);
  }

  @Override
  public boolean preferDirectBuffer() {
    return preferDirect;
  }
}
