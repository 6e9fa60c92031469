package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.talus.NativeLibrary;
import dev.talus.Options;
import dev.talus.TalusDB;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The published dev.talus:talus artifacts, seen from a service's build: the jar works, its
 * manifest describes it, JPMS names it, and its sources and Javadoc are there for the IDE.
 */
class ConsumerTest {
  @TempDir Path dir;

  /** The jar dev.talus.TalusDB was loaded from: the one Maven resolved. */
  private static Path talusJar() throws URISyntaxException {
    return Paths.get(TalusDB.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  @Test
  void aDatabaseOpensWritesAndReadsThroughTheResolvedJar() throws Exception {
    final byte[] key = "k".getBytes(StandardCharsets.UTF_8);
    final byte[] value = "v".getBytes(StandardCharsets.UTF_8);
    try (Options options = new Options().setCreateIfMissing(true);
        TalusDB db = TalusDB.open(options, dir.resolve("db").toString())) {
      db.put(key, value);
      assertArrayEquals(value, db.get(key));
      db.delete(key);
      assertNull(db.get(key));
    }
  }

  @Test
  void theResolvedJarIsTheVersionThisBuildAskedFor() throws Exception {
    final Path jar = talusJar();
    assertTrue(jar.getFileName().toString().endsWith(".jar"), jar.toString());
    assertEquals(
        System.getProperty("talus.version"),
        TalusDB.class.getPackage().getImplementationVersion(),
        "Implementation-Version of " + jar);
  }

  @Test
  void theManifestNamesTheModuleTheNativePlatformsAndTheCrateVersion() throws Exception {
    final Path jar = talusJar();
    try (JarFile file = new JarFile(jar.toFile())) {
      final Attributes main = file.getManifest().getMainAttributes();
      assertEquals("dev.talus", main.getValue("Automatic-Module-Name"));
      // The crate version the manifest states is that of the library inside the jar.
      assertEquals(NativeLibrary.version(), main.getValue("Talus-Native-Version"));
      final String platforms = main.getValue("Talus-Native-Platforms");
      assertNotNull(platforms, "Talus-Native-Platforms");
      final List<String> listed = new ArrayList<>();
      for (final String p : platforms.split(",")) {
        listed.add(p.trim());
      }
      assertFalse(listed.isEmpty());
      final Set<String> packed =
          Collections.list(file.entries()).stream()
              .map(e -> e.getName())
              .filter(n -> n.startsWith("dev/talus/native/") && !n.endsWith("/"))
              .map(n -> n.substring("dev/talus/native/".length(), n.lastIndexOf('/')))
              .collect(Collectors.toSet());
      assertEquals(Set.copyOf(listed), packed, "platform folders under dev/talus/native/");
    }
  }

  @Test
  void jpmsNamesTheJarDevTalus() throws Exception {
    final Set<ModuleDescriptor> found =
        ModuleFinder.of(talusJar()).findAll().stream()
            .map(r -> r.descriptor())
            .collect(Collectors.toSet());
    assertEquals(1, found.size(), found.toString());
    final ModuleDescriptor module = found.iterator().next();
    assertEquals("dev.talus", module.name());
    assertTrue(module.packages().contains("dev.talus"), module.packages().toString());
  }

  @Test
  void theSourcesAndJavadocJarsArePublished() throws IOException {
    final URL source = getClass().getClassLoader().getResource("dev/talus/TalusDB.java");
    assertNotNull(source, "dev/talus/TalusDB.java from the sources jar");
    assertTrue(source.toString().contains("-sources.jar!"), source.toString());
    // Javadoc lays the pages out under the module name, as the jar names one.
    final URL page = getClass().getClassLoader().getResource("dev.talus/dev/talus/TalusDB.html");
    assertNotNull(page, "dev.talus/dev/talus/TalusDB.html from the Javadoc jar");
    assertTrue(page.toString().contains("-javadoc.jar!"), page.toString());
    final URL index = getClass().getClassLoader().getResource("index.html");
    assertNotNull(index, "index.html of the Javadoc");
  }
}
