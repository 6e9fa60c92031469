package com.example.porting;

import java.nio.charset.StandardCharsets;

/** The programs' own checks: a wrong answer ends the program with an exception. */
final class Check {
  private Check() {}

  static void that(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("check failed: " + what);
    }
  }

  static void equal(String want, byte[] got, String what) {
    String g = got == null ? null : new String(got, StandardCharsets.UTF_8);
    that(want == null ? g == null : want.equals(g), what + ": want " + want + ", got " + g);
  }
}
