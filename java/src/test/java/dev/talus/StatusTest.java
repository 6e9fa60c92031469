package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.talus.Status.Code;
import dev.talus.Status.SubCode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusTest {
  /** RocksJava's byte values; the Rust engine's Code/SubCode use the same. */
  private static final Map<Code, Integer> CODES =
      Map.ofEntries(
          Map.entry(Code.Ok, 0x0),
          Map.entry(Code.NotFound, 0x1),
          Map.entry(Code.Corruption, 0x2),
          Map.entry(Code.NotSupported, 0x3),
          Map.entry(Code.InvalidArgument, 0x4),
          Map.entry(Code.IOError, 0x5),
          Map.entry(Code.MergeInProgress, 0x6),
          Map.entry(Code.Incomplete, 0x7),
          Map.entry(Code.ShutdownInProgress, 0x8),
          Map.entry(Code.TimedOut, 0x9),
          Map.entry(Code.Aborted, 0xA),
          Map.entry(Code.Busy, 0xB),
          Map.entry(Code.Expired, 0xC),
          Map.entry(Code.TryAgain, 0xD),
          Map.entry(Code.Undefined, 0x7F));

  private static final Map<SubCode, Integer> SUB_CODES =
      Map.of(
          SubCode.None, 0x0,
          SubCode.MutexTimeout, 0x1,
          SubCode.LockTimeout, 0x2,
          SubCode.LockLimit, 0x3,
          SubCode.NoSpace, 0x4,
          SubCode.Deadlock, 0x5,
          SubCode.StaleFile, 0x6,
          SubCode.MemoryLimit, 0x7,
          SubCode.Undefined, 0x7F);

  @Test
  void codesHaveRocksjavaByteValuesAndRoundTrip() {
    assertEquals(CODES.size(), Code.values().length);
    CODES.forEach(
        (code, value) -> {
          assertEquals(value.byteValue(), code.getValue(), code.name());
          assertSame(code, Code.getCode(value.byteValue()));
        });
    assertEquals(SUB_CODES.size(), SubCode.values().length);
    SUB_CODES.forEach(
        (sub, value) -> {
          assertEquals(value.byteValue(), sub.getValue(), sub.name());
          assertSame(sub, SubCode.getSubCode(value.byteValue()));
        });
  }

  @Test
  void unknownBytesAreRejectedByLookupButUndefinedFromNative() {
    assertThrows(IllegalArgumentException.class, () -> Code.getCode((byte) 0xE));
    assertThrows(IllegalArgumentException.class, () -> SubCode.getSubCode((byte) 0x8));
    final Status s = new Status((byte) 0xE, (byte) 0x8, "x");
    assertSame(Code.Undefined, s.getCode());
    assertSame(SubCode.Undefined, s.getSubCode());
  }

  @Test
  void codeStringNamesTheSubCodeOnlyWhenThereIsOne() {
    assertEquals("IOError(NoSpace)", new Status(Code.IOError, SubCode.NoSpace, null).getCodeString());
    assertEquals("Busy", new Status(Code.Busy, SubCode.None, "LOCK").getCodeString());
    assertEquals("Corruption", new Status(Code.Corruption, null, "bad").getCodeString());
    assertEquals("Busy: LOCK", new Status(Code.Busy, SubCode.None, "LOCK").toString());
  }

  @Test
  void nativeConstructorFormatsCodeStringAndState() {
    final TalusException e =
        new TalusException((byte) 0x5, (byte) 0x4, "append /db/000001.log: disk full");
    assertEquals("IOError(NoSpace): append /db/000001.log: disk full", e.getMessage());
    assertEquals(Code.IOError, e.getStatus().getCode());
    assertEquals(SubCode.NoSpace, e.getStatus().getSubCode());
    assertEquals("append /db/000001.log: disk full", e.getStatus().getState());

    final TalusException busy = new TalusException((byte) 0xB, (byte) 0, "LOCK held");
    assertEquals("Busy: LOCK held", busy.getMessage());
  }

  @Test
  void publicConstructorsFollowRocksjava() {
    assertNull(new TalusException("plain").getStatus());
    assertEquals("plain", new TalusException("plain").getMessage());

    final Status withState = new Status(Code.NotFound, SubCode.None, "no such file");
    assertEquals("no such file", new TalusException(withState).getMessage());
    assertSame(withState, new TalusException(withState).getStatus());

    final Status noState = new Status(Code.TimedOut, SubCode.LockTimeout, null);
    assertEquals("TimedOut(LockTimeout)", new TalusException(noState).getMessage());
    assertSame(noState, new TalusException("msg", noState).getStatus());
  }

  @Test
  void statusesAreValues() {
    assertEquals(
        new Status(Code.Aborted, SubCode.None, "x"), new Status((byte) 0xA, (byte) 0, "x"));
    assertEquals(
        new Status(Code.Aborted, SubCode.None, "x").hashCode(),
        new Status((byte) 0xA, (byte) 0, "x").hashCode());
    assertThrows(NullPointerException.class, () -> new Status(null, SubCode.None, "x"));
  }
}
