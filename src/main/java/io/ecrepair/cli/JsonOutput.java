package io.ecrepair.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;

/** --json: exactly one JSON object on stdout. */
final class JsonOutput {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private JsonOutput() {}

  static void print(PrintWriter out, Object value) {
    try {
      out.println(JSON.writeValueAsString(value));
      out.flush();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render JSON: " + e.getMessage(), e);
    }
  }
}
