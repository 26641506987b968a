package io.ecrepair.gf;

import io.ecrepair.SystemProperties;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the region coder: ISA-L through {@code libecrepair} when it loads, else the Java
 * path with one log line saying why. With {@value SystemProperties#NATIVE_REQUIRED_PROPERTY}=true
 * (or the environment variable {@value SystemProperties#NATIVE_REQUIRED_ENV}=true) a missing
 * native library is an error.
 *
 * <p>The library is looked up on {@code java.library.path} first (where an operator puts it,
 * e.g. {@code $HADOOP_HOME/lib/native}), then taken from inside our jar.
 */
public final class RegionCoders {
  public static final String LIBRARY = "ecrepair";
  static final String JAR_RESOURCE = "/native/linux-x86_64/libecrepair.so";

  private static final Logger LOG = LoggerFactory.getLogger(RegionCoders.class);
  private static final RegionCoder JAVA = new JavaRegionCoder();
  private static final String UNAVAILABLE_REASON;
  private static final RegionCoder NATIVE;
  private static volatile boolean fallbackLogged;

  static {
    String reason = load();
    UNAVAILABLE_REASON = reason;
    NATIVE = reason == null ? new NativeRegionCoder() : null;
  }

  private RegionCoders() {}

  /** The fastest coder here; see the class comment for what happens without ISA-L. */
  public static RegionCoder best() {
    if (NATIVE != null) {
      return NATIVE;
    }
    requireNativeIfConfigured();
    if (!fallbackLogged) {
      fallbackLogged = true;
      LOG.warn("ec-repair: native ISA-L coder unavailable ({}); using the pure-Java GF(2^8) path", UNAVAILABLE_REASON);
    }
    return JAVA;
  }

  public static RegionCoder java() {
    return JAVA;
  }

  /** The ISA-L coder; throws with the reason when it did not load. */
  public static RegionCoder isal() {
    if (NATIVE == null) {
      throw new IllegalStateException("ec-repair native ISA-L library is not loaded: " + UNAVAILABLE_REASON);
    }
    return NATIVE;
  }

  public static boolean nativeAvailable() {
    return NATIVE != null;
  }

  /** Why the native coder did not load, or null when it did. */
  public static String nativeUnavailableReason() {
    return UNAVAILABLE_REASON;
  }

  /** Fails loudly when native is mandatory but missing (call at start-up). */
  public static void requireNativeIfConfigured() {
    if (NATIVE == null && nativeRequired()) {
      throw new IllegalStateException("ec-repair: native ISA-L library required ("
          + SystemProperties.NATIVE_REQUIRED_PROPERTY
          + "=true) but not loaded: " + UNAVAILABLE_REASON
          + ". Install ISA-L (Debian: apt-get install libisal2) and put libecrepair.so on java.library.path.");
    }
  }

  public static boolean nativeRequired() {
    return Boolean.parseBoolean(System.getProperty(SystemProperties.NATIVE_REQUIRED_PROPERTY,
        System.getenv(SystemProperties.NATIVE_REQUIRED_ENV)));
  }

  /** Loads the library; returns null on success, else the reason. */
  private static String load() {
    if (Boolean.getBoolean(SystemProperties.NATIVE_DISABLE_PROPERTY)) {
      return "disabled by -D" + SystemProperties.NATIVE_DISABLE_PROPERTY + "=true";
    }
    String fromPath;
    try {
      System.loadLibrary(LIBRARY);
      return checkAbi();
    } catch (UnsatisfiedLinkError e) {
      fromPath = e.getMessage();
    }
    try (InputStream in = RegionCoders.class.getResourceAsStream(JAR_RESOURCE)) {
      if (in == null) {
        return "lib" + LIBRARY + ".so is neither on java.library.path nor in the jar (" + fromPath + ")";
      }
      Path tmp = Files.createTempFile("libecrepair", ".so");
      tmp.toFile().deleteOnExit();
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      System.load(tmp.toString());
      return checkAbi();
    } catch (IOException | UnsatisfiedLinkError e) {
      return e.getMessage();
    }
  }

  private static String checkAbi() {
    int abi = IsalNative.abiVersion();
    return abi == IsalNative.ABI_VERSION ? null
        : "lib" + LIBRARY + ".so has ABI " + abi + ", this jar needs " + IsalNative.ABI_VERSION;
  }
}
