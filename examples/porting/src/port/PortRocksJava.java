import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The port of a RocksJava program to Talus, as docs/porting.md states it: four renames of whole
 * words and nothing else. Run by the build (exec-maven-plugin, the JDK's single-file launcher):
 *
 * <pre>java PortRocksJava.java SOURCES OUT ARGFILE</pre>
 *
 * <p>Every {@code .java} file under SOURCES is written under OUT with the renames applied; ARGFILE
 * gets the paths of the original files that are not tests ({@code *Test.java}), for javac to
 * compile the RocksJava form against RocksJava itself.
 */
public final class PortRocksJava {
  private PortRocksJava() {}

  /** The rename rule, in the order of docs/porting.md. Whole words only. */
  static final String[][] RULE = {
    {"org.rocksdb", "dev.talus"},
    {"RocksDB", "TalusDB"},
    {"RocksDBException", "TalusException"},
    {"RocksIterator", "TalusIterator"},
  };

  static String port(String text) {
    for (String[] r : RULE) {
      Pattern p = Pattern.compile("(?<!\\w)" + Pattern.quote(r[0]) + "(?!\\w)");
      text = p.matcher(text).replaceAll(r[1].replace("$", "\\$"));
    }
    return text;
  }

  /**
   * Ports the sources.
   *
   * @param args SOURCES OUT ARGFILE
   * @throws IOException on a file error
   */
  public static void main(String[] args) throws IOException {
    Path in = Path.of(args[0]);
    Path out = Path.of(args[1]);
    Path argfile = Path.of(args[2]);
    List<String> programs = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.walk(in)) {
      files = s.filter(f -> f.toString().endsWith(".java")).sorted().toList();
    }
    for (Path f : files) {
      Path to = out.resolve(in.relativize(f).toString());
      Files.createDirectories(to.getParent());
      Files.writeString(to, port(Files.readString(f, StandardCharsets.UTF_8)),
          StandardCharsets.UTF_8);
      if (!f.getFileName().toString().endsWith("Test.java")) {
        programs.add("\"" + f.toAbsolutePath().toString().replace("\\", "\\\\") + "\"");
      }
    }
    Files.createDirectories(argfile.toAbsolutePath().getParent());
    Files.write(argfile, programs, StandardCharsets.UTF_8);
    System.out.println("port: " + files.size() + " files renamed into " + out);
  }
}
