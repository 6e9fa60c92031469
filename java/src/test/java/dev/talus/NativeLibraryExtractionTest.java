package dev.talus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the library goes when it is extracted from the jar: one reused, verified file per user
 * and library content ({@link NativeLibraryCache}), and {@link NativeLibrary#NATIVE_PATH_PROPERTY}
 * to load an installed one. Each case runs {@link LoaderChild} in new JVMs whose {@code
 * java.io.tmpdir} is a folder of this test.
 */
class NativeLibraryExtractionTest {
  private static final long TWO_HOURS_MS = TimeUnit.HOURS.toMillis(2);

  @TempDir Path tempDir;

  private Path tmp;

  @BeforeEach
  void makeTmpdir() throws IOException {
    tmp = Files.createDirectory(tempDir.resolve("tmp"));
  }

  /**
   * The loader copied the library to a new temporary file per JVM and relied on {@code
   * deleteOnExit}: a JVM killed, crashed or halted left its 14 MB copy behind, every time.
   */
  @Test
  void regression_everyAbnormalJvmEndLeftACopyOfTheLibraryBehind() throws Exception {
    String loadedFrom = null;
    for (int i = 0; i < 5; i++) {
      final Map<String, String> out = runChild(0, List.of(), "halt");
      if (loadedFrom == null) {
        loadedFrom = out.get("loadedFrom");
      }
      assertEquals(loadedFrom, out.get("loadedFrom"), "every JVM loads the same file");
    }
    final List<Path> files = filesUnder(tmp);
    assertEquals(1, files.size(), "files left in java.io.tmpdir: " + files);
    final Path file = files.get(0);
    assertEquals(Paths.get(loadedFrom).toRealPath(), file.toRealPath());
    assertEquals(cacheDir(), file.getParent());
    assertTrue(
        file.getFileName().toString().matches("libtalusjni-[0-9a-f]{32}\\.so"), file.toString());
    assertArrayEquals(resourceSha256(), sha256(file));
    if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
      assertEquals(
          "rwx------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
      assertEquals("r-x------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }
  }

  @Test
  void nativePathPropertyLoadsTheInstalledFileWithoutCopying() throws Exception {
    final Path installed = Files.createDirectory(tempDir.resolve("installed"));
    final Path library = copyLibraryOutOfTheJar(installed);
    Map<String, String> out =
        runChild(0, List.of("-D" + NativeLibrary.NATIVE_PATH_PROPERTY + "=" + library), "load");
    assertEquals(library, Paths.get(out.get("loadedFrom")).toRealPath());
    assertEquals(NativeLibraryTest.cargoWorkspaceVersion(), out.get("version"));
    // A directory holding the library under its platform name works too.
    out = runChild(0, List.of("-D" + NativeLibrary.NATIVE_PATH_PROPERTY + "=" + installed), "load");
    assertEquals(library, Paths.get(out.get("loadedFrom")).toRealPath());
    assertEquals(List.of(), filesUnder(tmp), "nothing is extracted");
  }

  @Test
  void nativePathAndTheOlderPropertyNamingDifferentFilesIsAnError() throws Exception {
    final Path library = copyLibraryOutOfTheJar(Files.createDirectory(tempDir.resolve("a")));
    final Path other = tempDir.resolve("b").resolve(NativeLibrary.fileName());
    final Map<String, String> out =
        runChild(
            3,
            List.of(
                "-D" + NativeLibrary.NATIVE_PATH_PROPERTY + "=" + library,
                "-D" + NativeLibrary.LIBRARY_PATH_PROPERTY + "=" + other),
            "load");
    final String error = out.get("error");
    assertTrue(error.contains(NativeLibrary.NATIVE_PATH_PROPERTY + "=" + library), error);
    assertTrue(error.contains(NativeLibrary.LIBRARY_PATH_PROPERTY + "=" + other), error);
  }

  /**
   * A cached copy whose content is not the jar's is replaced before anything is loaded: the
   * damage here (a zeroed ELF header, a truncation, a symbolic link to garbage) would make
   * {@code System.load} fail, so a child that loaded it would exit 3.
   */
  @Test
  void aCorruptedCachedCopyIsReplacedNotLoaded() throws Exception {
    final Path cached = Paths.get(runChild(0, List.of(), "halt").get("loadedFrom"));
    final long size = Files.size(cached);

    makeWritable(cached);
    try (FileChannel ch = FileChannel.open(cached, StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.allocate(4096), 0);
    }
    assertEquals(size, Files.size(cached));
    assertLoadsAndRepairs(cached);

    makeWritable(cached);
    try (FileChannel ch = FileChannel.open(cached, StandardOpenOption.WRITE)) {
      ch.truncate(size / 2);
    }
    assertLoadsAndRepairs(cached);

    final Path garbage = Files.write(tempDir.resolve("garbage.so"), new byte[4096]);
    Files.delete(cached);
    Files.createSymbolicLink(cached, garbage);
    assertLoadsAndRepairs(cached);
    assertFalse(Files.isSymbolicLink(cached));
    assertEquals(1, filesUnder(tmp).size(), filesUnder(tmp).toString());
  }

  @Test
  void jvmsRacingTheFirstExtractionShareOneFile() throws Exception {
    final ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      final List<Future<Map<String, String>>> children = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        children.add(pool.submit(() -> runChild(0, List.of(), "load")));
      }
      final String first = children.get(0).get().get("loadedFrom");
      for (final Future<Map<String, String>> child : children) {
        assertEquals(first, child.get().get("loadedFrom"));
      }
    } finally {
      pool.shutdown();
    }
    final List<Path> files = filesUnder(tmp);
    assertEquals(1, files.size(), "no temporary file is left: " + files);
    assertArrayEquals(resourceSha256(), sha256(files.get(0)));
  }

  /** A symbolic link could point anywhere, e.g. into a folder another user can write. */
  @Test
  void aCacheDirectoryThatIsASymbolicLinkIsNotUsed() throws Exception {
    final Path elsewhere = Files.createDirectory(tempDir.resolve("elsewhere"));
    Files.createSymbolicLink(cacheDir(), elsewhere);
    final Path loaded = Paths.get(runChild(0, List.of(), "load").get("loadedFrom"));
    assertFalse(loaded.startsWith(elsewhere), loaded.toString());
    assertTrue(loaded.startsWith(tmp), loaded.toString());
    assertEquals(List.of(), filesUnder(elsewhere));
    // The fallback copy is private to the JVM and deleted when it exits normally.
    try (Stream<Path> s = Files.list(tmp)) {
      assertEquals(List.of(cacheDir()), s.collect(Collectors.toList()));
    }
  }

  /** Needs the right to give a folder away (root); skipped otherwise. */
  @Test
  void aCacheDirectoryOfAnotherUserIsNotUsed() throws Exception {
    final Path dir = Files.createDirectory(cacheDir());
    final Path planted =
        dir.resolve(NativeLibraryCache.cachedName(NativeLibrary.fileName(), resourceSha256()));
    Files.copy(copyLibraryOutOfTheJar(Files.createDirectory(tempDir.resolve("c"))), planted);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    final UserPrincipal nobody;
    try {
      nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
      Files.setOwner(planted, nobody);
      Files.setOwner(dir, nobody);
    } catch (IOException | UnsupportedOperationException e) {
      Assumptions.abort("cannot give a folder to user nobody here: " + e);
      return;
    }
    final Path loaded = Paths.get(runChild(0, List.of(), "load").get("loadedFrom"));
    assertFalse(loaded.startsWith(dir), loaded.toString());
    assertEquals(nobody, Files.getOwner(planted), "left alone");
  }

  @Test
  void anUnwritableTmpdirFailsWithAMessageNamingThePath() throws Exception {
    final Path notADirectory = Files.write(tempDir.resolve("not-a-directory"), new byte[1]);
    final Map<String, String> out =
        ChildJvm.run(
            3,
            List.of("-Xcheck:jni", "-Djava.io.tmpdir=" + notADirectory),
            LoaderChild.class,
            "load");
    final String error = out.get("error");
    assertTrue(error.contains("cannot extract the library to " + notADirectory), error);
    assertTrue(error.contains(NativeLibrary.NATIVE_PATH_PROPERTY), error);
  }

  @Test
  void staleCopiesAreRemovedAndRecentOnesKept() throws Exception {
    final Path cached = Paths.get(runChild(0, List.of(), "halt").get("loadedFrom"));
    final Path dir = cached.getParent();
    final Path oldVersion = file(dir.resolve("libtalusjni-" + "0".repeat(32) + ".so"), true);
    final Path recentVersion = file(dir.resolve("libtalusjni-" + "1".repeat(32) + ".so"), false);
    final Path deadWriter = file(dir.resolve(cached.getFileName() + ".123.tmp"), true);
    final Path legacyCopy = file(tmp.resolve("libtalusjni-4242424242424242.so"), true);
    final Path recentLegacyCopy = file(tmp.resolve("libtalusjni-77.so"), false);
    final Path unrelated = file(tmp.resolve("libtalusjni-notes.txt"), true);
    Files.setLastModifiedTime(
        cached, FileTime.fromMillis(System.currentTimeMillis() - TWO_HOURS_MS));

    runChild(0, List.of(), "load");

    assertTrue(Files.exists(cached), "the copy in use stays (and its time is refreshed)");
    assertTrue(
        Files.getLastModifiedTime(cached).toMillis()
            > System.currentTimeMillis() - TWO_HOURS_MS / 2);
    assertFalse(Files.exists(oldVersion));
    assertFalse(Files.exists(deadWriter));
    assertFalse(Files.exists(legacyCopy));
    assertTrue(Files.exists(recentVersion));
    assertTrue(Files.exists(recentLegacyCopy));
    assertTrue(Files.exists(unrelated));
  }

  private void assertLoadsAndRepairs(final Path cached) throws Exception {
    final Map<String, String> out = runChild(0, List.of(), "load");
    assertEquals(cached.toString(), out.get("loadedFrom"));
    assertArrayEquals(resourceSha256(), sha256(cached));
  }

  private Path cacheDir() {
    return tmp.resolve(
        NativeLibraryCache.DIR_PREFIX
            + NativeLibraryCache.sanitize(System.getProperty("user.name")));
  }

  /** Runs {@link LoaderChild} with {@code java.io.tmpdir} set to {@link #tmp}. */
  private Map<String, String> runChild(
      final int expectedExit, final List<String> flags, final String mode) throws Exception {
    final List<String> all = new ArrayList<>(flags);
    all.add("-Xcheck:jni");
    all.add("-Djava.io.tmpdir=" + tmp);
    return ChildJvm.run(expectedExit, all, LoaderChild.class, mode);
  }

  private static Path file(final Path p, final boolean old) throws IOException {
    Files.write(p, new byte[] {1, 2, 3});
    if (old) {
      Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis() - TWO_HOURS_MS));
    }
    return p;
  }

  private static void makeWritable(final Path p) throws IOException {
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
  }

  private static List<Path> filesUnder(final Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
          .collect(Collectors.toList());
    }
  }

  /** Copies the library resource of this platform to {@code dir}, under its platform name. */
  static Path copyLibraryOutOfTheJar(final Path dir) throws IOException {
    final Path target = dir.resolve(NativeLibrary.fileName());
    try (InputStream in =
        NativeLibrary.class.getResourceAsStream(
            NativeLibrary.resourcePath(NativeLibrary.platform()))) {
      Files.copy(in, target);
    }
    return target.toRealPath();
  }

  static byte[] resourceSha256() throws Exception {
    try (InputStream in =
        NativeLibrary.class.getResourceAsStream(
            NativeLibrary.resourcePath(NativeLibrary.platform()))) {
      return MessageDigest.getInstance("SHA-256").digest(in.readAllBytes());
    }
  }

  private static byte[] sha256(final Path file) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
  }
}
