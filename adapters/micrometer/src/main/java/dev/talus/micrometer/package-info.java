/**
 * Publishes a Talus database's statistics and properties to Micrometer: {@code new
 * TalusMeterBinder(db, "orders").bindTo(registry)}. See {@link
 * dev.talus.micrometer.TalusMeterBinder}.
 */
package dev.talus.micrometer;
