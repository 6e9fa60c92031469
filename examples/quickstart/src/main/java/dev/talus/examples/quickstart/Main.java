package dev.talus.examples.quickstart;

import dev.talus.NativeLibrary;

/**
 * The smallest Talus program. For now it loads the native library and prints its version; it
 * will open a database, write and read a key once the database API lands.
 */
public final class Main {
  private Main() {}

  /**
   * Entry point.
   *
   * @param args ignored for now
   */
  public static void main(final String[] args) {
    NativeLibrary.load();
    System.out.println("Talus native library " + NativeLibrary.version() + " loaded");
  }
}
