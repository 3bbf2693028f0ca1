package io.github.bizlock;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.CannotAcquireLockException;

/** The lock could not be acquired within the wait time, or waiting was interrupted. */
public class LockAcquisitionException extends CannotAcquireLockException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final String lockKey;

    public LockAcquisitionException(String lockName, String lockKey, String message, @Nullable Throwable cause) {
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
