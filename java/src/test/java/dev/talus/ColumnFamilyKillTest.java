package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kill test of column families: a child JVM ({@link CfKillChild}) writes batches that span
 * four families (puts in all, a put and a delete in one, a merge in another; a quarter synced)
 * while its main thread flushes or compacts one family at a time, and is killed with SIGKILL. On
 * each reopen, for every writer: every acknowledged batch is present in every family, batches
 * present are consecutive from the first and at most one past the last acknowledged, and each
 * present batch is whole — its key in every family with the value it determines, only the newest
 * batch's {@code tomb/} key left in family {@code b}, and the merged {@code m/} value in family
 * {@code c} is exactly the operands of the present batches in order. A writer's result must not
 * change in later cycles. CI runs 3 cycles; {@code -Dtalus.kill.cycles=N} (or {@code
 * scripts/crash-soak --java-cycles N}) runs more.
 */
class ColumnFamilyKillTest {
  private static final int WRITERS = 3;
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    dir = TestDirs.fresh("cfkill");
  }

  @AfterEach
  void tearDown() throws Exception {
    TestDirs.delete(dir);
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /** Scans one family into a map of key to value. */
  private static TreeMap<String, byte[]> scan(TalusDB db, ColumnFamilyHandle h)
      throws TalusException {
    TreeMap<String, byte[]> out = new TreeMap<>();
    try (TalusIterator it = db.newIterator(h)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        out.put(s(it.key()), it.value());
      }
      it.status();
    }
    return out;
  }

  @Test
  void sigkillNeverLeavesACrossFamilyBatchPartOrLosesAnAcknowledgedOne() throws Exception {
    int cycles = Integer.getInteger("talus.kill.cycles", 3);
    Path db = dir.resolve("db");
    Random r = new Random(7);
    Map<Integer, Long> settled = new HashMap<>(); // writer -> batches present (from earlier cycles)
    long batchesChecked = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
      Path acks = dir.resolve("acks-" + cycle + ".txt");
      int firstWriter = cycle * WRITERS;
      String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
      Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
          CfKillChild.class.getName(), db.toString(), acks.toString(),
          Integer.toString(firstWriter), Integer.toString(WRITERS), Integer.toString(cycle))
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      BufferedReader out = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("ready", out.readLine(), "the child opened the database");
      Thread.sleep(300 + r.nextInt(1200));
      assertTrue(p.isAlive(), () -> "the child died on its own: " + p.exitValue());
      p.destroyForcibly(); // SIGKILL
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));

      Map<Integer, Long> acked = new HashMap<>(); // writer -> last acknowledged batch number
      String text = Files.readString(acks);
      for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\n")) {
        String[] f = line.split(" ");
        if (f.length == 3 && f[0].equals("A")) {
          acked.merge(Integer.parseInt(f[1]), Long.parseLong(f[2]), Math::max);
        }
      }

      List<ColumnFamilyHandle> hs = new ArrayList<>();
      try (DBOptions o = CfKillChild.dbOptions();
          TalusDB d = TalusDB.open(o, db.toString(), CfKillChild.descriptors(), hs)) {
        List<TreeMap<String, byte[]>> fams = new ArrayList<>();
        for (ColumnFamilyHandle h : hs) {
          fams.add(scan(d, h));
        }
        for (int w = 0; w < firstWriter + WRITERS; w++) {
          String at = "cycle " + cycle + ", writer " + w;
          // Batches present: consecutive from 0, judged by family default.
          long present = 0;
          while (fams.get(0).containsKey("k/" + w + "-" + present)) {
            present++;
          }
          long ack = acked.getOrDefault(w, -1L);
          if (w >= firstWriter) {
            assertTrue(present >= ack + 1, at + ": acknowledged batch " + ack
                + " lost (present: " + present + ")");
            assertTrue(present <= ack + 2, at + ": " + present + " batches present, only "
                + (ack + 1) + " acknowledged and one in flight");
            settled.put(w, present);
          } else {
            assertEquals(settled.get(w), present, at + ": batches present changed after reopen");
          }
          // Each present batch whole in every family; nothing of a batch not present.
          for (int f = 0; f < CfKillChild.FAMILIES.size(); f++) {
            String fam = CfKillChild.FAMILIES.get(f);
            for (long n = 0; n <= present; n++) {
              String id = w + "-" + n;
              byte[] v = fams.get(f).get("k/" + id);
              if (n < present) {
                assertArrayEquals(CfKillChild.valueOf(id, fam), v,
                    at + ": batch " + id + " in family " + fam);
              } else if (v != null) {
                fail(at + ": batch " + id + " is in family " + fam + " but not in default");
              }
            }
          }
          String tombs = fams.get(2).subMap("tomb/" + w + "-", "tomb/" + w + "-\uffff")
              .keySet().toString();
          String wantTombs = present == 0 ? "[]" : "[tomb/" + w + "-" + (present - 1) + "]";
          assertEquals(wantTombs, tombs, at + ": tomb keys in family b");
          StringBuilder merged = new StringBuilder();
          for (long n = 0; n < present; n++) {
            merged.append(n == 0 ? "" : ",").append(n);
          }
          byte[] m = fams.get(3).get("m/" + w);
          assertEquals(present == 0 ? null : merged.toString(), m == null ? null : s(m),
              at + ": merged operands in family c");
          batchesChecked += present;
        }
        // Nothing else in any family.
        for (int f = 0; f < fams.size(); f++) {
          for (String k : fams.get(f).keySet()) {
            assertTrue(k.startsWith("k/") || (f == 2 && k.startsWith("tomb/"))
                || (f == 3 && k.startsWith("m/")), "unexpected key " + k + " in family "
                + CfKillChild.FAMILIES.get(f));
          }
        }
        d.verifyChecksum();
      }
    }
    System.out.println("java-cf-kill: cycles " + cycles + ", batches checked " + batchesChecked
        + " (in 4 families each), losses 0, partial batches 0");
    assertTrue(batchesChecked > 0);
  }
}
