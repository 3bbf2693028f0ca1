package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Several observers are told in order, and one that throws neither fails the lock operation nor silences the others. */
class CompositeLockObserverTest {

    private static final LockKey KEY = new LockKey("obs", "k");

    private final List<String> calls = new CopyOnWriteArrayList<>();

    private LockObserver recording(String name) {
        return new LockObserver() {
            @Override
            public Acquisition acquisitionStarted(LockKey key, LockMode mode) {
                calls.add(name + " started " + key.key() + " " + mode);
                return (outcome, waitNanos) -> calls.add(name + " " + outcome + " " + waitNanos);
            }

            @Override
            public void released(LockKey key, LockMode mode, long holdNanos) {
                calls.add(name + " released " + key.key() + " " + mode + " " + holdNanos);
            }

            @Override
            public void handedOver(LockKey key, LockMode mode) {
                calls.add(name + " handedOver " + key.key() + " " + mode);
            }

            @Override
            public void renewed(LockMode mode, int count) {
                calls.add(name + " renewed " + mode + " " + count);
            }

            @Override
            public void renewalFailed(LockMode mode, int count) {
                calls.add(name + " renewalFailed " + mode + " " + count);
            }

            @Override
            public void lost(LockLostEvent event) {
                calls.add(name + " lost " + event.key());
            }

            @Override
            public void purged(int rows) {
                calls.add(name + " purged " + rows);
            }

            @Override
            public void bound(String lockName, Binding binding) {
                calls.add(name + " bound " + lockName + " " + binding.mode() + " " + binding.permits());
            }
        };
    }

    private static final LockObserver FAILING = new LockObserver() {
        @Override
        public Acquisition acquisitionStarted(LockKey key, LockMode mode) {
            return (outcome, waitNanos) -> {
                throw new IllegalStateException("finished fails");
            };
        }

        @Override
        public void released(LockKey key, LockMode mode, long holdNanos) {
            throw new IllegalStateException("released fails");
        }

        @Override
        public void purged(int rows) {
            throw new IllegalStateException("purged fails");
        }

        @Override
        public void bound(String name, Binding binding) {
            throw new IllegalStateException("bound fails");
        }
    };

    private static final LockObserver FAILING_TO_START = new LockObserver() {
        @Override
        public Acquisition acquisitionStarted(LockKey key, LockMode mode) {
            throw new IllegalStateException("start fails");
        }
    };

    @Test
    void everyObserverIsToldInOrderAndFailuresAreLoggedAndIgnored() {
        LockObserver composite =
                LockObserver.composite(List.of(recording("a"), FAILING, FAILING_TO_START, recording("b")));

        List<String> logged;
        try (CapturedLog log = new CapturedLog(LockObserver.class)) {
            composite.acquisitionStarted(KEY, LockMode.ROW).finished(LockObserver.Outcome.ACQUIRED, 7);
            composite.released(KEY, LockMode.ROW, 3);
            composite.handedOver(KEY, LockMode.ROW);
            composite.renewed(LockMode.NAMED, 2);
            composite.renewalFailed(LockMode.NAMED, 4);
            composite.lost(new LockLostEvent(
                    "obs", "k", LockMode.ROW, 1, "o", "t", LossCause.TAKEN_OVER, "why", Instant.now()));
            composite.purged(5);
            composite.bound("exports", new Binding(LockMode.LEASE, 4));
            logged = log.lines();
        }

        assertThat(calls)
                .containsExactly(
                        "a started k ROW",
                        "b started k ROW",
                        "a ACQUIRED 7",
                        "b ACQUIRED 7",
                        "a released k ROW 3",
                        "b released k ROW 3",
                        "a handedOver k ROW",
                        "b handedOver k ROW",
                        "a renewed NAMED 2",
                        "b renewed NAMED 2",
                        "a renewalFailed NAMED 4",
                        "b renewalFailed NAMED 4",
                        "a lost k",
                        "b lost k",
                        "a purged 5",
                        "b purged 5",
                        "a bound exports LEASE 4",
                        "b bound exports LEASE 4");
        // Ignored, but not silently: whoever runs the failing observer finds each failure in the log.
        assertThat(logged)
                .hasSize(5)
                .allSatisfy(line -> assertThat(line)
                        .startsWith("WARN bizlock lock observer ")
                        .contains(" failed; the lock operation went on"))
                .satisfiesExactly(
                        start -> assertThat(start).endsWith("(start fails)"),
                        finished -> assertThat(finished).endsWith("(finished fails)"),
                        released -> assertThat(released).endsWith("(released fails)"),
                        purged -> assertThat(purged).endsWith("(purged fails)"),
                        bound -> assertThat(bound).endsWith("(bound fails)"));
    }

    @Test
    void withoutObserversAnAcquisitionIsIgnored() {
        assertThat(LockObserver.composite(List.of()).acquisitionStarted(KEY, LockMode.LEASE))
                .isSameAs(LockObserver.Acquisition.NONE);
    }
}
