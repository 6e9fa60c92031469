package dev.talus.slf4j;

import dev.talus.InfoLogLevel;
import dev.talus.Logger;
import java.util.Objects;

/**
 * Sends a Talus database's info log to SLF4J: pass it to {@code Options.setLogger} and the
 * engine's lines (options at open, flushes, compactions, write stalls, periodic stats) go to the
 * SLF4J logger instead of the database's {@code LOG} file.
 *
 * <p>Levels map one to one: {@code DEBUG_LEVEL} to debug, {@code INFO_LEVEL} and {@code
 * HEADER_LEVEL} to info, {@code WARN_LEVEL} to warn, {@code ERROR_LEVEL} and {@code FATAL_LEVEL}
 * to error (SLF4J has no fatal). The threshold given to the constructor is applied by the engine
 * before a line crosses into Java; the SLF4J logger's own level applies after. The SLF4J logger
 * is {@code dev.talus.db} unless another name or logger is given.
 *
 * <p>Thread-safe (SLF4J loggers are); closing it early is safe, see {@link Logger}.
 */
public class Slf4jLogger extends Logger {
  /** The SLF4J logger name used by {@link #Slf4jLogger()}. */
  public static final String DEFAULT_NAME = "dev.talus.db";

  private final org.slf4j.Logger target;

  /** Logs at INFO and above to the SLF4J logger {@value #DEFAULT_NAME}. */
  public Slf4jLogger() {
    this(org.slf4j.LoggerFactory.getLogger(DEFAULT_NAME), InfoLogLevel.INFO_LEVEL);
  }

  /**
   * Logs at INFO and above to the SLF4J logger of that name.
   *
   * @param name the SLF4J logger name, e.g. one per database
   */
  public Slf4jLogger(String name) {
    this(org.slf4j.LoggerFactory.getLogger(Objects.requireNonNull(name, "name")),
        InfoLogLevel.INFO_LEVEL);
  }

  /**
   * Logs lines at {@code level} and above to {@code target}.
   *
   * @param target the SLF4J logger
   * @param level the lowest engine level forwarded (the engine drops lower ones)
   */
  public Slf4jLogger(org.slf4j.Logger target, InfoLogLevel level) {
    super(level);
    this.target = Objects.requireNonNull(target, "target");
  }

  /** @return the SLF4J logger lines go to */
  public org.slf4j.Logger target() {
    return target;
  }

  @Override
  protected void log(InfoLogLevel level, String message) {
    switch (level) {
      case DEBUG_LEVEL -> target.debug(message);
      case WARN_LEVEL -> target.warn(message);
      case ERROR_LEVEL, FATAL_LEVEL -> target.error(message);
      default -> target.info(message);
    }
  }
}
