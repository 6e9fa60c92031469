/**
 * Sends Talus's info log to SLF4J: {@code options.setLogger(new Slf4jLogger())}. See {@link
 * dev.talus.slf4j.Slf4jLogger}.
 */
package dev.talus.slf4j;
