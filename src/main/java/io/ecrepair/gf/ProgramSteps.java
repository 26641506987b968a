package io.ecrepair.gf;

import java.nio.ByteBuffer;
import java.util.List;

/** Runs a LinearProgram one step at a time through RegionCoder.encode. */
final class ProgramSteps {
  private ProgramSteps() {}

  static void run(RegionCoder coder, LinearProgram program, CodingTables[] tables, ByteBuffer[] buffers,
                  int[] bases, int unitBytes) {
    program.checkBuffers(buffers, bases, unitBytes);
    List<LinearProgram.Step> steps = program.steps();
    for (int i = 0; i < steps.size(); i++) {
      LinearProgram.Step s = steps.get(i);
      ByteBuffer[] in = new ByteBuffer[s.inputs().size()];
      int[] inOff = new int[in.length];
      for (int j = 0; j < in.length; j++) {
        LinearProgram.Ref r = s.inputs().get(j);
        in[j] = buffers[r.buffer()];
        inOff[j] = bases[r.buffer()] + r.unit() * unitBytes;
      }
      ByteBuffer[] out = new ByteBuffer[s.outputs().size()];
      int[] outOff = new int[out.length];
      for (int j = 0; j < out.length; j++) {
        LinearProgram.Ref r = s.outputs().get(j);
        out[j] = buffers[r.buffer()];
        outOff[j] = bases[r.buffer()] + r.unit() * unitBytes;
      }
      coder.encode(tables[i], in, inOff, out, outOff, s.width() * unitBytes, false);
    }
  }
}
