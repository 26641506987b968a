package io.ecrepair.cli;

import picocli.CommandLine.Option;

/** The --json switch every command shares (docs/architecture.md#command-line-contract). */
final class JsonOption {
  @Option(names = "--json", description = "Print one JSON object on stdout.")
  boolean enabled;
}
