package io.ecrepair.codes;

/** A family that owns exactly one codec name (rs, clay, butterfly). */
public abstract class SingleCodecFamily implements CodecFamily {
  private final String codec;

  protected SingleCodecFamily(String codec) {
    this.codec = codec;
  }

  @Override
  public final boolean accepts(String name) {
    return codec.equals(name);
  }

  @Override
  public final String namePattern() {
    return codec;
  }
}
