package io.ecrepair.cli;

import picocli.CommandLine.Option;

/** The --json switch every command shares (DESIGN.md section 6). */
final class JsonOption {
  @Option(names = "--json", description = "Print one JSON object on stdout.")
  boolean enabled;
}
