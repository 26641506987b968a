package io.ecrepair.codes;

/** The surviving units of a stripe cannot determine the units asked for. */
public class UndecodableException extends IllegalArgumentException {
  public UndecodableException(String message) {
    super(message);
  }
}
