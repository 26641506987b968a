package io.ecrepair.hdfs.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ecrepair.hdfs.transfer.WireChecksums;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.EnumSet;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DataChecksum;
import org.junit.jupiter.api.Test;

/** What the agents read from the wire before trusting it: tokens, token identifiers, checksum types. */
class WireInputTest {
  @Test
  void tokensRoundTripAndOversizedFieldsAreRefusedBeforeAllocation() throws Exception {
    Token<BlockTokenIdentifier> token = new Token<>(new byte[] {1, 2, 3}, new byte[20], new Text("HDFS_BLOCK_TOKEN"),
        new Text("svc"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    token.write(new DataOutputStream(bytes));
    Token<BlockTokenIdentifier> back = WireTokens.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    assertArrayEquals(token.getIdentifier(), back.getIdentifier());
    assertArrayEquals(token.getPassword(), back.getPassword());
    assertEquals(token.getKind(), back.getKind());
    assertEquals(token.getService(), back.getService());

    ByteArrayOutputStream huge = new ByteArrayOutputStream();
    WritableUtils.writeVInt(new DataOutputStream(huge), Integer.MAX_VALUE); // an identifier of 2 GiB
    assertThrows(IOException.class, () -> WireTokens.read(new DataInputStream(new ByteArrayInputStream(huge.toByteArray()))));
  }

  @Test
  void aGenuineLegacyIdentifierPassesAndAForgedLengthDoesNot() throws Exception {
    BlockTokenIdentifier id = new BlockTokenIdentifier("alice", "BP-1", 42, EnumSet.of(BlockTokenIdentifier.AccessMode.READ),
        new org.apache.hadoop.fs.StorageType[] {org.apache.hadoop.fs.StorageType.DISK}, new String[] {"DS-1"}, false);
    id.setExpiryDate(System.currentTimeMillis() + 600_000);
    id.setKeyId(7);
    byte[] genuine = id.getBytes();
    TokenShape.check(genuine);

    // The same fields, but the user name claims 1.5 GiB: Hadoop's decoder would allocate it.
    ByteArrayOutputStream forged = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(forged);
    WritableUtils.writeVLong(out, -1L);
    WritableUtils.writeVInt(out, 7);
    out.writeInt(1536 << 20);
    out.write(new byte[32]);
    assertThrows(IOException.class, () -> TokenShape.check(forged.toByteArray()));
    assertThrows(IOException.class, () -> TokenShape.check(new byte[0]));
    // A genuine identifier cut short is refused too.
    assertThrows(IOException.class, () -> TokenShape.check(java.util.Arrays.copyOf(genuine, 5)));
  }

  @Test
  void checksumsFromTheWireMustVerifySomething() throws Exception {
    assertEquals(512, WireChecksums.of(DataChecksum.Type.CRC32C.id, 512, "t").getBytesPerChecksum());
    assertThrows(IOException.class, () -> WireChecksums.of(DataChecksum.Type.NULL.id, 512, "t"));
    assertThrows(IOException.class, () -> WireChecksums.of(DataChecksum.Type.CRC32.id, 0, "t"));
    assertThrows(IOException.class, () -> WireChecksums.of(DataChecksum.Type.CRC32.id, 1 << 30, "t"));
    assertThrows(IOException.class, () -> WireChecksums.of(99, 512, "t"));
    assertThrows(IOException.class, () -> WireChecksums.of(-1, 512, "t"));
  }
}
