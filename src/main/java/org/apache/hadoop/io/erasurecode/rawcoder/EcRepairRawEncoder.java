package org.apache.hadoop.io.erasurecode.rawcoder;

import io.ecrepair.codes.ErasureCode;
import java.nio.ByteBuffer;
import org.apache.hadoop.HadoopIllegalArgumentException;
import org.apache.hadoop.io.erasurecode.ErasureCoderOptions;

/**
 * Hadoop's raw encoder over any hadoop-ec-repair {@link ErasureCode}. It lives in Hadoop's
 * package only because the encoding state classes are package-private there; Hadoop's base
 * class does the argument checks and buffer bookkeeping, the code does the maths.
 */
public class EcRepairRawEncoder extends RawErasureEncoder {
  private final ErasureCode code;
  private final boolean preferDirect;

  public EcRepairRawEncoder(ErasureCoderOptions options, ErasureCode code, boolean preferDirect) {
    super(options);
    if (code.dataUnits() != options.getNumDataUnits() || code.parityUnits() != options.getNumParityUnits()) {
      throw new HadoopIllegalArgumentException("coder options (" + options.getNumDataUnits() + ","
          + options.getNumParityUnits() + ") do not match " + code.name());
    }
    this.code = code;
    this.preferDirect = preferDirect;
  }

  @Override
  protected void doEncode(ByteBufferEncodingState state) {
    code.encode(state.inputs, positions(state.inputs), state.outputs, positions(state.outputs), state.encodeLength);
  }

  @Override
  protected void doEncode(ByteArrayEncodingState state) {
    code.encode(EcRepairBuffers.wrap(state.inputs), state.inputOffsets,
        EcRepairBuffers.wrap(state.outputs), state.outputOffsets, state.encodeLength);
  }

  @Override
  public boolean preferDirectBuffer() {
    return preferDirect;
  }

  static int[] positions(ByteBuffer[] buffers) {
    int[] p = new int[buffers.length];
    for (int i = 0; i < buffers.length; i++) {
      p[i] = buffers[i] == null ? 0 : buffers[i].position();
    }
    return p;
  }
}
