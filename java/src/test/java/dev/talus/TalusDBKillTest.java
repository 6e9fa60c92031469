package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kill test through the Java API: a child JVM ({@link KillChild}) writes from four threads
 * and is killed with SIGKILL — at a random moment, or while its info log shows a flush or a
 * compaction in progress; the test reopens the database and checks every acknowledged write
 * (synced or not: a process kill loses nothing the WAL write returned) and that every value
 * present is the one its key determines. CI runs 3 cycles; {@code -Dtalus.kill.cycles=N} (or
 * {@code scripts/crash-soak --java-cycles N}) runs more.
 */
class TalusDBKillTest {
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("kill");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private enum Want {
    PRESENT,
    ABSENT,
    EITHER
  }

  private static boolean[] inProgress(Path db) throws Exception {
    Path log = db.resolve("LOG");
    String s = Files.exists(log) ? Files.readString(log) : "";
    return new boolean[] {
      count(s, "Flush started") > count(s, "Flush finished"),
      count(s, "Compaction started") > count(s, "Compaction finished")
    };
  }

  private static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void sigkillOfAMultiThreadedWriterLosesNoAcknowledgedWrite() throws Exception {
    int cycles = Integer.getInteger("talus.kill.cycles", 3);
    Path db = dir.resolve("db");
    Map<String, Want> expect = new HashMap<>();
    Random r = new Random(42);
    long checked = 0;
    int duringFlush = 0;
    int duringCompaction = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
      Path acks = dir.resolve("acks-" + cycle + ".txt");
      String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
      Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
          KillChild.class.getName(), db.toString(), acks.toString(), Integer.toString(cycle),
          "4").redirectError(ProcessBuilder.Redirect.INHERIT).start();
      BufferedReader out = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("ready", out.readLine(), "the child opened the database");
      long waitMs = 200 + r.nextInt(800);
      long deadline = System.nanoTime() + (waitMs + 5000) * 1_000_000L;
      Thread.sleep(waitMs);
      int moment = cycle % 3; // 0 random, 1 during a flush, 2 during a compaction
      while (moment != 0 && System.nanoTime() < deadline && !inProgress(db)[moment - 1]) {
        Thread.sleep(1);
      }
      assertTrue(p.isAlive(), () -> "the child died on its own: " + p.exitValue());
      p.destroyForcibly(); // SIGKILL
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));
      boolean[] ip = inProgress(db);
      duringFlush += ip[0] ? 1 : 0;
      duringCompaction += ip[1] ? 1 : 0;
      String text = Files.readString(acks);
      String complete = text.substring(0, text.lastIndexOf('\n') + 1);
      for (String line : complete.split("\n")) {
        if (line.length() < 3) {
          continue;
        }
        String k = line.substring(2);
        switch (line.charAt(0)) {
          case 'P':
            expect.put(k, Want.PRESENT);
            checked++;
            break;
          case 'd':
            expect.put(k, Want.EITHER);
            break;
          case 'D':
            expect.put(k, Want.ABSENT);
            checked++;
            break;
          default:
            break;
        }
      }
      try (Options o = new Options(); TalusDB d = TalusDB.open(o, db.toString())) {
        for (Map.Entry<String, Want> e : expect.entrySet()) {
          byte[] got = d.get(e.getKey().getBytes(StandardCharsets.UTF_8));
          if (e.getValue() == Want.PRESENT) {
            assertArrayEquals(KillChild.valueOf(e.getKey()), got,
                "cycle " + cycle + ": acknowledged put of " + e.getKey());
          } else if (e.getValue() == Want.ABSENT) {
            assertEquals(null, got, "cycle " + cycle + ": acknowledged delete of " + e.getKey());
          }
        }
        try (TalusIterator it = d.newIterator()) {
          for (it.seekToFirst(); it.isValid(); it.next()) {
            String k = new String(it.key(), StandardCharsets.UTF_8);
            assertArrayEquals(KillChild.valueOf(k), it.value(), "value of " + k);
          }
          it.status();
        }
        d.verifyChecksum();
      }
    }
    System.out.println("java-kill: cycles " + cycles + ", writes checked " + checked
        + ", losses 0, kills during flush " + duringFlush + ", during compaction "
        + duringCompaction);
    assertTrue(checked > 0);
  }
}
