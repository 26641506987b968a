package io.ecrepair.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an operator sees without ISA-L: a fallback with one log line, or a clear refusal. */
class NativeSettingTest {
  @TempDir
  Path tmp;

  private record Result(int code, String out, String err) {}

  private Result cli(boolean required, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        "-Decrepair.native.disable=true",
        "-Decrepair.native.required=" + required,
        "-Dlog4j.configuration=ecrepair-cli-log4j.properties",
        EcRepairCli.class.getName()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().remove("EC_REPAIR_NATIVE_REQUIRED");
    pb.redirectOutput(tmp.resolve("out").toFile()).redirectError(tmp.resolve("err").toFile());
    Process p = pb.start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "CLI finished");
    return new Result(p.exitValue(), Files.readString(tmp.resolve("out"), StandardCharsets.UTF_8),
        Files.readString(tmp.resolve("err"), StandardCharsets.UTF_8));
  }

  @Test
  void missingNativeFallsBackToJavaWithOneLogLine() throws Exception {
    byte[] data = new byte[100_000];
    new Random(1).nextBytes(data);
    Path in = tmp.resolve("in");
    Files.write(in, data);
    Result enc = cli(false, "encode", "--policy", "RS-3-2-64k", "--input", in.toString(),
        "--output", tmp.resolve("enc").toString(), "--block-size", "131072");
    assertEquals(0, enc.code(), enc.err());
    long warnings = enc.err().lines().filter(l -> l.contains("native ISA-L coder unavailable")).count();
    assertEquals(1, warnings, enc.err());
    Files.delete(tmp.resolve("enc").resolve("g0_b1"));
    Result dec = cli(false, "decode", "--input", tmp.resolve("enc").toString(), "--output", tmp.resolve("back").toString());
    assertEquals(0, dec.code(), dec.err());
    assertArrayEquals(data, Files.readAllBytes(tmp.resolve("back")));
  }

  @Test
  void requiredNativeRefusesToStartWithAClearMessage() throws Exception {
    Path in = tmp.resolve("in");
    Files.write(in, new byte[1000]);
    Result r = cli(true, "encode", "--policy", "RS-3-2-64k", "--input", in.toString(),
        "--output", tmp.resolve("enc").toString());
    assertEquals(EcRepairCli.FAILED, r.code());
    assertTrue(r.err().contains("native ISA-L library required"), r.err());
    assertTrue(r.err().contains("disabled by"), "the reason is given: " + r.err());
    assertTrue(Files.notExists(tmp.resolve("enc")), "nothing written");
  }
}
