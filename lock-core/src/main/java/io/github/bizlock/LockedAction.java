package io.github.bizlock;

import org.jspecify.annotations.Nullable;

/**
 * Work to run while holding a lock.
 *
 * @param <T> the result type
 * @param <E> the checked exception it may throw ({@code RuntimeException} when none)
 */
@FunctionalInterface
public interface LockedAction<T extends @Nullable Object, E extends Throwable> {

    T run() throws E;
}
