package dev.talus;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;

/**
 * Main class of the child JVMs started by {@link NativeLibraryForkedTest}: each child starts
 * with the library not loaded. Prints {@code key=value} lines for the parent to check.
 */
public final class LoaderChild {
  private LoaderChild() {}

  /**
   * Modes: {@code load} loads once; {@code dirs=<d1>,<d2>,...} loads with {@code
   * TalusDB.loadLibrary(List)} from those directories; {@code race} has 16 threads race the
   * first load; {@code
   * halt} loads once and ends with {@link Runtime#halt(int)}, which runs no shutdown hook and
   * so no {@code deleteOnExit}, like a killed or crashed JVM.
   *
   * @param args the mode
   * @throws Exception on an unexpected failure (exit code 1)
   */
  public static void main(final String[] args) throws Exception {
    try {
      if ("race".equals(args[0])) {
        race(16);
      } else if (args[0].startsWith("dirs=")) {
        TalusDB.loadLibrary(List.of(args[0].substring("dirs=".length()).split(",")));
      } else {
        NativeLibrary.load();
      }
      System.out.println("version=" + NativeLibrary.version());
      System.out.println("loadCount=" + NativeLibrary.loadCount());
      System.out.println("loadedFrom=" + NativeLibrary.loadedFrom());
      if ("halt".equals(args[0])) {
        System.out.flush();
        Runtime.getRuntime().halt(0);
      }
    } catch (UnsatisfiedLinkError e) {
      System.out.println("error=" + e.getMessage());
      System.exit(3);
    }
  }

  /** Starts {@code threads} threads that call {@link NativeLibrary#load()} at the same moment. */
  static void race(final int threads) throws Exception {
    final CyclicBarrier start = new CyclicBarrier(threads);
    final List<Thread> racers = new ArrayList<>();
    final Throwable[] failure = new Throwable[1];
    for (int t = 0; t < threads; t++) {
      final Thread racer =
          new Thread(
              () -> {
                try {
                  start.await();
                  NativeLibrary.load();
                } catch (Throwable e) {
                  synchronized (failure) {
                    failure[0] = e;
                  }
                }
              });
      racer.start();
      racers.add(racer);
    }
    for (final Thread racer : racers) {
      racer.join();
    }
    synchronized (failure) {
      if (failure[0] != null) {
        throw new AssertionError("a racer failed", failure[0]);
      }
    }
  }
}
