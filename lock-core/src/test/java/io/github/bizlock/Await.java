package io.github.bizlock;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes: tests wait for what happens on other threads this way. */
public final class Await {

    private Await() {}

    /**
     * Returns once {@code condition} holds.
     *
     * @param timeout a ceiling, far above how long it should take
     * @throws AssertionError if it still does not hold after {@code timeout}
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out after " + timeout + " waiting until " + what);
            }
            Thread.sleep(10);
        }
    }
}
