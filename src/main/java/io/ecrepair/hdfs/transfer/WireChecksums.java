package io.ecrepair.hdfs.transfer;

import java.io.IOException;
import org.apache.hadoop.util.DataChecksum;

/**
 * A checksum type and chunk size read from the wire, never trusted blindly: a NULL checksum
 * would make every byte pass unverified, and an absurd chunk size would size buffers.
 */
public final class WireChecksums {
  /** HDFS's chunks are 512 bytes by default; nothing sane is larger than this. */
  public static final int MAX_BYTES_PER_CHECKSUM = 1 << 20;

  private WireChecksums() {}

  /** The checksum of type {@code typeId} over chunks of {@code bytesPerChecksum}, or an IOException naming {@code what}. */
  public static DataChecksum of(int typeId, int bytesPerChecksum, String what) throws IOException {
    if (typeId < 0 || typeId >= DataChecksum.Type.values().length) {
      throw new IOException(what + ": unknown checksum type " + typeId);
    }
    DataChecksum.Type type = DataChecksum.Type.valueOf(typeId);
    if (type == DataChecksum.Type.NULL || type == DataChecksum.Type.MIXED) {
      throw new IOException(what + ": the answer carries no usable checksums (" + type + "); refusing unverifiable bytes");
    }
    if (bytesPerChecksum < 1 || bytesPerChecksum > MAX_BYTES_PER_CHECKSUM) {
      throw new IOException(what + ": " + bytesPerChecksum + " bytes per checksum (1.." + MAX_BYTES_PER_CHECKSUM
          + " allowed)");
    }
    DataChecksum cs = DataChecksum.newDataChecksum(type, bytesPerChecksum);
    if (cs == null) {
      throw new IOException(what + ": checksum type " + type + " is not supported here");
    }
    return cs;
  }
}
