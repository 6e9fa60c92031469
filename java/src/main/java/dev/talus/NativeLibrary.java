package dev.talus;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;

/**
 * Loads the native library {@code talusjni}, which holds the Talus engine, into this JVM.
 *
 * <p>Every Talus class that creates native objects calls {@link #load()} first, so applications
 * rarely need to. The library is found in this order:
 *
 * <ol>
 *   <li>the system property {@value #NATIVE_PATH_PROPERTY} (or its older name {@value
 *       #LIBRARY_PATH_PROPERTY}), if set: the path of an installed library file, or of a
 *       directory holding it under its platform file name ({@code libtalusjni.so} on Linux). It is
 *       loaded where it is, nothing is copied, and nothing else is tried;
 *   <li>otherwise the jar resource {@code /dev/talus/native/<platform>/libtalusjni.so}, extracted
 *       once per user and library content to {@code
 *       <java.io.tmpdir>/talus-native-<user.name>/libtalusjni-<hash>.so} and loaded from there
 *       with {@link System#load(String)}. {@code <hash>} is the start of the SHA-256 of the
 *       library, so every JVM running the same library reuses one file, whatever way the JVMs
 *       end (a JVM killed or crashed leaves nothing new behind). The directory and the file are
 *       readable only by their owner; a file is loaded only after its SHA-256 was checked
 *       against the jar's, and a damaged or foreign one is replaced. Copies of other library
 *       versions unused for an hour are removed. If that directory belongs to another user, the
 *       library goes to a new private directory that is deleted when the JVM exits.
 * </ol>
 *
 * <p>{@code <platform>} is one of {@code linux-x86_64}, {@code linux-aarch64}, {@code
 * osx-x86_64}, {@code osx-aarch64}, {@code windows-x86_64}, derived from the {@code os.name} and
 * {@code os.arch} system properties. The build packages the library of the platform it runs on.
 *
 * <p>Thread safety: all methods may be called from any thread; the library is loaded exactly
 * once even when many threads call {@link #load()} at the same time, and any thread may make the
 * first call, including one that ends right after it.
 */
public final class NativeLibrary {
  /**
   * System property naming an installed native library file, or a directory containing it under
   * its platform file name, to load directly instead of extracting the copy inside the jar.
   * Unset by default. Use it where {@code java.io.tmpdir} is read-only or mounted {@code noexec},
   * or to load a library installed by a package manager.
   */
  public static final String NATIVE_PATH_PROPERTY = "talus.native.path";

  /**
   * The older name of {@link #NATIVE_PATH_PROPERTY}, still honoured, with the same meaning.
   * Unset by default. If both are set they must name the same path.
   */
  public static final String LIBRARY_PATH_PROPERTY = "talus.library.path";

  /** Base name of the library, as for {@link System#loadLibrary(String)}. */
  static final String LIBRARY_NAME = "talusjni";

  /** Platforms whose library the build can package; other platforms fail with a clear error. */
  static final List<String> SUPPORTED_PLATFORMS =
      List.of("linux-x86_64", "linux-aarch64", "osx-x86_64", "osx-aarch64", "windows-x86_64");

  private static final Object LOCK = new Object();

  /** Set, under {@link #LOCK}, after a successful load; read without the lock on the fast path. */
  private static volatile boolean loaded;

  /** Number of {@link System#load(String)} calls that succeeded; guarded by {@link #LOCK}. */
  private static int loadCount;

  /** Absolute path of the file that was loaded; guarded by {@link #LOCK}. */
  private static String loadedFrom;

  private NativeLibrary() {}

  /**
   * Loads the native library unless it is loaded already. Cheap after the first success (one
   * volatile read). A failed attempt is not remembered: a later call tries again.
   *
   * @throws UnsatisfiedLinkError if the library cannot be found or loaded; the message names the
   *     platform, the resource looked for and the system property checked
   */
  public static void load() {
    if (loaded) {
      return;
    }
    synchronized (LOCK) {
      if (loaded) {
        return;
      }
      final Path path = locateAndLoad();
      loadCount++;
      loadedFrom = path.toString();
      loaded = true;
    }
  }

