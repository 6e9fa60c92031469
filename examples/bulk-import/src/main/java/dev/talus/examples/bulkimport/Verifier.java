package dev.talus.examples.bulkimport;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads rows back and checks each value against the one computed from its index ({@link
 * Rows}): a missing row ({@code get} returns null) or a wrong one (any byte differs, including
 * the key checksum in its first 8 bytes) is counted, and the first few are named. With several
 * column families each row is read from the family its key belongs to ({@link Engine#familyOf})
 * and the counts are also kept per family. {@code all}
 * checks every row; {@code sample} about 100 000 rows spread evenly over the index range. Needs
 * no state from the import.
 */
final class Verifier {
  /** Which rows to read back. */
  enum Mode {
    /** Read nothing back. */
    none,
    /** About 100 000 rows, evenly spaced. */
    sample,
    /** Every row. */
    all
  }

  static final long SAMPLE_ROWS = 100_000;
  private static final int REPORTED = 10;

  long checked;
  long missing;
  long wrong;
  double seconds;
  final List<String> problems = new ArrayList<>();
  /** Per family: rows checked, missing, wrong. */
  long[][] perFamily = new long[0][];

  void run(Engine engine, Rows rows, long total, Mode mode, int threads, PrintStream out)
      throws Exception {
    if (mode == Mode.none || total == 0) {
      return;
    }
    long stride = mode == Mode.all ? 1 : Math.max(1, total / SAMPLE_ROWS);
    long count = (total + stride - 1) / stride;
    AtomicLong nextChunk = new AtomicLong();
    AtomicLong nChecked = new AtomicLong();
    AtomicLong nMissing = new AtomicLong();
    AtomicLong nWrong = new AtomicLong();
    int families = engine.families();
    java.util.concurrent.atomic.AtomicLongArray fam =
        new java.util.concurrent.atomic.AtomicLongArray(3 * families);
    AtomicReference<Exception> error = new AtomicReference<>();
    long t0 = System.nanoTime();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th = new Thread(() -> {
        byte[] key = new byte[rows.keySize()];
        byte[] scratch = new byte[rows.valueSize()];
        try {
          while (error.get() == null) {
            long start = nextChunk.getAndAdd(1024);
            if (start >= count) {
              return;
            }
            long end = Math.min(count, start + 1024);
            for (long j = start; j < end; j++) {
              long i = j * stride;
              rows.key(i, key);
              byte[] v = engine.get(key);
              int f = Engine.familyOf(key, families);
              fam.incrementAndGet(3 * f);
              if (v == null) {
                fam.incrementAndGet(3 * f + 1);
                nMissing.incrementAndGet();
                problem("missing row " + i);
              } else if (!rows.matches(key, v, scratch)) {
                fam.incrementAndGet(3 * f + 2);
                nWrong.incrementAndGet();
                problem("wrong value for row " + i + " (" + v.length + " bytes)");
              }
            }
            nChecked.addAndGet(end - start);
          }
        } catch (Exception e) {
          error.compareAndSet(null, e);
        }
      }, "verify-" + t);
      ts.add(th);
      th.start();
    }
    long lastPrint = System.nanoTime();
    for (Thread th : ts) {
      while (th.isAlive()) {
        th.join(1000);
        if (System.nanoTime() - lastPrint >= 1_000_000_000L) {
          lastPrint = System.nanoTime();
          out.printf("verify: %s/%s rows checked, %d missing, %d wrong%n",
              Fmt.count(nChecked.get()), Fmt.count(count), nMissing.get(), nWrong.get());
        }
      }
    }
    if (error.get() != null) {
      throw error.get();
    }
    seconds = (System.nanoTime() - t0) / 1e9;
    checked = nChecked.get();
    missing = nMissing.get();
    wrong = nWrong.get();
    perFamily = new long[families][];
    for (int f = 0; f < families; f++) {
      perFamily[f] = new long[] {fam.get(3 * f), fam.get(3 * f + 1), fam.get(3 * f + 2)};
      if (families > 1) {
        out.printf("verify: family %s: %s rows checked, %d missing, %d wrong%n",
            Engine.familyName(f), Fmt.count(perFamily[f][0]), perFamily[f][1], perFamily[f][2]);
      }
    }
  }

  private synchronized void problem(String what) {
    if (problems.size() < REPORTED) {
      problems.add(what);
    }
  }
}
