package io.github.bizlock;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * Thrown by {@link LockHandle#unlock()} when the release could not be confirmed: the database did not answer in time,
 * or the release failed. Unlike {@link LockLostException}, the lock was held until this unlock, so the work done under
 * it is not in doubt. This thread no longer holds the lock; the release is retried in the background, and the lock
 * frees as soon as it succeeds, at the latest when its lease ends (LEASE) or the server drops its session (ROW, NAMED).
 */
public class LockReleaseException extends DataAccessResourceFailureException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final String lockKey;

    public LockReleaseException(String lockName, String lockKey, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.lockKey = lockKey;
    }

    public String lockName() {
        return lockName;
    }

    public String lockKey() {
        return lockKey;
    }
}
