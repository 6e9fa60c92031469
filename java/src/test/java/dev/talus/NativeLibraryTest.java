package dev.talus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Loading in the test JVM itself, which must find the library inside the packaged jar. */
class NativeLibraryTest {
  @Test
  void testsRunAgainstThePackagedJarWithoutTheProperty() {
    assertNull(
        System.getProperty(NativeLibrary.NATIVE_PATH_PROPERTY),
        "tests must prove extraction from the jar");
    assertNull(
        System.getProperty(NativeLibrary.LIBRARY_PATH_PROPERTY),
        "tests must prove extraction from the jar");
    final String location =
        NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation().toString();
    assertTrue(location.endsWith(".jar"), "dev.talus classes come from " + location);
  }

  @Test
  void loadsFromTheJarAndReportsTheCrateVersion() throws IOException {
    NativeLibrary.load();
    assertEquals(cargoWorkspaceVersion(), NativeLibrary.version());
    assertEquals(1, NativeLibrary.loadCount());

    final Path loaded = Paths.get(NativeLibrary.loadedFrom());
    final Path tmp = Paths.get(System.getProperty("java.io.tmpdir")).toRealPath();
    assertTrue(loaded.toRealPath().startsWith(tmp), "extracted to a temp file: " + loaded);
    assertTrue(
        loaded.getFileName().toString().matches("libtalusjni-[0-9a-f]{32}\\.so"), loaded.toString());
    assertTrue(
        loaded.getParent().getFileName().toString().startsWith(NativeLibraryCache.DIR_PREFIX),
        loaded.toString());
    if (Files.getFileStore(loaded).supportsFileAttributeView("posix")) {
      final var perms = Files.getPosixFilePermissions(loaded);
      perms.removeAll(
          EnumSet.of(
              PosixFilePermission.OWNER_READ,
              PosixFilePermission.OWNER_WRITE,
              PosixFilePermission.OWNER_EXECUTE));
      assertTrue(perms.isEmpty(), "group/other permissions on the extracted file: " + perms);
    }
  }

  @Test
  void sixteenThreadsRacingLoadLoadOnce() throws Exception {
    LoaderChild.race(16);
    assertNotNull(NativeLibrary.version());
    // Also run from a fresh JVM, where the race decides the first load:
    // NativeLibraryForkedTest.sixteenThreadsRacingTheFirstLoadLoadOnce.
    assertEquals(1, NativeLibrary.loadCount());
  }

  @Test
  void platformNamesFollowOsNameAndArch() {
    final String[][] cases = {
      {"Linux", "amd64", "linux-x86_64"},
      {"Linux", "x86_64", "linux-x86_64"},
      {"Linux", "aarch64", "linux-aarch64"},
      {"Mac OS X", "x86_64", "osx-x86_64"},
      {"Mac OS X", "aarch64", "osx-aarch64"},
      {"Darwin", "arm64", "osx-aarch64"},
      {"Windows 11", "amd64", "windows-x86_64"},
      {"Windows Server 2022", "x86_64", "windows-x86_64"},
      {"FreeBSD", "amd64", "freebsd-x86_64"},
      {"SunOS", "sparcv9", "sunos-sparcv9"},
      {"Linux", "riscv64", "linux-riscv64"},
    };
    for (final String[] c : cases) {
      assertEquals(c[2], NativeLibrary.platform(c[0], c[1]), c[0] + " / " + c[1]);
    }
    for (final String p : NativeLibrary.SUPPORTED_PLATFORMS) {
      assertTrue(p.matches("(linux|osx|windows)-(x86_64|aarch64)"), p);
    }
  }

  @Test
  void theJarHoldsTheLibraryWhereTheLoaderLooks() {
    final String resource = NativeLibrary.resourcePath(NativeLibrary.platform());
    assertTrue(resource.startsWith("/dev/talus/native/" + NativeLibrary.platform() + "/"));
    final var url = NativeLibrary.class.getResource(resource);
    assertNotNull(url, resource);
    assertEquals("jar", url.getProtocol(), url.toString());
  }

  /** {@code version} under {@code [workspace.package]} in the root Cargo.toml. */
  static String cargoWorkspaceVersion() throws IOException {
    final String toml = Files.readString(Paths.get(System.getProperty("talus.test.cargoToml")));
    final Matcher m =
        Pattern.compile("(?ms)^\\[workspace\\.package\\]\\s*$.*?^version\\s*=\\s*\"([^\"]+)\"")
            .matcher(toml);
    assertTrue(m.find(), "no [workspace.package] version in Cargo.toml");
    return m.group(1);
  }
}
