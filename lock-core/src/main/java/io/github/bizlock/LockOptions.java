package io.github.bizlock;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How to take one lock: mode, how long to wait, how long the lease lasts. Anything not set falls back to the
 * template's defaults ({@code bizlock.*} properties in Spring Boot).
 *
 * <pre>{@code
 * LockOptions.defaults().waitTime(Duration.ofSeconds(3)).leaseTime(Duration.ofMinutes(1))
 * }</pre>
 */
public final class LockOptions {

    /**
     * The longest fixed lease: 365 days. A fixed lease is how long a crashed holder keeps everyone else out, so a longer
     * one would be the same as never; work that runs that long leaves the lease unset and has it renewed while its
     * holder lives. The bound also keeps every lease far inside what the lock needs to count: nanoseconds of
     * {@link System#nanoTime()} (about 292 years), microseconds in SQL, and lease ends in a {@code DATETIME(6)} column
     * (up to the year 9999).
     */
    public static final Duration MAX_LEASE_TIME = Duration.ofDays(365);

    private static final LockOptions DEFAULTS = new LockOptions(null, null, null, null, LockAccess.WRITE);

    private final @Nullable LockMode mode;
    private final @Nullable Duration waitTime;
    private final @Nullable Duration leaseTime;
    private final @Nullable LockLostPolicy onLost;
    private final LockAccess access;

    private LockOptions(
            @Nullable LockMode mode,
            @Nullable Duration waitTime,
            @Nullable Duration leaseTime,
            @Nullable LockLostPolicy onLost,
            LockAccess access) {
        this.mode = mode;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.onLost = onLost;
        this.access = access;
    }

    /** No option set: every value comes from the template's defaults. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /** The same options with another lock mode. */
    public LockOptions mode(LockMode mode) {
        return new LockOptions(Objects.requireNonNull(mode, "mode"), waitTime, leaseTime, onLost, access);
    }

    /**
     * The same options with another wait time: how long to wait for a lock that is held elsewhere. Zero means one
     * attempt without waiting.
     *
     * @throws IllegalArgumentException if the duration is negative
     */
    public LockOptions waitTime(Duration waitTime) {
        return new LockOptions(mode, requireNotNegative(waitTime, "waitTime"), leaseTime, onLost, access);
    }

    /**
     * The same options with a fixed lease: the lock frees itself this long after it was acquired, and no watchdog
     * renews it. Without a lease time the lock is renewed while its holder lives.
     *
     * @throws IllegalArgumentException if the duration is zero, negative or longer than {@link #MAX_LEASE_TIME}
     */
    public LockOptions leaseTime(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isZero() || leaseTime.isNegative()) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime
                    + "; leave it unset to have the watchdog renew the lease while the holder runs");
        }
        if (leaseTime.compareTo(MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("leaseTime must be at most 365 days (" + MAX_LEASE_TIME + "), was "
                    + leaseTime + ": a crashed holder would keep the lock from everyone that long; leave it unset to"
                    + " have the watchdog renew the lease while the holder runs, however long that is");
        }
        return new LockOptions(mode, waitTime, leaseTime, onLost, access);
    }

    /** The same options with another policy for the work running under the lock when the lock is lost. */
    public LockOptions onLost(LockLostPolicy onLost) {
        return new LockOptions(mode, waitTime, leaseTime, Objects.requireNonNull(onLost, "onLost"), access);
    }

    /**
     * The same options with another access: {@link LockAccess#READ} takes the key's read lock, shared with other
     * readers; {@link LockAccess#WRITE} (the default) its exclusive write lock. Read locks exist in LEASE and ROW mode.
     */
    public LockOptions access(LockAccess access) {
        return new LockOptions(mode, waitTime, leaseTime, onLost, Objects.requireNonNull(access, "access"));
    }

    public LockAccess access() {
        return access;
    }

    public @Nullable LockMode mode() {
        return mode;
    }

    public @Nullable Duration waitTime() {
        return waitTime;
    }

    public @Nullable Duration leaseTime() {
        return leaseTime;
    }

    public @Nullable LockLostPolicy onLost() {
        return onLost;
    }

    static Duration requireNotNegative(Duration duration, String name) {
        Objects.requireNonNull(duration, name);
        if (duration.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, was " + duration
                    + "; use Duration.ZERO for a single attempt without waiting");
        }
        return duration;
    }

    @Override
    public String toString() {
        return "LockOptions[mode=" + mode + ", waitTime=" + waitTime + ", leaseTime=" + leaseTime + ", onLost=" + onLost
                + ", access=" + access + "]";
    }
}
