package io.github.bizlock.aop;

import io.github.bizlock.LockOptions;
import io.github.bizlock.annotation.OnFailure;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * What {@code @DistributedLock} says about one method of one bean class, resolved once.
 *
 * @param method the method whose parameters the key expressions name
 * @param description the method, for messages
 * @param name the lock name
 * @param keyExpressions the key's SpEL expressions
 * @param keysExpressions the SpEL expressions of several keys to lock together; empty when the method locks one key
 * @param options the lock options the annotation sets
 * @param onFailure what to do when the lock is not acquired
 * @param fallback the fallback method, when {@code onFailure} is {@code FALLBACK}
 * @param returnsOptional whether the method returns {@link java.util.Optional}
 * @param permits the permits of the semaphore the method holds one of; 0 when it holds a plain lock
 */
record LockedMethod(
        Method method,
        String description,
        String name,
        String[] keyExpressions,
        String[] keysExpressions,
        LockOptions options,
        OnFailure onFailure,
        @Nullable Method fallback,
        boolean returnsOptional,
        int permits) {

    /** Whether the method locks several keys ({@code keys}) rather than one. */
    boolean locksSeveralKeys() {
        return keysExpressions.length > 0;
    }
}
