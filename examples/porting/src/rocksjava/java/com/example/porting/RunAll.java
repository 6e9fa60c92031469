package com.example.porting;

import java.nio.file.Files;
import java.nio.file.Path;

/** Runs every program, each on a new database under a temporary directory. */
public final class RunAll {
  private RunAll() {}

  /**
   * Runs the programs; a failure ends with an exception.
   *
   * @param args none
   * @throws Exception on a failure
   */
  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("porting");
    HelloWorld.main(new String[] {dir.resolve("hello").toString()});
    SessionCache.main(new String[] {dir.resolve("sessions").toString()});
    StreamsStore.main(new String[] {dir.resolve("streams").toString()});
    BulkLoader.main(new String[] {dir.resolve("bulk").toString()});
  }
}
