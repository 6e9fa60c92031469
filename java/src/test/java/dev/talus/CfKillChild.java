package dev.talus;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Child process of {@link ColumnFamilyKillTest}: opens the database with four column families
 * ({@code default}, {@code a}, {@code b}, {@code c}; small memtables, so flushes and compactions
 * run all the time) and writes cross-family batches from several threads until it is killed. The
 * main thread meanwhile flushes or compacts one family at a time.
 *
 * <p>Batch {@code n} of writer {@code w} (its id is {@code w-n}) holds, in one {@link WriteBatch}:
 * a put of {@code k/w-n} in every family; in {@code b} a put of {@code tomb/w-n} and a delete of
 * {@code tomb/w-(n-1)}; in {@code c} (string-append merge operator) a merge of operand {@code n}
 * into {@code m/w}. A quarter of the batches are synced. After a batch's write returns, the
 * writer appends {@code A w n} to the acknowledgement log with one unbuffered write.
 *
 * <p>Arguments: database directory, ack log, first writer id, writers, seed.
 */
public final class CfKillChild {
  private CfKillChild() {}

  /** The families, in open order; {@code c} has the string-append merge operator. */
  static final List<String> FAMILIES = List.of("default", "a", "b", "c");

  /** The value of {@code k/id} in {@code family}: determined by both, 20 to 420 bytes. */
  static byte[] valueOf(String id, String family) {
    String head = id + "@" + family + "|";
    int len = Math.floorMod((id + family).hashCode(), 400) + 20;
    StringBuilder sb = new StringBuilder(head);
    Random r = new Random((id + family).hashCode());
    while (sb.length() < head.length() + len) {
      sb.append((char) ('a' + r.nextInt(26)));
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  static DBOptions dbOptions() {
    return new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
        .setStatsDumpPeriodSec(0);
  }

  static List<ColumnFamilyDescriptor> descriptors() {
    List<ColumnFamilyDescriptor> ds = new ArrayList<>();
    for (String f : FAMILIES) {
      ColumnFamilyOptions o = new ColumnFamilyOptions().setWriteBufferSize(128 << 10)
          .setMaxWriteBufferNumber(3).setLevel0FileNumCompactionTrigger(2)
          .setTargetFileSizeBase(128 << 10).setMaxBytesForLevelBase(512 << 10);
      if (f.equals("c")) {
        o.setMergeOperator(new StringAppendOperator());
      }
      ds.add(new ColumnFamilyDescriptor(f.getBytes(StandardCharsets.UTF_8), o));
    }
    return ds;
  }

  /**
   * @param args database directory, ack log, first writer id, writers, seed
   * @throws Exception on an unexpected failure (exit code 1)
   */
  public static void main(String[] args) throws Exception {
    String dir = args[0];
    FileOutputStream acks = new FileOutputStream(args[1], true);
    int firstWriter = Integer.parseInt(args[2]);
    int writers = Integer.parseInt(args[3]);
    long seed = Long.parseLong(args[4]);
    List<ColumnFamilyHandle> hs = new ArrayList<>();
    TalusDB db = TalusDB.open(dbOptions(), dir, descriptors(), hs);
    System.out.println("ready");
    System.out.flush();
    for (int w = firstWriter; w < firstWriter + writers; w++) {
      final int id = w;
      new Thread(() -> write(db, hs, acks, seed, id)).start();
    }
    Random r = new Random(seed);
    long end = System.nanoTime() + 60_000_000_000L; // an orphan never outlives the parent long
    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
      while (System.nanoTime() < end) {
        Thread.sleep(10 + r.nextInt(100));
        ColumnFamilyHandle h = hs.get(r.nextInt(hs.size()));
        if (r.nextInt(5) == 0) {
          db.compactRange(h);
        } else {
          db.flush(fo, h); // one family: the others keep unflushed data in the same WAL
        }
      }
    }
    System.exit(0);
  }

  private static void write(TalusDB db, List<ColumnFamilyHandle> hs, FileOutputStream acks,
      long seed, int w) {
    Random r = new Random(seed * 31 + w);
    try (WriteOptions plain = new WriteOptions();
        WriteOptions sync = new WriteOptions().setSync(true)) {
      for (long n = 0; ; n++) {
        String id = w + "-" + n;
        try (WriteBatch b = new WriteBatch()) {
          for (int f = 0; f < FAMILIES.size(); f++) {
            String fam = FAMILIES.get(f);
            b.put(hs.get(f), ("k/" + id).getBytes(StandardCharsets.UTF_8), valueOf(id, fam));
          }
          ColumnFamilyHandle fb = hs.get(2);
          b.put(fb, ("tomb/" + id).getBytes(StandardCharsets.UTF_8),
              id.getBytes(StandardCharsets.UTF_8));
          if (n > 0) {
            b.delete(fb, ("tomb/" + w + "-" + (n - 1)).getBytes(StandardCharsets.UTF_8));
          }
          b.merge(hs.get(3), ("m/" + w).getBytes(StandardCharsets.UTF_8),
              Long.toString(n).getBytes(StandardCharsets.UTF_8));
          db.write(r.nextInt(4) == 0 ? sync : plain, b);
        }
        byte[] line = ("A " + w + " " + n + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (acks) {
          acks.write(line); // one write(2): in the OS before the kill can come
        }
      }
    } catch (TalusException e) {
      e.printStackTrace();
      System.exit(6);
    } catch (IOException e) {
      System.exit(3);
    }
  }
}
