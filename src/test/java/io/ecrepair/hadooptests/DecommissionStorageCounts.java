package io.ecrepair.hadooptests;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.loading.ClassReloadingStrategy;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.OpenedClassReader;
import org.apache.hadoop.hdfs.TestDecommissionWithStriped;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;

/**
 * Hadoop's TestDecommissionWithStriped passes its private {@code checkFile} the number of internal
 * blocks a group of the file stores, written for RS-6-3: 9 where the file fills whole stripes
 * (six data blocks and three parity), 4 and 5 where it is one or two cells (that many data blocks
 * and three parity). The files themselves are sized in the policy's cells and data blocks, so on
 * a (k, m) policy the same files store k + m and c + m. In this JVM, checkFile's count is
 * translated so on entry; everything it checks with the count stays as Hadoop wrote it.
 */
public final class DecommissionStorageCounts {
  private static final int RS_DATA = 6;
  private static final int RS_PARITY = 3;
  private static volatile ErasureCodingPolicy policy;

  private DecommissionStorageCounts() {}

  static synchronized void install(ErasureCodingPolicy p) {
    if (policy != null) {
      throw new IllegalStateException("checkFile already translates to " + policy.getName());
    }
    policy = p;
    ByteBuddyAgent.install();
    new ByteBuddy().redefine(TestDecommissionWithStriped.class)
        .visit(new AsmVisitorWrapper.ForDeclaredMethods().method(
            named("checkFile").and(takesArguments(5)).and(takesArgument(2, int.class)), DecommissionStorageCounts::wrap))
        .make().load(TestDecommissionWithStriped.class.getClassLoader(), ClassReloadingStrategy.fromInstalledAgent());
  }

  /** checkFile(fileSys, name, repl, decommissionedNodes, numDatanodes) is static: repl is local 2. */
  private static MethodVisitor wrap(TypeDescription type, MethodDescription method, MethodVisitor visitor,
                                    Implementation.Context context, TypePool pool, int writerFlags, int readerFlags) {
    return new MethodVisitor(OpenedClassReader.ASM_API, visitor) {
      @Override
      public void visitCode() {
        super.visitCode();
        super.visitVarInsn(Opcodes.ILOAD, 2);
        super.visitMethodInsn(Opcodes.INVOKESTATIC, Type.getInternalName(DecommissionStorageCounts.class),
            "onPolicy", "(I)I", false);
        super.visitVarInsn(Opcodes.ISTORE, 2);
      }
    };
  }

  /** Hadoop's RS-6-3 count for a group of the file, as the same file's group stores it on the installed policy. */
  public static int onPolicy(int rsCount) {
    int dataBlocks = rsCount - RS_PARITY;
    int k = policy.getNumDataUnits();
    int m = policy.getNumParityUnits();
    if (dataBlocks == RS_DATA) {
      return k + m;
    }
    if (dataBlocks >= 1 && dataBlocks < k) {
      return dataBlocks + m;
    }
    throw new IllegalArgumentException("no " + policy.getName() + " count for RS-6-3's " + rsCount
        + " internal blocks");
  }
}
