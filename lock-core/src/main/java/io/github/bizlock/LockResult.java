package io.github.bizlock;

import java.util.NoSuchElementException;
import org.jspecify.annotations.Nullable;

/**
 * What {@link LockTemplate#tryExecute} did: whether the lock was acquired and the action ran, and what it returned.
 *
 * @param <T> the action's result type
 */
public final class LockResult<T extends @Nullable Object> {

    private static final LockResult<?> NOT_EXECUTED = new LockResult<>(false, null);

    private final boolean executed;
    private final @Nullable T value;

    private LockResult(boolean executed, @Nullable T value) {
        this.executed = executed;
        this.value = value;
    }

    public static <T extends @Nullable Object> LockResult<T> executed(@Nullable T value) {
        return new LockResult<>(true, value);
    }

    @SuppressWarnings("unchecked")
    public static <T extends @Nullable Object> LockResult<T> notExecuted() {
        return (LockResult<T>) NOT_EXECUTED;
    }

    /** Whether the lock was acquired and the action ran. */
    public boolean wasExecuted() {
        return executed;
    }

    /**
     * The action's result.
     *
     * @throws NoSuchElementException if the action did not run
     */
    public @Nullable T value() {
        if (!executed) {
            throw new NoSuchElementException("The lock was not acquired, so the action did not run and has no result");
        }
        return value;
    }

    @Override
    public String toString() {
        return executed ? "LockResult[executed, value=" + value + "]" : "LockResult[not executed]";
    }
}
