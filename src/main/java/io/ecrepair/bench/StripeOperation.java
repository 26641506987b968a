package io.ecrepair.bench;

import java.io.IOException;

/** One encode or decode of a whole stripe, with its own buffers (one per thread). */
@FunctionalInterface
interface StripeOperation {
  void run() throws IOException;
}
