package io.github.bizlock.benchmarks;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** Seconds and nanoseconds as the scenarios count them, and the progress lines they print to stderr. */
final class Timing {

    private Timing() {}

    static long nanos(double seconds) {
        return (long) (seconds * 1e9);
    }

    static double micros(long nanos) {
        return nanos / 1000.0;
    }

    static void sleep(double seconds) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos(seconds));
    }

    /** A progress line, stamped with the UTC time. */
    static void log(String format, Object... args) {
        System.err.printf(
                Locale.ROOT,
                "[%s] %s%n",
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("HH:mm:ss")),
                String.format(Locale.ROOT, format, args));
    }
}
