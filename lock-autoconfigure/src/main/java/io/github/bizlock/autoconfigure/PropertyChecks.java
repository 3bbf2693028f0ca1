package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockOptions;
import io.github.bizlock.service.LockDefaults;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Checks of single {@code bizlock.*} values, failing with {@link BizLockPropertyException}. */
final class PropertyChecks {

    /** Seconds per unit, largest first, with the unit's suffix in a property value. */
    private static final List<Map.Entry<Long, String>> UNITS =
            List.of(Map.entry(86_400L, "d"), Map.entry(3_600L, "h"), Map.entry(60L, "m"));

    /** The longest lease and watchdog lease, as a property value. */
    static final String MAX_LEASE = text(LockOptions.MAX_LEASE_TIME);

    private PropertyChecks() {}

    static Duration notNegative(String property, Duration value, String fix) {
        if (value.isNegative()) {
            throw new BizLockPropertyException(property, text(value), "it must not be negative", fix);
        }
        return value;
    }

    static Duration positive(String property, Duration value, String fix) {
        if (value.isNegative() || value.isZero()) {
            throw new BizLockPropertyException(property, text(value), "it must be positive", fix);
        }
        return value;
    }

    static Duration atMostMaxLease(String property, Duration value, String fix) {
        if (value.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new BizLockPropertyException(
                    property,
                    text(value),
                    "it must be at most 365 days: a lease is how long a crashed holder keeps everyone else out",
                    fix);
        }
        return value;
    }

    static int atLeast(String property, int value, int minimum, String problem, String fix) {
        if (value < minimum) {
            throw new BizLockPropertyException(property, Integer.toString(value), problem, fix);
        }
        return value;
    }

    /** {@code bizlock.lease-time}: positive and at most the longest lease. */
    static Duration leaseTime(Duration leaseTime) {
        String fix = "Set bizlock.lease-time to a duration from 1ms to " + MAX_LEASE
                + ", or remove it to have a watchdog renew leases while their holders run";
        positive("bizlock.lease-time", leaseTime, fix);
        return atMostMaxLease("bizlock.lease-time", leaseTime, fix);
    }

    /** {@code bizlock.watchdog-lease}: long enough to be renewed every third of it, and at most the longest lease. */
    static Duration watchdogLease(Duration watchdogLease) {
        String fix = "Set bizlock.watchdog-lease to a duration from " + text(LockDefaults.MIN_WATCHDOG_LEASE) + " to "
                + MAX_LEASE + ", or remove it for the default of " + text(LockDefaults.WATCHDOG_LEASE);
        if (watchdogLease.compareTo(LockDefaults.MIN_WATCHDOG_LEASE) < 0) {
            throw new BizLockPropertyException(
                    "bizlock.watchdog-lease",
                    text(watchdogLease),
                    "it must be at least " + text(LockDefaults.MIN_WATCHDOG_LEASE)
                            + ", since it is renewed every third of it",
                    fix);
        }
        return atMostMaxLease("bizlock.watchdog-lease", watchdogLease, fix);
    }

    /** {@code bizlock.instance-id}, checked as {@link LockDefaults#checkInstanceId} does. */
    static String instanceId(String instanceId) {
        try {
            return LockDefaults.checkInstanceId(instanceId);
        } catch (IllegalArgumentException ex) {
            throw refused(
                    "bizlock.instance-id",
                    instanceId,
                    ex,
                    "Set bizlock.instance-id to a name of at most " + LockDefaults.INSTANCE_ID_MAX_LENGTH
                            + " characters, or remove bizlock.instance-id to use host:pid:random");
        }
    }

    /** {@code bizlock.table-name}, checked as {@link LockDefaults#checkTableName} does. */
    static String tableName(String tableName) {
        try {
            return LockDefaults.checkTableName(tableName);
        } catch (IllegalArgumentException ex) {
            throw refused(
                    "bizlock.table-name",
                    tableName,
                    ex,
                    "Set bizlock.table-name to a name of at most " + LockDefaults.TABLE_NAME_MAX_LENGTH
                            + " characters of letters, digits and underscores that starts with a letter or"
                            + " underscore, or remove it to use " + LockDefaults.TABLE_NAME);
        }
    }

    /** A property refused by a check bizlock shares with code that is not configured by properties. */
    static BizLockPropertyException refused(
            String property, @Nullable String value, IllegalArgumentException refusal, String fix) {
        String problem = refusal.getMessage();
        return new BizLockPropertyException(
                property,
                value == null ? "(unset)" : "'" + value + "'",
                Character.toLowerCase(problem.charAt(0)) + problem.substring(1),
                fix);
    }

    /** A duration as it would be written in a property: {@code 0s}, {@code 100ms}, {@code 400d}. */
    static String text(Duration duration) {
        long seconds = duration.getSeconds();
        if (duration.getNano() != 0) {
            return duration.getNano() % 1_000_000 == 0 ? duration.toMillis() + "ms" : duration.toString();
        }
        if (seconds == 0) {
            return "0s";
        }
        for (Map.Entry<Long, String> unit : UNITS) {
            if (seconds % unit.getKey() == 0) {
                return seconds / unit.getKey() + unit.getValue();
            }
        }
        return seconds + "s";
    }
}
