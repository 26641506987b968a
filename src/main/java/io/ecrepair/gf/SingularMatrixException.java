package io.ecrepair.gf;

/** A matrix that was expected to be invertible is not. */
public class SingularMatrixException extends ArithmeticException {
  public SingularMatrixException(String message) {
    super(message);
  }
}
