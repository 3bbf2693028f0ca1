package io.github.bizlock.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

/** A lock a {@link Node} holds. */
interface Held {

    /** The fencing token, or -1 when the implementation has none. */
    long token();

    void unlock() throws Exception;

    /** A hold with this token, released by {@code release}. */
    static Held of(long token, Release release) {
        return of(() -> token, release);
    }

    /** A hold whose token is asked of {@code token} on every {@link #token()} call, and only then. */
    static Held of(LongSupplier token, Release release) {
        return new Held() {
            @Override
            public long token() {
                return token.getAsLong();
            }

            @Override
            public void unlock() throws Exception {
                release.run();
            }
        };
    }

    /** A {@link Lock} taken within {@link Node#WAIT}, which has no fencing token. */
    static Held tryLock(Lock lock, String implementation) throws InterruptedException {
        if (!lock.tryLock(Node.WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(implementation + ": not acquired in " + Node.WAIT);
        }
        return of(-1, lock::unlock);
    }

    @FunctionalInterface
    interface Release {
        void run() throws Exception;
    }
}
