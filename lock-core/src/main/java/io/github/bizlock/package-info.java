/**
 * What applications use: {@link io.github.bizlock.LockTemplate}, {@link io.github.bizlock.LockHandle},
 * {@link io.github.bizlock.LockMode} and the exceptions and events of a lock's life.
 */
@NullMarked
package io.github.bizlock;

import org.jspecify.annotations.NullMarked;
