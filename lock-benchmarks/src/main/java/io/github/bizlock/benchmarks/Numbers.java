package io.github.bizlock.benchmarks;

import java.util.Locale;

/** How the report writes values: NaN (not measured) as a dash, ranges as {@code low..high}. */
final class Numbers {

    private Numbers() {}

    static String number(double value, int decimals) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** {@link #number}, with "n/a" for what the server does not count (NaN). */
    static String orNa(double value, int decimals) {
        return Double.isNaN(value) ? "n/a" : number(value, decimals);
    }

    /** A {@link Results#range} as {@code low..high}, or one value when both ends print the same. */
    static String span(double[] range, int decimals) {
        String low = number(range[0], decimals);
        String high = number(range[1], decimals);
        return low.equals(high) ? low : low + ".." + high;
    }

    /** Whether {@code subject} read its fencing token in a scenario; {@code asked}: whether the scenario asks. */
    static String tokenRead(Subject subject, boolean asked) {
        return switch (subject.token()) {
            case NONE -> "none";
            case WHEN_ASKED -> asked ? "read every acquisition" : "not read";
            case EVERY_LOCK -> "read every acquisition";
        };
    }
}
