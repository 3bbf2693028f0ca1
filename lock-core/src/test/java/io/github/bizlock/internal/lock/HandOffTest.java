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
import org.springframework.dao.DataAccessResourceFailureException;

/** When an ending hold passes its grant to a waiting thread of this process, and how a grant nobody took is given back. */
class HandOffTest {

    private final StubEngine engine = new StubEngine();
    private final Watchdog watchdog = new Watchdog(Duration.ofSeconds(30), (held, loss) -> {}, LockObserver.NONE);
    private final Releaser releaser = new Releaser();
    private final HandOff handOff = new HandOff(2, watchdog, releaser);
    private final Gate gate = new Gate(new Gate.Id(LockMode.LEASE, new LockKey("stub", "k")), false);

    @AfterEach
    void stop() {
        watchdog.close();
        releaser.close();
    }

    private HeldGrant held(long sentNanos, long fencingToken, int tokens, boolean renewed) {
        HeldGrant held = new HeldGrant(
                new StubGrant(new LockKey("stub", "k"), "o", Duration.ofSeconds(30), sentNanos, fencingToken, tokens),
                engine,
                renewed);
        held.begin(Thread.currentThread(), LockLostPolicy.LOG);
        return held;
    }

    @Test
    void aFreshRenewedGrantPassesToAnotherThreadThatWaits() {
        gate.users = 2;
        assertThat(handOff.mayHandOver(gate, held(System.nanoTime(), 0, 0, true)))
                .as("tokens on demand")
                .isTrue();
        assertThat(handOff.mayHandOver(gate, held(System.nanoTime(), 3, 2, true)))
                .as("a reserved token left")
                .isTrue();
    }

    @Test
    void aGrantIsNotHandedOverWithoutAnotherThreadWaiting() {
        gate.users = 1;
        assertThat(handOff.mayHandOver(gate, held(System.nanoTime(), 0, 0, true)))
                .isFalse();
    }

    @Test
    void aGrantIsHandedOverAtMostTheConfiguredNumberOfTimes() {
        gate.users = 2;
        HeldGrant held = held(System.nanoTime(), 0, 0, true);
        held.handOver();
        held.takeOver(Thread.currentThread(), LockLostPolicy.LOG);
        assertThat(handOff.mayHandOver(gate, held)).as("once of two").isTrue();
        held.handOver();
        held.takeOver(Thread.currentThread(), LockLostPolicy.LOG);
        assertThat(handOff.mayHandOver(gate, held)).as("twice of two").isFalse();
    }

    @Test
    void aGrantTakenLongerAgoThanTheWindowIsReleased() {
        gate.users = 2;
        long windowAgo = System.nanoTime() - HandOff.WINDOW_NANOS;
        assertThat(handOff.mayHandOver(gate, held(windowAgo, 0, 0, true))).isFalse();
    }

    @Test
    void fixedLeasesLostGrantsAndGrantsWithoutATokenLeftAreNotHandedOver() {
        gate.users = 2;
        assertThat(handOff.mayHandOver(gate, held(System.nanoTime(), 0, 0, false)))
                .as("fixed lease")
                .isFalse();
        HeldGrant lost = held(System.nanoTime(), 0, 0, true);
        lost.markLost(new Loss(LossCause.TAKEN_OVER, "taken"));
        assertThat(handOff.mayHandOver(gate, lost)).as("lost").isFalse();
        assertThat(handOff.mayHandOver(gate, held(System.nanoTime(), 3, 1, true)))
                .as("its only token taken by the ending hold")
                .isFalse();
    }

    @Test
    void aGrantReservesATokenForItsHolderAndOneForEachHandOffStillAllowedWhileOthersWait() {
        assertThat(handOff.tokensToReserve(0, 0)).isEqualTo(1);
        assertThat(handOff.tokensToReserve(3, 0)).isEqualTo(3);
        assertThat(handOff.tokensToReserve(1, 1)).isEqualTo(2);
        assertThat(handOff.tokensToReserve(1, 2)).isEqualTo(1);
        assertThat(handOff.tokensToReserve(1, 5)).isEqualTo(1);
    }

    @Test
    void aHandedOverGrantNobodyTookIsReleasedAndNoLongerRenewed() {
        HeldGrant held = held(System.nanoTime(), 0, 0, true);
        watchdog.register(held);
        held.handOver();

        handOff.releaseHandedOver(held);

        assertThat(engine.released).containsExactly(held.grant());
        assertThat(held.isReleased()).isTrue();
        assertThat(watchdog.size()).isZero();
        assertThat(held.markLostByWatchdog(new Loss(LossCause.TAKEN_OVER, "late")))
                .as("releasing")
                .isNull();
    }

    @Test
    void aHandedOverGrantTheShutdownGaveBackIsNotReleasedAgain() {
        HeldGrant held = held(System.nanoTime(), 0, 0, true);
        held.handOver();
        held.giveBackAtShutdown();

        handOff.releaseHandedOver(held);
        handOff.releaseLost(held);

        assertThat(engine.released).isEmpty();
        assertThat(held.isReleased()).isTrue();
    }

    @Test
    void aFailedReleaseOfAHandedOverGrantStillEndsIt() {
        HeldGrant held = held(System.nanoTime(), 0, 0, true);
        held.handOver();
        engine.releaseFailure = new DataAccessResourceFailureException("down");

        handOff.releaseHandedOver(held);

        assertThat(held.isReleased()).isTrue();
    }

    @Test
    void aGrantWhoseRenewalsStoppedForItsReleaseIsLeftToTheRelease() {
        HeldGrant held = held(System.nanoTime(), 0, 0, true);
        watchdog.register(held);

        handOff.stopRenewing(held);

        assertThat(watchdog.size()).isZero();
        // A renewal still under way may find the row already freed by the release: that is no loss.
        assertThat(held.markLostByWatchdog(new Loss(LossCause.REMOVED, "freed by the release")))
                .isNull();
        assertThat(held.isValid()).isTrue();
        assertThat(held.giveBackAtShutdown()).as("the release gives it back").isFalse();
    }

    @Test
    void aReleaseReportsWhatTheEngineAnswered() {
        HeldGrant held = held(System.nanoTime(), 0, 0, true);
        assertThat(handOff.release(held)).isNull();
        assertThat(engine.released).containsExactly(held.grant());
    }
}
