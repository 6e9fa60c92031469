package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TalusDBDurabilityTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("durability");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private TalusDB open() throws TalusException {
    return TalusDB.open(new Options().setCreateIfMissing(true), dir.toString());
  }

  private static byte[] key(long i) {
    return ByteBuffer.allocate(8).putLong(i).array();
  }

  private static Process child(Class<?> main, String arg) throws Exception {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), main.getName(),
        arg).redirectErrorStream(true).start();
  }

  @Test
  void syncWritesSurviveSigkillOfTheWritingJvm() throws Exception {
    Process p = child(CrashChild.class, dir.toString());
    AtomicLong acked = new AtomicLong(-1);
    CountDownLatch enough = new CountDownLatch(1);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.equals("ready")) {
            continue;
          }
          long n = Long.parseLong(line.trim());
          acked.set(n);
          if (n >= 300) {
            enough.countDown();
          }
        }
      } catch (Exception e) {
        // The child was killed mid-line: the last whole line counts.
      }
    });
    reader.start();
    assertTrue(enough.await(120, TimeUnit.SECONDS), "child acknowledged only " + acked.get());
    p.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, no close
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    reader.join();
    long last = acked.get();
    assertTrue(last >= 300);
    try (TalusDB db = open()) {
      for (long i = 0; i <= last; i++) {
        assertArrayEquals(("value-" + i).getBytes(), db.get(key(i)), "acknowledged key " + i);
      }
    }
  }

  @Test
  @SuppressWarnings("try") // db is open only to hold the lock
  void secondOpenFromAnotherProcessFailsWhileLocked() throws Exception {
    try (TalusDB db = open()) {
      Process p = child(LockChild.class, dir.toString());
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS));
      // RocksJava's status and words: "IO error: While lock file: .../LOCK: Resource
      // temporarily unavailable".
      assertTrue(out.contains("IOError"), out);
      assertTrue(out.contains("While lock file: "), out);
      assertTrue(out.contains("LOCK: Resource temporarily unavailable"), out);
      assertTrue(out.contains("another process"), out);
    }
  }

  private Path onlyLog() throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> logs = s.filter(p -> p.toString().endsWith(".log"))
          .filter(p -> p.toFile().length() > 0).collect(Collectors.toList());
      assertEquals(1, logs.size(), logs.toString());
      return logs.get(0);
    }
  }

  private void write100(long base) throws Exception {
    try (TalusDB db = open()) {
      for (long i = base; i < base + 100; i++) {
        db.put(key(i), new byte[1000]);
      }
    }
  }

  @Test
  void logTruncatedMidRecordKeepsEveryWholeRecordBeforeTheCut() throws Exception {
    write100(0);
    Path log = onlyLog();
    byte[] bytes = Files.readAllBytes(log);
    // Each record: 7-byte fragment header + 12-byte batch header + kind + 2 lengths + key + value.
    int rec = 7 + 12 + 1 + 1 + 8 + 2 + 1000;
    Files.write(log, Arrays.copyOf(bytes, rec * 40 + rec / 3));
    try (TalusDB db = open()) {
      for (long i = 0; i < 100; i++) {
        if (i < 40) {
          assertNotNull(db.get(key(i)), "whole record " + i + " before the cut");
        } else {
          assertNull(db.get(key(i)), "record " + i + " after the cut");
        }
      }
    }
    String log0 = Files.readString(dir.resolve("LOG"));
    assertTrue(log0.contains("Dropped torn tail"), log0);
  }

  @Test
  void flippedByteInTheMiddleOfTheLogFailsOpenWithCorruption() throws Exception {
    write100(0);
    Path log = onlyLog();
    byte[] bytes = Files.readAllBytes(log);
    bytes[bytes.length / 2] ^= 0x10;
    Files.write(log, bytes);
    TalusException e = assertThrows(TalusException.class, this::open);
    assertEquals(Status.Code.Corruption, e.getStatus().getCode());
    assertTrue(e.getMessage().contains(log.getFileName().toString()), e.getMessage());
  }

  /** One writer's loop: it runs until a call throws because the database closed. */
  private interface WriterLoop {
    void run(int id) throws TalusException;
  }

  /**
   * Starts {@code threads} writers running {@code loop}, closes {@code db} under them 50 ms later
   * and waits for them. A writer may end only with IllegalStateException (its call began after the
   * close) or a ShutdownInProgress status (it began before); anything else fails the test.
   *
   * @return how many writers ended that way
   */
  private static int closeUnderWriters(TalusDB db, int threads, WriterLoop loop)
      throws Exception {
    CountDownLatch started = new CountDownLatch(threads);
    AtomicInteger ended = new AtomicInteger();
    List<Throwable> unexpected = new ArrayList<>();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int id = t;
      Thread th = new Thread(() -> {
        started.countDown();
        try {
          loop.run(id);
        } catch (IllegalStateException e) {
          ended.incrementAndGet();
        } catch (TalusException e) {
          if (e.getStatus().getCode() == Status.Code.ShutdownInProgress) {
            ended.incrementAndGet();
          } else {
            synchronized (unexpected) {
              unexpected.add(e);
            }
          }
        } catch (Throwable e) {
          synchronized (unexpected) {
            unexpected.add(e);
          }
        }
      });
      th.start();
      ts.add(th);
    }
    started.await();
    Thread.sleep(50);
    db.close();
    for (Thread th : ts) {
      th.join(30_000);
    }
    assertTrue(unexpected.isEmpty(), unexpected.toString());
    return ended.get();
  }

  @Test
  void closingWhileOtherThreadsWriteThrowsIllegalStateAndTheJvmSurvives() throws Exception {
    for (int round = 0; round < 5; round++) {
      TalusDB db = open();
      int threads = 6;
      int ended = closeUnderWriters(db, threads, id -> {
        for (long i = 0; ; i++) {
          db.put(key(id * 1_000_000L + i), new byte[100]);
          db.get(key(i));
        }
      });
      assertEquals(threads, ended);
      assertThrows(IllegalStateException.class, () -> db.put(key(1), key(1)));
    }
  }

  /**
   * Regression: close() flushed the memtables holding writes made without the WAL, then stopped
   * writes; a disableWAL put in flight during that flush was acknowledged and lost. Every put a
   * writer saw return must be there after reopening.
   */
  @Test
  void everyDisableWalPutAcknowledgedBeforeCloseIsKeptByIt() throws Exception {
    int threads = 6;
    for (int round = 0; round < 5; round++) {
      long base = round * 100_000_000L;
      TalusDB db = open();
      long[] acked = new long[threads];
      Arrays.fill(acked, -1);
      int ended = closeUnderWriters(db, threads, id -> {
        try (WriteOptions unlogged = new WriteOptions().setDisableWAL(true)) {
          for (long i = 0; ; i++) {
            db.put(unlogged, key(base + id * 1_000_000L + i), new byte[200]);
            acked[id] = i;
          }
        }
      });
      assertEquals(threads, ended);
      try (TalusDB again = open()) {
        for (int t = 0; t < threads; t++) {
          assertTrue(acked[t] >= 0, "writer " + t + " wrote nothing");
          for (long i = 0; i <= acked[t]; i++) {
            assertNotNull(again.get(key(base + t * 1_000_000L + i)),
                "round " + round + ": writer " + t + "'s put " + i + " of " + acked[t]
                    + " acknowledged was lost");
          }
        }
      }
    }
  }
}
