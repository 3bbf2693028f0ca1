package io.github.bizlock.internal.jdbc.lease;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Pauses between attempts on a lock held elsewhere: exponential from {@code initial} to {@code max}, each pause drawn at
 * random from its upper half, so waiters of several processes do not retry in step.
 *
 * @param initial the first pause
 * @param max the longest pause
 */
public record Backoff(Duration initial, Duration max) {

    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(5), Duration.ofMillis(100));

    public Backoff {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException(
                    "The retry backoff needs 0 < initial <= max, was initial=" + initial + ", max=" + max);
        }
    }

    /** The pause before attempt {@code attempt + 1} (attempt counts from 1), with jitter, in nanoseconds. */
    public long pauseNanos(int attempt) {
        long ceiling = initial.toNanos() << Math.min(attempt - 1, 20);
        ceiling = Math.min(ceiling <= 0 ? Long.MAX_VALUE : ceiling, max.toNanos());
        return ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    }
}