  /**
   * Loads the native library from the first directory of {@code dirs} holding it under {@link
   * #fileName()} ({@code TalusDB.loadLibrary(List)}, RocksJava's form), unless it is loaded
   * already (from anywhere).
   *
   * @param dirs directories, in order
   * @throws UnsatisfiedLinkError naming the directories when none holds a library that loads
   *     (caused by the last load failure, if any)
   */
  static void load(final List<String> dirs) {
    if (loaded) {
      return;
    }
    synchronized (LOCK) {
      if (loaded) {
        return;
      }
      final String platform = platform();
      final String resource = resourcePath(platform);
      UnsatisfiedLinkError last = null;
      for (final String dir : dirs) {
        if (dir == null) {
          continue;
        }
        final Path file = Paths.get(dir).toAbsolutePath().resolve(fileName());
        if (!Files.isRegularFile(file)) {
          continue;
        }
        try {
          systemLoad(file, platform, resource, "");
          loadCount++;
          loadedFrom = file.toString();
          loaded = true;
          return;
        } catch (UnsatisfiedLinkError e) {
          last = e;
        }
      }
      throw unsatisfied(platform, resource,
          "none of the directories " + dirs + " holds a library " + fileName() + " that loads",
          last);
    }
  }

  /**
   * The version of the loaded native library: the version of the {@code talus-jni} Rust crate
   * it was built from (e.g. {@code "0.1.0"}). Loads the library first if needed.
   *
   * @return the native library version
   * @throws UnsatisfiedLinkError if the library cannot be loaded
   */
  public static String version() {
    load();
    return nativeVersion();
  }

  private static native String nativeVersion();

  /** How many times a library file was loaded into this JVM: 0 or 1. For tests. */
  static int loadCount() {
    synchronized (LOCK) {
      return loadCount;
    }
  }

  /** The absolute path of the loaded library file (the extracted copy when from the jar). */
  static String loadedFrom() {
    synchronized (LOCK) {
      return loadedFrom;
    }
  }

  /** The platform folder name of the running JVM, e.g. {@code linux-x86_64}. */
  static String platform() {
    return platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
  }

  /**
   * Maps {@code os.name} and {@code os.arch} values to a platform folder name. Known values map
   * to the names in {@link #SUPPORTED_PLATFORMS}; unknown ones pass through lower-cased (e.g.
   * {@code freebsd-amd64}), so an error message can still name them.
   */
  static String platform(final String osName, final String osArch) {
    final String os = osName.toLowerCase(Locale.ROOT);
    final String arch = osArch.toLowerCase(Locale.ROOT);
    final String osPart;
    if (os.startsWith("linux")) {
      osPart = "linux";
    } else if (os.startsWith("mac") || os.startsWith("darwin")) {
      osPart = "osx";
    } else if (os.startsWith("windows")) {
      osPart = "windows";
    } else {
      osPart = os.replaceAll("[^a-z0-9]", "");
    }
    final String archPart;
    switch (arch) {
      case "amd64":
      case "x86_64":
      case "x86-64":
      case "x64":
        archPart = "x86_64";
        break;
      case "aarch64":
      case "arm64":
        archPart = "aarch64";
        break;
      default:
        archPart = arch.replaceAll("[^a-z0-9_]", "");
    }
    return osPart + "-" + archPart;
  }

  /** The library's file name on this OS: {@code libtalusjni.so}, {@code .dylib}, {@code .dll}. */
  static String fileName() {
    return System.mapLibraryName(LIBRARY_NAME);
  }

  /** The jar resource holding the library for {@code platform}. */
  static String resourcePath(final String platform) {
    return "/dev/talus/native/" + platform + "/" + fileName();
  }

  private static Path locateAndLoad() {
    final String platform = platform();
    final String resource = resourcePath(platform);
    final String nativePath = property(NATIVE_PATH_PROPERTY);
    final String libraryPath = property(LIBRARY_PATH_PROPERTY);
    if (nativePath != null && libraryPath != null && !nativePath.equals(libraryPath)) {
      throw unsatisfied(
          platform,
          resource,
          "system properties "
              + NATIVE_PATH_PROPERTY
              + "="
              + nativePath
              + " and "
              + LIBRARY_PATH_PROPERTY
              + "="
              + libraryPath
              + " name different libraries; set only "
              + NATIVE_PATH_PROPERTY,
          null);
    }
    if (nativePath != null) {
      return loadFromProperty(NATIVE_PATH_PROPERTY, nativePath, platform, resource);
    }
    if (libraryPath != null) {
      return loadFromProperty(LIBRARY_PATH_PROPERTY, libraryPath, platform, resource);
    }
    return loadFromJar(platform, resource);
  }

