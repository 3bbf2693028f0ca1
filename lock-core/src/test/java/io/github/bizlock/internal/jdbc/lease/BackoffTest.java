package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pauses between attempts on a lock held elsewhere: doubling from initial to max, each from its upper half. */
class BackoffTest {

    private static final int DRAWS = 2_000;

    @Test
    void pausesDoubleFromInitialUpToMaxAndAreDrawnFromTheUpperHalf() {
        Backoff backoff = new Backoff(Duration.ofNanos(1_000), Duration.ofNanos(16_000));
        assertDrawnBetween(backoff, 1, 500, 1_000);
        assertDrawnBetween(backoff, 2, 1_000, 2_000);
        assertDrawnBetween(backoff, 3, 2_000, 4_000);
        assertDrawnBetween(backoff, 5, 8_000, 16_000);
        assertDrawnBetween(backoff, 6, 8_000, 16_000);
        assertDrawnBetween(backoff, 1_000, 8_000, 16_000);
    }

    @Test
    void aLongWaitNeitherOverflowsNorExceedsMax() {
        // initial << 20 would already be far past max; without the cap on the shift it would wrap to negative.
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofDays(365 * 200));
        long ceiling = Duration.ofSeconds(1).toNanos() << 20;
        assertDrawnBetween(backoff, 21, ceiling / 2, ceiling);
        assertDrawnBetween(backoff, Integer.MAX_VALUE, ceiling / 2, ceiling);
    }

    @Test
    void aShiftThatOverflowsIsCappedAtMax() {
        Backoff backoff = new Backoff(Duration.ofNanos(Long.MAX_VALUE / 4), Duration.ofNanos(Long.MAX_VALUE / 2));
        assertDrawnBetween(backoff, 10, Long.MAX_VALUE / 4, Long.MAX_VALUE / 2);
    }

    @Test
    void aShiftThatWrapsToExactlyZeroIsCappedAtMaxNotAZeroPause() {
        // 2^44 ns shifted left by 20 wraps to 0, not to a negative number: still past max, not "no pause".
        Backoff backoff = new Backoff(Duration.ofNanos(1L << 44), Duration.ofNanos(1L << 45));
        assertDrawnBetween(backoff, 21, 1L << 44, 1L << 45);
    }

    @Test
    void theCeilingItselfCanBeDrawn() {
        // The upper bound is inclusive: a one-nanosecond backoff pauses 0 or 1 ns, and a two-nanosecond one 1 or 2.
        assertDrawnBetween(new Backoff(Duration.ofNanos(1), Duration.ofNanos(1)), 1, 0, 1);
        assertDrawnBetween(new Backoff(Duration.ofNanos(2), Duration.ofNanos(2)), 1, 1, 2);
    }

    @Test
    void initialEqualToMaxIsAllowed() {
        Backoff backoff = new Backoff(Duration.ofMillis(5), Duration.ofMillis(5));
        assertDrawnBetween(backoff, 4, 2_500_000, 5_000_000);
    }

    @Test
    void boundsOutOfOrderOrNotPositiveAreRefused() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs 0 < initial <= max, was initial=PT0S, max=PT0.005S");
        assertThatThrownBy(() -> new Backoff(Duration.ofMillis(-1), Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofMillis(6), Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertDrawnBetween(Backoff backoff, int attempt, long low, long high) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < DRAWS; i++) {
            long pause = backoff.pauseNanos(attempt);
            min = Math.min(min, pause);
            max = Math.max(max, pause);
        }
        assertThat(min).as("shortest pause of attempt %d", attempt).isGreaterThanOrEqualTo(low);
        assertThat(max).as("longest pause of attempt %d", attempt).isLessThanOrEqualTo(high);
        // Jittered: the draws spread over the range instead of all being one value.
        assertThat(max - min).as("spread of attempt %d", attempt).isGreaterThan((high - low) / 4);
    }
}
