package io.github.bizlock.annotation;

/** What a {@link DistributedLock} method does when its lock is held elsewhere for the whole wait time. */
public enum OnFailure {

    /** Throw a {@link io.github.bizlock.LockAcquisitionException} (a Spring {@code CannotAcquireLockException}). */
    THROW,

    /**
     * Do not run the method: return {@code null}, or an empty {@link java.util.Optional} for methods returning one.
     * Not allowed on methods that return a primitive.
     */
    SKIP,

    /** Call the method named by {@link DistributedLock#fallback()} on the same bean, with the same arguments. */
    FALLBACK
}
