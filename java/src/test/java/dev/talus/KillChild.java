package dev.talus;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Child process of {@link TalusDBKillTest}: opens the database with small memtables (flushes and
 * compactions all the time) and writes from several threads until it is killed — puts of new keys
 * (a quarter synced), batches, deletes of its own acknowledged keys, explicit flushes and
 * compactions. After each write returns it appends one line per key to the acknowledgement log
 * with a single unbuffered write; a delete logs its intent ({@code d key}) first.
 *
 * <p>Arguments: database directory, ack log, seed, threads.
 */
public final class KillChild {
  private KillChild() {}

  /** The value a key always has, so the parent can check any value it finds. */
  static byte[] valueOf(String key) {
    int h = key.hashCode();
    int len = Math.floorMod(h, 1200) + 1;
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    byte[] v = new byte[k.length + 1 + len];
    System.arraycopy(k, 0, v, 0, k.length);
    v[k.length] = '|';
    Random r = new Random(h);
    for (int i = k.length + 1; i < v.length; i++) {
      v[i] = (byte) ('a' + r.nextInt(26));
    }
    return v;
  }

  /**
   * @param args database directory, ack log, seed, threads
   * @throws Exception on an unexpected failure (exit code 1)
   */
  public static void main(String[] args) throws Exception {
    String dir = args[0];
    FileOutputStream acks = new FileOutputStream(args[1], true);
    long seed = Long.parseLong(args[2]);
    int threads = Integer.parseInt(args[3]);
    Options o = new Options().setCreateIfMissing(true).setWriteBufferSize(256 << 10)
        .setMaxWriteBufferNumber(3).setLevel0FileNumCompactionTrigger(2)
        .setTargetFileSizeBase(256 << 10).setMaxBytesForLevelBase(1 << 20)
        .setStatsDumpPeriodSec(0);
    TalusDB db = TalusDB.open(o, dir);
    System.out.println("ready");
    System.out.flush();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int id = t;
      Thread th = new Thread(() -> write(db, acks, seed, id));
      th.start();
      ts.add(th);
    }
    Random r = new Random(seed);
    long end = System.nanoTime() + 60_000_000_000L; // an orphan never outlives the parent long
    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      while (System.nanoTime() < end) {
        Thread.sleep(20 + r.nextInt(150));
        if (r.nextInt(4) == 0) {
          db.compactRange();
        } else {
          db.flush(fo);
        }
      }
    }
    System.exit(0);
  }

  private static void ack(FileOutputStream acks, String lines) {
    byte[] b = lines.getBytes(StandardCharsets.UTF_8);
    synchronized (acks) {
      try {
        acks.write(b); // one write(2): in the OS before the kill can come
      } catch (IOException e) {
        System.exit(3);
      }
    }
  }

  private static void write(TalusDB db, FileOutputStream acks, long seed, int t) {
    Random r = new Random(seed * 31 + t);
    List<String> mine = new ArrayList<>();
    long n = 0;
    try (WriteOptions plain = new WriteOptions();
        WriteOptions sync = new WriteOptions().setSync(true)) {
      while (true) {
        WriteOptions wo = r.nextInt(4) == 0 ? sync : plain;
        int kind = r.nextInt(20);
        if (kind == 0 && !mine.isEmpty()) {
          String k = mine.remove(r.nextInt(mine.size()));
          ack(acks, "d " + k + "\n");
          db.delete(wo, k.getBytes(StandardCharsets.UTF_8));
          ack(acks, "D " + k + "\n");
        } else if (kind == 1) {
          StringBuilder lines = new StringBuilder();
          try (WriteBatch b = new WriteBatch()) {
            for (int i = 0; i < 5; i++) {
              String k = "j" + seed + "-t" + t + "-" + n++;
              b.put(k.getBytes(StandardCharsets.UTF_8), valueOf(k));
              lines.append("P ").append(k).append('\n');
              mine.add(k);
            }
            db.write(wo, b);
          }
          ack(acks, lines.toString());
        } else {
          String k = "j" + seed + "-t" + t + "-" + n++;
          db.put(wo, k.getBytes(StandardCharsets.UTF_8), valueOf(k));
          mine.add(k);
          ack(acks, "P " + k + "\n");
        }
      }
    } catch (TalusException e) {
      e.printStackTrace();
      System.exit(6);
    }
  }
}