  /** The trimmed value of a system property, or {@code null} if it is unset or blank. */
  private static String property(final String name) {
    final String value = System.getProperty(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static Path loadFromProperty(
      final String name, final String property, final String platform, final String resource) {
    final Path given = Paths.get(property).toAbsolutePath();
    final Path file = Files.isDirectory(given) ? given.resolve(fileName()) : given;
    if (!Files.isRegularFile(file)) {
      throw unsatisfied(
          platform,
          resource,
          "system property "
              + name
              + "="
              + property
              + " names no library file (looked for "
              + file
              + "); the jar resource is used only when the property is unset",
          null);
    }
    systemLoad(file, platform, resource, "");
    return file;
  }

  private static Path loadFromJar(final String platform, final String resource) {
    if (NativeLibrary.class.getResource(resource) == null) {
      final String why =
          SUPPORTED_PLATFORMS.contains(platform)
              ? "this jar has no library for the platform (it was built on another one)"
              : "unsupported platform (os.name="
                  + System.getProperty("os.name")
                  + ", os.arch="
                  + System.getProperty("os.arch")
                  + "; supported: "
                  + String.join(", ", SUPPORTED_PLATFORMS)
                  + ")";
      throw unsatisfied(
          platform,
          resource,
          why + "; system property " + NATIVE_PATH_PROPERTY + " is not set",
          null);
    }
    final Path tmpdir = Paths.get(System.getProperty("java.io.tmpdir", ".")).toAbsolutePath();
    // A second attempt only if the checked copy vanished before System.load opened it: another
    // JVM's clean-up may remove a copy unused for an hour just as this one starts using it.
    for (int attempt = 1; ; attempt++) {
      final NativeLibraryCache.Copy copy = extract(platform, resource, tmpdir);
      try {
        systemLoad(
            copy.file,
            platform,
            resource,
            " (extracted from the jar; if "
                + tmpdir
                + " is mounted noexec, set "
                + NATIVE_PATH_PROPERTY
                + " to a copy of the library elsewhere)");
        return copy.file;
      } catch (UnsatisfiedLinkError e) {
        if (copy.temporary) {
          deleteQuietly(copy.file);
        }
        if (attempt == 2 || Files.exists(copy.file)) {
          throw e;
        }
      }
    }
  }

  private static NativeLibraryCache.Copy extract(
      final String platform, final String resource, final Path tmpdir) {
    try {
      return NativeLibraryCache.copyOf(
          tmpdir,
          fileName(),
          System.getProperty("user.name"),
          () -> {
            final InputStream in = NativeLibrary.class.getResourceAsStream(resource);
            if (in == null) {
              throw new IOException("jar resource " + resource + " disappeared");
            }
            return in;
          });
    } catch (IOException | RuntimeException e) {
      throw unsatisfied(
          platform,
          resource,
          "cannot extract the library to "
              + tmpdir.resolve(
                  NativeLibraryCache.DIR_PREFIX
                      + NativeLibraryCache.sanitize(System.getProperty("user.name")))
              + " (java.io.tmpdir is "
              + tmpdir
              + "): "
              + e
              + "; set java.io.tmpdir to a writable directory, or system property "
              + NATIVE_PATH_PROPERTY
              + " to an installed copy of the library",
          e);
    }
  }

  /** {@link System#load(String)}; on failure, an error that names {@code file}, plus {@code hint}. */
  private static void systemLoad(
      final Path file, final String platform, final String resource, final String hint) {
    try {
      System.load(file.toAbsolutePath().toString());
    } catch (UnsatisfiedLinkError e) {
      throw unsatisfied(
          platform, resource, "System.load(" + file + ") failed: " + e.getMessage() + hint, e);
    }
  }

  private static UnsatisfiedLinkError unsatisfied(
      final String platform, final String resource, final String why, final Throwable cause) {
    final UnsatisfiedLinkError e =
        new UnsatisfiedLinkError(
            "cannot load the Talus native library '"
                + LIBRARY_NAME
                + "' for platform "
                + platform
                + " (jar resource "
                + resource
                + ", system property "
                + NATIVE_PATH_PROPERTY
                + "): "
                + why);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }

  private static void deleteQuietly(final Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // The fallback copy is registered with deleteOnExit as well.
    }
  }
}
