package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockOptions;
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
