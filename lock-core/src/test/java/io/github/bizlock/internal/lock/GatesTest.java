package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.lock.StubEngine.StubGrant;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The registry of gates: one per key while threads use it, and the counts and snapshots read from them. */
class GatesTest {

    private final StubEngine engine = new StubEngine();
    private final Watchdog watchdog = new Watchdog(Duration.ofSeconds(30), (held, loss) -> {}, LockObserver.NONE);
    private final Releaser releaser = new Releaser();
    private final Gates gates = new Gates(false, new HandOff(16, watchdog, releaser));

    @AfterEach
    void stop() {
        watchdog.close();
        releaser.close();
    }

    private static Gate.Id id(String key) {
        return new Gate.Id(LockMode.LEASE, new LockKey("gates", key));
    }

    private HeldGrant held(long sentNanos, String thread) {
        HeldGrant held = new HeldGrant(new StubGrant(Duration.ofSeconds(30), sentNanos), engine, true);
        held.begin(new Thread(() -> {}, thread), LockLostPolicy.INTERRUPT);
        return held;
    }

    @Test
    void threadsOfOneKeyShareAGateUntilTheLastLeaves() {
        Gate first = gates.enter(id("a"));
        Gate second = gates.enter(id("a"));
        assertThat(second).isSameAs(first);
        assertThat(first.users).isEqualTo(2);
        assertThat(gates.activeThreadCount()).isEqualTo(2);

        gates.leave(first);
        assertThat(first.users).isEqualTo(1);
        assertThat(gates.enter(id("a"))).as("still registered").isSameAs(first);
        gates.leave(first);
        gates.leave(first);
        assertThat(gates.activeThreadCount()).isZero();
        assertThat(gates.enter(id("a"))).as("removed when the last left").isNotSameAs(first);
    }

    @Test
    void theLastThreadToLeaveReleasesAGrantHandedOverToNobody() {
        Gate gate = gates.enter(id("handed"));
        gates.enter(id("handed"));
        HeldGrant held = held(System.nanoTime(), "holder");
        held.handOver();
        gate.heldGrant = held;

        gates.leave(gate);
        assertThat(engine.released).as("one user left").isEmpty();
        gates.leave(gate);
        assertThat(engine.released).containsExactly(held.grant());
        assertThat(gate.heldGrant).isNull();
        assertThat(held.isReleased()).isTrue();
    }

    @Test
    void waitingThreadsAreTheUsersButTheHolder() {
        Gate gate = gates.enter(id("w"));
        gates.enter(id("w"));
        gates.enter(id("w"));
        assertThat(gate.waiting()).as("nobody holds it").isEqualTo(3);
        HeldGrant held = held(System.nanoTime(), "holder");
        gate.heldGrant = held;
        assertThat(gate.waiting()).isEqualTo(2);
        assertThat(gates.waitingCount()).isEqualTo(2);
        held.handOver();
        assertThat(gate.waiting()).as("handed over: everybody waits").isEqualTo(3);
        gate.users = 0;
        gate.heldGrant = held(System.nanoTime(), "holder");
        assertThat(gate.waiting()).as("never negative").isZero();
    }

    @Test
    void snapshotsShowHeldLocksLongestHeldFirstAndLocksOnlyWaitedFor() {
        Gate older = gates.enter(id("older"));
        gates.enter(id("older"));
        HeldGrant olderGrant = held(System.nanoTime(), "first-holder");
        older.heldGrant = olderGrant;
        olderGrant.hold().token(7);
        Gate newer = gates.enter(id("newer"));
        Hold newerHold = new HeldGrant(new StubGrant(Duration.ofSeconds(30), System.nanoTime()), engine, false)
                .begin(new Thread(() -> {}, "second-holder"), LockLostPolicy.LOG);
        newer.heldGrant = newerHold.heldGrant;
        newerHold.heldGrant.markLost(new Loss(LossCause.TAKEN_OVER, "taken"));
        Gate waitedFor = gates.enter(id("waited"));

        assertThat(gates.heldCount()).isEqualTo(2);
        assertThat(gates.snapshots())
                .satisfiesExactly(
                        first -> {
                            assertThat(first.key()).isEqualTo(new LockKey("gates", "older"));
                            assertThat(first.mode()).isEqualTo(LockMode.LEASE);
                            assertThat(first.holderThread()).isEqualTo("first-holder");
                            assertThat(first.fencingToken()).isEqualTo(7);
                            assertThat(first.heldFor()).isPositive();
                            assertThat(first.renewedByWatchdog()).isTrue();
                            assertThat(first.lost()).isFalse();
                            assertThat(first.onLost()).isEqualTo(LockLostPolicy.INTERRUPT);
                            assertThat(first.waiting()).isEqualTo(1);
                        },
                        second -> {
                            assertThat(second.holderThread()).isEqualTo("second-holder");
                            assertThat(second.renewedByWatchdog()).isFalse();
                            assertThat(second.lost()).isTrue();
                            assertThat(second.waiting()).isZero();
                        },
                        waiting -> {
                            assertThat(waiting.holderThread()).isNull();
                            assertThat(waiting.heldFor()).isZero();
                            assertThat(waiting.onLost()).isNull();
                            assertThat(waiting.key()).isEqualTo(new LockKey("gates", "waited"));
                            assertThat(waiting.waiting()).isEqualTo(1);
                        });
        assertThat(waitedFor.users).isEqualTo(1);
    }

    @Test
    void aGrantBetweenTwoHoldsIsShownAsWaitedForWithoutAHolder() {
        Gate gate = gates.enter(id("between"));
        gates.enter(id("between"));
        HeldGrant held = held(System.nanoTime(), "last-holder");
        held.hold().token(3);
        gate.heldGrant = held;
        held.handOver();

        assertThat(gates.heldCount()).as("the grant is still held").isEqualTo(1);
        assertThat(gates.snapshots()).singleElement().satisfies(lock -> {
            assertThat(lock.key()).isEqualTo(new LockKey("gates", "between"));
            assertThat(lock.holderThread()).isNull();
            assertThat(lock.fencingToken()).isZero();
            assertThat(lock.heldFor()).isZero();
            assertThat(lock.onLost()).isNull();
            assertThat(lock.waiting()).isEqualTo(2);
        });
    }

    @Test
    void snapshotsListTheLongestHeldFirstWhateverTheRegistrysOrder() {
        for (int i = 0; i < 6; i++) {
            Gate gate = gates.enter(id("order-" + i));
            gate.heldGrant = held(System.nanoTime(), "holder-" + i);
        }
        assertThat(gates.snapshots())
                .extracting(LockSnapshot::holderThread)
                .containsExactly("holder-0", "holder-1", "holder-2", "holder-3", "holder-4", "holder-5");
    }
}
