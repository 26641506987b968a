package io.ecrepair.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Replica files as a DataNode stores them: found by block id, and given checksums of their bytes. */
class ReplicaFilesTest {
  @TempDir
  Path tmp;

  @Test
  void rewrittenChecksumsMatchTheFlippedBytes() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("current/BP-1/current/finalized/subdir0/subdir0"));
    byte[] bytes = new byte[3 * 512 + 100];
    new Random(1).nextBytes(bytes);
    Path block = Files.write(dir.resolve("blk_-9223372036854775792"), bytes);
    DataChecksum sum = DataChecksum.newDataChecksum(DataChecksum.Type.CRC32C, 512);
    ByteBuffer meta = ByteBuffer.allocate(7 + 4 * 4);
    meta.putShort((short) 1).put(sum.getHeader());
    sum.calculateChunkedSums(ByteBuffer.wrap(bytes), meta.slice());
    Path metaFile = Files.write(dir.resolve("blk_-9223372036854775792_1001.meta"), meta.array());
    Files.write(dir.resolve("blk_-9223372036854775791_1001.meta"), new byte[] {9}); // a neighbour's, untouched

    assertEquals(block, ReplicaFiles.find(tmp, -9223372036854775792L).orElseThrow());
    bytes[700] ^= 0x21;
    Files.write(block, bytes);
    assertThrows(ChecksumException.class, () -> verify(sum, bytes, metaFile), "stale checksums fail");
    ReplicaFiles.rewriteChecksums(block);
    verify(sum, bytes, metaFile);
    assertEquals(7 + 16, Files.size(metaFile));
  }

  private static void verify(DataChecksum sum, byte[] bytes, Path metaFile) throws Exception {
    byte[] meta = Files.readAllBytes(metaFile);
    sum.verifyChunkedSums(ByteBuffer.wrap(bytes), ByteBuffer.wrap(meta, 7, meta.length - 7).slice(), "blk", 0);
  }
}
