package io.github.bizlock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What an engine gets from the SPI's defaults unless it overrides them: releases the lock manager bounds for it, fixed
 * leases as asked, and a shutdown release of each grant that tries them all.
 */
class LockEngineTest {

    private record TestGrant(LockKey key) implements Grant {

        @Override
        public String owner() {
            return "owner";
        }

        @Override
        public Duration lease() {
            return Duration.ofSeconds(30);
        }

        @Override
        public long sentNanos() {
            return 0;
        }
    }

    /** Only the abstract methods; {@link #release} records each grant and fails for the ones it is told to. */
    private static final class MinimalEngine implements LockEngine {

        final List<Grant> released = new ArrayList<>();
        final Set<Grant> failing;

        MinimalEngine(Set<Grant> failing) {
            this.failing = failing;
        }

        @Override
        public LockMode mode() {
            return LockMode.LEASE;
        }

        @Override
        public @Nullable Grant acquire(LockKey key, Duration lease, int tokens, long deadlineNanos) {
            return new TestGrant(key);
        }

        @Override
        public Map<Grant, Loss> renew(List<Grant> grants) {
            return Map.of();
        }

        @Override
        public @Nullable Loss release(Grant grant) {
            released.add(grant);
            if (failing.contains(grant)) {
                throw new IllegalStateException("release of " + grant.key() + " failed");
            }
            return null;
        }
    }

    private static Grant grant(String key) {
        return new TestGrant(new LockKey("engine", key));
    }

    @Test
    void byDefaultReleasesAreNotBoundedByTheEngineSoTheLockManagerBoundsThem() {
        assertThat(new MinimalEngine(Set.of()).boundsRelease()).isFalse();
    }

    @Test
    void byDefaultAFixedLeaseIsGrantedAsRequestedAndNoneMeansTheWatchdogKeepsTheLockAlive() {
        LockEngine engine = new MinimalEngine(Set.of());
        assertThat(engine.fixedLease(Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(7));
        assertThat(engine.fixedLease(null)).isNull();
    }

    @Test
    void byDefaultReleaseAllReleasesEachGrant() {
        Grant first = grant("1");
        Grant second = grant("2");
        MinimalEngine engine = new MinimalEngine(Set.of());
        engine.releaseAll(List.of(first, second));
        assertThat(engine.released).containsExactly(first, second);
    }

    @Test
    void byDefaultReleaseAllTriesEveryGrantThenThrowsAFailure() {
        Grant first = grant("1");
        Grant failing = grant("2");
        Grant last = grant("3");
        MinimalEngine engine = new MinimalEngine(Set.of(failing));
        assertThatThrownBy(() -> engine.releaseAll(List.of(first, failing, last)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("release of engine/2 failed");
        assertThat(engine.released)
                .as("the grant after the failed one was released too")
                .containsExactly(first, failing, last);
    }
}
