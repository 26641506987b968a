package io.ecrepair.gf;

/**
 * The calling thread's nice (its CPU priority under Linux's scheduler), through the native
 * bridge: the one system call Java has no API for. Without the native library it is unknown.
 */
public final class ThreadNice {
  private ThreadNice() {}

  /** Whether the calling thread's nice can be read and set here. */
  public static boolean available() {
    return RegionCoders.nativeAvailable();
  }

  /** The calling thread's nice (-20 to 19). */
  public static int get() {
    requireNative();
    int nice = IsalNative.threadNice();
    if (nice == Integer.MIN_VALUE) {
      throw new IllegalStateException("the system did not tell this thread's nice");
    }
    return nice;
  }

  /**
   * Sets the calling thread's nice; false when the system refused (a thread without privilege may
   * raise its nice, never lower it again).
   */
  public static boolean set(int nice) {
    requireNative();
    if (nice < -20 || nice > 19) {
      throw new IllegalArgumentException("a nice is -20 to 19, not " + nice);
    }
    return IsalNative.setThreadNice(nice) == 0;
  }

  private static void requireNative() {
    if (!available()) {
      throw new IllegalStateException("the native library is not loaded: " + RegionCoders.nativeUnavailableReason());
    }
  }
}
