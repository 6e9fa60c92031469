package dev.talus.examples.bulkimport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The read benchmark end to end, in this JVM through {@link ReadBench#run}: small databases,
 * fractions of a second per workload. Asserts what every run must show (every workload ran, no
 * read was wrong, the database was reused, the service served both kinds of request, the
 * background import started and was stopped), never times.
 */
class ReadBenchEndToEndTest {

  private static String runBench(int expectedStatus, String... args) {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int status;
    try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
      status = ReadBench.run(out, args);
    }
    String text = buf.toString(StandardCharsets.UTF_8);
    System.out.println(text);
    assertEquals(expectedStatus, status, text);
    return text;
  }

  private static void assertReadsSound(ReadSummary s) {
    for (ReadSummary.ReadResult r : s.reads) {
      String what = r.workload + " at " + r.threads + " threads";
      assertEquals(0, r.wrong, what + ": wrong reads");
      assertTrue(r.ops > 0, what + ": no call completed");
      assertTrue(r.p50Micros > 0 && r.maxMicros >= r.p99Micros, what + ": percentiles");
      switch (r.workload) {
        case "get-absent" -> assertEquals(0, r.entries, what);
        case "multiget" -> assertEquals(ReadWorkloads.MULTIGET_KEYS * r.ops, r.entries, what);
        case "scan-range" -> assertTrue(r.entries > r.ops
            && r.entries <= ReadWorkloads.RANGE_ENTRIES * r.ops, what);
        case "scan-forward", "scan-reverse" -> assertTrue(r.entries >= r.ops * s.rows, what);
        default -> assertEquals(r.ops, r.entries, what);
      }
    }
  }

  @Test
  void talusRunsEveryReadWorkloadThenReusesTheDatabase() throws Exception {
    Path dir = TestDirs.root().resolve("reads-talus");
    TestDirs.deleteTree(dir);
    String db = dir.resolve("db").toString();
    Path report = dir.resolve("r1");
    runBench(0, "--engine", "talus", "--rows", "20000", "--seconds", "0.2",
        "--warmup-seconds", "0", "--threads", "1,2", "--db", db, "--reuse",
        "--report", report.toString());
    ReadSummary s = ReadSummary.read(report.resolve(ReadSummary.FILE));
    assertNull(s.error);
    assertTrue(s.loaded);
    assertEquals(7 * 2, s.reads.size(), "every workload at every thread count");
    assertReadsSound(s);
    assertEquals(0, s.levelFiles.get(0), "no L0 file after compactRange: " + s.levelFiles);
    assertEquals(1, s.levelFiles.stream().filter(f -> f > 0).count(),
        "fully compacted into one level: " + s.levelFiles);
    assertEquals(0, s.verifyMissing + s.verifyWrong);
    assertTrue(s.reads.get(0).machine.cpuMicrosPerOp > 0, "CPU per operation measured");
    // By default the page cache is warmed by reading the files, not by a scan through the
    // engine (which left RocksJava's next workload slower).
    assertTrue(s.bytesOnDisk > 0 && s.warmupFilesBytes >= s.bytesOnDisk * 9 / 10,
        s.warmupFilesBytes + " bytes read for " + s.bytesOnDisk + " on disk");
    assertEquals(-1, s.warmupScanSeconds, "no warm-up scan unless asked");
    // ... after dropping every file's cached pages, so both engines' files are cached alike.
    assertEquals(0, s.warmupFilesDropFailures, "files not dropped from the page cache");

    Path report2 = dir.resolve("r2");
    String text = runBench(0, "--engine", "talus", "--rows", "20000", "--seconds", "0.1",
        "--warmup-seconds", "0", "--threads", "1", "--workloads", "get-present,scan-range",
        "--db", db, "--reuse", "--report", report2.toString(), "--warmup-scan",
        "--no-warmup-files");
    ReadSummary s2 = ReadSummary.read(report2.resolve(ReadSummary.FILE));
    assertFalse(s2.loaded, text);
    assertTrue(s2.warmupScanSeconds >= 0, "the scan runs when asked: " + text);
    assertEquals(-1, s2.warmupFilesSeconds, "no file warm-up with --no-warmup-files");
    assertEquals(List.of("get-present", "scan-range"),
        s2.reads.stream().map(r -> r.workload).toList());
    assertReadsSound(s2);

    // Other rows than the ones loaded: --reuse refuses the directory rather than mix them.
    text = runBench(2, "--engine", "talus", "--rows", "30000", "--db", db, "--reuse");
    assertTrue(text.contains("--overwrite"), text);
    TestDirs.deleteTree(dir);
  }

  @Test
  void rocksJavaRunsTheSameReadWorkloads() throws Exception {
    Path dir = TestDirs.root().resolve("reads-rocksdb");
    TestDirs.deleteTree(dir);
    Path report = dir.resolve("report");
    runBench(0, "--engine", "rocksdb", "--rows", "5000", "--seconds", "0.1",
        "--warmup-seconds", "0", "--threads", "1", "--db", dir.resolve("db").toString(),
        "--report", report.toString(), "--statistics");
    ReadSummary s = ReadSummary.read(report.resolve(ReadSummary.FILE));
    assertNull(s.error);
    assertEquals("rocksdb", s.engine);
    assertTrue(s.engineVersion.contains("11.8.1"), s.engineVersion);
    assertEquals(7, s.reads.size());
    assertReadsSound(s);
    assertEquals(1, s.levelFiles.stream().filter(f -> f > 0).count(), "" + s.levelFiles);
    ReadSummary.ReadResult get = s.reads.get(0);
    assertTrue(get.machine.blockCacheHitRatio > 0, "with --statistics the hit ratio is known");
    TestDirs.deleteTree(dir);
  }

  @Test
  void serviceWorkloadServesMixedRequestsOpenLoop() throws Exception {
    Path dir = TestDirs.root().resolve("service-talus");
    TestDirs.deleteTree(dir);
    Path report = dir.resolve("report");
    runBench(0, "--engine", "talus", "--workload", "service", "--rows", "5000",
        "--request-threads", "16", "--rate", "50%,1000", "--read-fraction", "0.3",
        "--seconds", "0.3", "--warmup-seconds", "0", "--talus-max-concurrent-writers", "0",
        "--db", dir.resolve("db").toString(), "--report", report.toString());
    ReadSummary s = ReadSummary.read(report.resolve(ReadSummary.FILE));
    assertNull(s.error);
    assertEquals(List.of("saturated", "50%", "1,000/s"),
        s.service.stream().map(r -> r.rate).toList());
    assertTrue(s.saturatedRate > 0);
    assertEquals(s.saturatedRate / 2, s.service.get(1).offeredRate, s.saturatedRate * 1e-9);
    assertEquals(1000, s.service.get(2).offeredRate);
    for (ReadSummary.ServiceResult r : s.service) {
      assertEquals(0, r.wrong, r.rate);
      assertTrue(r.puts > 0 && r.gets > 0, r.rate + ": both kinds of request");
      assertEquals(r.served, r.puts + r.gets, r.rate);
      assertTrue(r.putMaxMicros >= r.putP99Micros && r.putP99Micros >= r.putP50Micros, r.rate);
      assertTrue(r.putP99Micros >= r.putServiceP50Micros, r.rate
          + ": latency from the arrival includes the call");
    }
    // 0.3 s at 1,000/s: 300 arrivals, every one served (the drain may take another 0.3 s).
    ReadSummary.ServiceResult slow = s.service.get(2);
    assertEquals(300, slow.served + slow.unserved);
    TestDirs.deleteTree(dir);
  }

  @Test
  void backgroundImportRunsInAnotherJvmAndIsStopped() throws Exception {
    Path dir = TestDirs.root().resolve("reads-background");
    TestDirs.deleteTree(dir);
    Path report = dir.resolve("report");
    Path bg = dir.resolve("bg-db");
    runBench(0, "--engine", "talus", "--rows", "5000", "--seconds", "1",
        "--warmup-seconds", "0", "--threads", "1", "--workloads", "get-present",
        "--db", dir.resolve("db").toString(), "--report", report.toString(),
        "--background-import", "5000", "--background-dir", bg.toString(),
        "--background-delay-seconds", "1", "--background-args", "--threads 2");
    ReadSummary s = ReadSummary.read(report.resolve(ReadSummary.FILE));
    assertNull(s.error);
    assertEquals(5000, s.backgroundImportRows);
    assertTrue(s.backgroundRunsStarted >= 1, "the background JVM started");
    String log = Files.readString(report.resolve("background-import.txt"));
    assertEquals(0, s.backgroundRunsFailed, log);
    assertTrue(s.reads.get(0).backgroundImport, "the workload ran beside it");
    assertFalse(Files.exists(bg), "its database is deleted when it stops");
    TestDirs.deleteTree(dir);
  }

  @Test
  void badFlagsAreRefusedWithTheirName() {
    String text = runBench(2, "--rate", "fast", "--workload", "service");
    assertTrue(text.contains("--rate"), text);
    text = runBench(2, "--workloads", "get-present,get-everything");
    assertTrue(text.contains("get-everything"), text);
  }

  @Test
  void readFractionSplitsArrivalsDeterministically() {
    ServiceWorkload w = new ServiceWorkload(null, new Rows(3, 48, 160, false), 1000, 3, 1, 0.3,
        false);
    ServiceWorkload same = new ServiceWorkload(null, new Rows(3, 48, 160, false), 1000, 3, 1,
        0.3, false);
    int reads = 0;
    for (long k = 0; k < 100_000; k++) {
      assertEquals(w.isRead(k), same.isRead(k));
      assertEquals(w.row(k), same.row(k));
      assertTrue(w.row(k) >= 0 && w.row(k) < 1000);
      if (w.isRead(k)) {
        reads++;
      }
    }
    assertTrue(reads > 29_000 && reads < 31_000, "30% reads: " + reads);
  }

  @Test
  void compareTableShowsMediansAndRatios() {
    ReadSummary t1 = summary("talus", 200, 2.0);
    ReadSummary t2 = summary("talus", 300, 4.0);
    ReadSummary t3 = summary("talus", 250, 9.0);
    ReadSummary r1 = summary("rocksdb", 100, 5.0);
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int status;
    try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
      status = ReadCompareTable.print(out, List.of(t1, r1, t2, t3));
    }
    String text = buf.toString(StandardCharsets.UTF_8);
    assertEquals(0, status, text);
    // Medians: Talus 250 ops/s and p50 4.0 us, RocksJava 100 and 5.0: ratios 2.50 and 0.80.
    assertTrue(text.contains("| get-present | 8 | 250 | 100 | 2.50 |"), text);
    assertTrue(text.contains("| get-present | 8 | 4.0 | 5.0 | 0.80 |"), text);

    buf.reset();
    try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
      status = ReadCompareTable.print(out, List.of(t1));
    }
    assertEquals(1, status, "no RocksJava run: nothing to compare");
  }

  private static ReadSummary summary(String engine, double opsPerSecond, double p50) {
    ReadSummary s = new ReadSummary();
    s.engine = engine;
    s.label = engine;
    s.engineVersion = engine + " test";
    s.workload = "reads";
    s.rows = 1000;
    s.keyOrder = "random";
    ReadSummary.ReadResult r = new ReadSummary.ReadResult();
    r.workload = "get-present";
    r.threads = 8;
    r.opsPerSecond = opsPerSecond;
    r.entriesPerSecond = opsPerSecond;
    r.p50Micros = p50;
    r.p99Micros = p50 * 2;
    r.p999Micros = p50 * 3;
    s.reads.add(r);
    return s;
  }
}
