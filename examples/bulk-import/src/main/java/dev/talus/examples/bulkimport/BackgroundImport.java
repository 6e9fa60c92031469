package dev.talus.examples.bulkimport;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM busy beside the benchmark: the bulk import ({@link BulkImport}) run again and
 * again in a child process, on its own directory, for as long as the benchmark's workloads run.
 * It loads the machine the way another service's import would: CPU (its writers and
 * compactions), memory (its heap, memtables and block cache), page cache and disk (its WAL,
 * flushes and compactions). {@link ReadBench} starts it with {@code --background-import ROWS}
 * and records what the machine did meanwhile ({@link MachineMeter}), to tell which of those a
 * read slows down under.
 *
 * <p>The child runs this JVM's java binary and class path (so the same engine versions); its
 * output goes to a log file. {@link #close()} stops it (SIGTERM, then SIGKILL after 10 s) and
 * deletes its directory. Only the process this object started is ever signalled.
 */
final class BackgroundImport implements AutoCloseable {
  private final List<String> command;
  private final Path dir;
  private final Path log;
  private final Thread loop;
  private final Thread shutdownHook;
  private volatile boolean stopping;
  private volatile Process process;
  private volatile int started;
  private volatile int completed;
  private volatile int failed;
  private volatile String lastFailure;

  /**
   * Starts the first import at once.
   *
   * @param rows rows of each import
   * @param engine the child's engine
   * @param dir the child's database directory (deleted before each import, and at the end)
   * @param jvmArgs the child JVM's flags, whitespace-separated
   * @param extraArgs more flags of the import, whitespace-separated (e.g. "--threads 4")
   * @param log where the child's output goes (appended)
   */
  BackgroundImport(long rows, Engine.Kind engine, Path dir, String jvmArgs, String extraArgs,
      Path log) throws IOException {
    this.dir = dir;
    this.log = log;
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command()
        .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator
            + "java"));
    cmd.addAll(words(jvmArgs));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(BulkImport.class.getName());
    cmd.addAll(List.of("--engine", engine.name(), "--rows", Long.toString(rows),
        "--db", dir.toString(), "--overwrite", "--verify", "none"));
    cmd.addAll(words(extraArgs));
    this.command = List.copyOf(cmd);
    Files.createDirectories(log.toAbsolutePath().getParent());
    Files.writeString(log, "background import: " + String.join(" ", command) + "\n",
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    loop = new Thread(this::runLoop, "background-import");
    loop.setDaemon(true);
    // A benchmark stopped by Ctrl-C or SIGTERM stops its child too (not one killed by SIGKILL).
    shutdownHook = new Thread(this::stopChild, "background-import-stop");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    loop.start();
  }

  private static List<String> words(String s) {
    return s == null || s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
  }

  /** @return the command line of each import, the class path shortened */
  String command() {
    List<String> shown = new ArrayList<>(command);
    int cp = shown.indexOf("-cp");
    if (cp >= 0 && cp + 1 < shown.size()) {
      shown.set(cp + 1, "(this JVM's class path)");
    }
    return String.join(" ", shown);
  }

  private void runLoop() {
    while (!stopping) {
      Process p;
      try {
        synchronized (this) {
          if (stopping) {
            return;
          }
          p = new ProcessBuilder(command).redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
          process = p;
          started++;
        }
        int status = p.waitFor();
        if (stopping) {
          return;
        }
        if (status == 0) {
          completed++;
        } else {
          failed++;
          lastFailure = "exit status " + status;
          // Do not spin on a child that fails at once (bad flags, no disk space).
          Thread.sleep(1000);
        }
      } catch (IOException e) {
        failed++;
        lastFailure = e.toString();
        return;
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** @return whether an import is running or about to start */
  boolean running() {
    return !stopping && loop.isAlive();
  }

  int started() {
    return started;
  }

  int completed() {
    return completed;
  }

  int failed() {
    return failed;
  }

  /** @return the last failure, or null */
  String lastFailure() {
    return lastFailure;
  }

  /** Stops the running import (SIGTERM, SIGKILL after 10 s) and starts no other. */
  private void stopChild() {
    Process p;
    synchronized (this) {
      stopping = true;
      p = process;
    }
    if (p != null && p.isAlive()) {
      p.destroy();
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Stops the running import, waits for it, and deletes its directory. */
  @Override
  public void close() {
    stopChild();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs anyway
    }
    try {
      loop.join(15_000);
      BulkImport.deleteTree(dir);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("deleting " + dir, e);
    }
  }
}
