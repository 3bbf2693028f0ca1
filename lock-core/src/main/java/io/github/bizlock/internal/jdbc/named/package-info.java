/** NAMED mode: {@code GET_LOCK} / {@code RELEASE_LOCK} on a session held for the lock's lifetime. */
@NullMarked
package io.github.bizlock.internal.jdbc.named;

import org.jspecify.annotations.NullMarked;
