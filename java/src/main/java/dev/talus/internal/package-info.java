/**
 * Internals of the Talus Java binding, not part of its API: may change in any release.
 *
 * <p>{@link dev.talus.internal.NativeHandle} is the base class of every object owning native
 * memory.
 */
package dev.talus.internal;
