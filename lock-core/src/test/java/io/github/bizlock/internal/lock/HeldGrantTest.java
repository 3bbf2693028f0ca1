package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.lock.StubEngine.StubGrant;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A grant as the process keeps it: its reserved tokens, its local deadline, and the states its holders move it through. */
class HeldGrantTest {

    private static final long SECOND = 1_000_000_000L;

    private final StubEngine engine = new StubEngine();

    private HeldGrant watched(Duration lease, long sentNanos) {
        return new HeldGrant(new StubGrant(lease, sentNanos), engine, true);
    }

    @Test
    void theTokensReservedWithAGrantGoToItsHoldsInOrderUpToTheHighest() {
        StubGrant grant =
                new StubGrant(new LockKey("stub", "k"), "o", Duration.ofSeconds(30), System.nanoTime(), 10, 3);
        HeldGrant held = new HeldGrant(grant, engine, true);

        assertThat(held.tokensOnDemand()).isFalse();
        assertThat(held.begin(Thread.currentThread(), LockLostPolicy.LOG).token())
                .isEqualTo(8);
        assertThat(held.hasReservedToken()).isTrue();
        assertThat(held.takeReservedToken()).isEqualTo(9);
        assertThat(held.hasReservedToken()).isTrue();
        assertThat(held.takeReservedToken()).isEqualTo(10);
        assertThat(held.hasReservedToken()).isFalse();
        assertThat(held.takeReservedToken()).isZero();

        held.reserved(20, 2);
        assertThat(held.takeReservedToken()).isEqualTo(19);
        assertThat(held.takeReservedToken()).isEqualTo(20);
        assertThat(held.takeReservedToken()).isZero();
    }

    @Test
    void aGrantWithoutTokensHasTheEngineIssueThemAndItsFirstHoldHasNoneYet() {
        HeldGrant held = watched(Duration.ofSeconds(30), System.nanoTime());

        assertThat(held.tokensOnDemand()).isTrue();
        assertThat(held.hasReservedToken()).isFalse();
        assertThat(held.begin(Thread.currentThread(), LockLostPolicy.LOG).token())
                .isZero();
    }

    @Test
    void theLocalDeadlineEndsATenthOfTheLeaseBeforeTheDatabasesButAtMostOneSecond() {
        long sent = System.nanoTime();
        HeldGrant shortLease = watched(Duration.ofSeconds(5), sent);
        assertThat(shortLease.hasExpired(sent + 4_500_000_000L - 1)).isFalse();
        assertThat(shortLease.hasExpired(sent + 4_500_000_000L)).isTrue();

        HeldGrant longLease = watched(Duration.ofSeconds(30), sent);
        assertThat(longLease.hasExpired(sent + 29 * SECOND - 1)).isFalse();
        assertThat(longLease.hasExpired(sent + 29 * SECOND)).isTrue();
    }

    @Test
    void aRenewalMovesTheDeadlineAndTheNextRenewalAThirdOfTheLeaseOn() {
        long sent = System.nanoTime();
        HeldGrant held = watched(Duration.ofSeconds(3), sent);
        assertThat(held.renewalIntervalNanos()).isEqualTo(SECOND);
        assertThat(held.nextRenewalNanos()).isEqualTo(sent + SECOND);

        held.renewalFailed("no answer", sent + 5);
        assertThat(held.nextRenewalNanos()).isEqualTo(sent + 5);
        assertThat(held.expiryLoss().reason()).contains("(no answer)");

        held.renewed(sent + 2 * SECOND);
        assertThat(held.nextRenewalNanos()).isEqualTo(sent + 3 * SECOND);
        assertThat(held.hasExpired(sent + 2 * SECOND + 2_700_000_000L - 1)).isFalse();
        assertThat(held.hasExpired(sent + 2 * SECOND + 2_700_000_000L)).isTrue();
        assertThat(held.expiryLoss().reason())
                .as("a successful renewal clears the last error")
                .doesNotContain("no answer");
    }

    @Test
    void aRenewalIsOverdueOnceTheLastSuccessfulOneIsMoreThanHalfALeaseAgo() {
        long sent = System.nanoTime();
        HeldGrant held = watched(Duration.ofSeconds(3), sent);

        assertThat(held.renewalOverdue(sent + 1_500_000_000L)).isFalse();
        assertThat(held.renewalOverdue(sent + 1_500_000_001L)).isTrue();
        held.renewed(sent + SECOND);
        assertThat(held.renewalOverdue(sent + 2_500_000_000L)).isFalse();
    }

    @Test
    void anEndedLeaseIsExplainedByWhoKeptItAlive() {
        long sent = System.nanoTime();
        Loss fixed = new HeldGrant(new StubGrant(Duration.ofSeconds(5), sent), engine, false).expiryLoss();
        assertThat(fixed.cause()).isEqualTo(LossCause.LEASE_EXPIRED);
        assertThat(fixed.reason()).isEqualTo("its fixed lease of PT5S ended while it was still held");

        Loss renewed = watched(Duration.ofSeconds(5), sent).expiryLoss();
        assertThat(renewed.cause()).isEqualTo(LossCause.LEASE_EXPIRED);
        assertThat(renewed.reason())
                .isEqualTo("its lease ended before the watchdog could renew it (is the database reachable?)");

        engine.sessionHeld = true;
        HeldGrant session = watched(Duration.ofSeconds(5), sent);
        session.renewalFailed("Connection reset", sent);
        Loss unreachable = session.expiryLoss();
        assertThat(unreachable.cause()).isEqualTo(LossCause.UNREACHABLE);
        assertThat(unreachable.reason())
                .isEqualTo("its database session did not answer a heartbeat in time: the database did not answer"
                        + " (Connection reset)");
    }

    @Test
    void aGrantIsValidUntilItIsLostReleasedOrItsLeaseEnds() {
        HeldGrant fresh = watched(Duration.ofSeconds(30), System.nanoTime());
        assertThat(fresh.isValid()).isTrue();
        assertThat(fresh.isReleased()).isFalse();
        assertThat(fresh.loss()).isNull();

        HeldGrant ended = watched(Duration.ofSeconds(1), System.nanoTime() - 2 * SECOND);
        assertThat(ended.isValid()).isFalse();
        assertThat(ended.loss()).isEqualTo(ended.expiryLoss());

        HeldGrant lost = watched(Duration.ofSeconds(30), System.nanoTime());
        Loss takenOver = new Loss(LossCause.TAKEN_OVER, "taken");
        assertThat(lost.markLost(takenOver)).isTrue();
        assertThat(lost.markLost(new Loss(LossCause.REMOVED, "later"))).isFalse();
        assertThat(lost.isValid()).isFalse();
        assertThat(lost.loss()).isEqualTo(takenOver);

        HeldGrant released = watched(Duration.ofSeconds(30), System.nanoTime());
        released.begin(Thread.currentThread(), LockLostPolicy.LOG);
        released.markReleased();
        assertThat(released.isReleased()).isTrue();
        assertThat(released.isValid()).isFalse();
        assertThat(released.hold()).isNull();
        assertThat(released.markLost(takenOver))
                .as("a released grant is not lost any more")
                .isFalse();
    }

    @Test
    void theWatchdogsLossIsReportedToTheHoldUnlessItsHolderIsUnlocking() {
        Loss loss = new Loss(LossCause.TAKEN_OVER, "taken");
        HeldGrant held = watched(Duration.ofSeconds(30), System.nanoTime());
        Hold hold = held.begin(Thread.currentThread(), LockLostPolicy.LOG);
        assertThat(held.markLostByWatchdog(loss)).isSameAs(hold);
        assertThat(held.markLostByWatchdog(loss)).as("reported once").isNull();

        HeldGrant unlocking = watched(Duration.ofSeconds(30), System.nanoTime());
        unlocking.begin(Thread.currentThread(), LockLostPolicy.LOG);
        unlocking.markReleasing();
        assertThat(unlocking.markLostByWatchdog(loss)).isNull();
        assertThat(unlocking.isValid()).as("the unlock decides").isTrue();
    }

    @Test
    void theShutdownGivesBackOnlyGrantsNoHolderIsReleasing() {
        HeldGrant held = watched(Duration.ofSeconds(30), System.nanoTime());
        assertThat(held.givenBack()).isFalse();
        assertThat(held.giveBackAtShutdown()).isTrue();
        assertThat(held.givenBack()).isTrue();

        HeldGrant releasing = watched(Duration.ofSeconds(30), System.nanoTime());
        releasing.markReleasing();
        assertThat(releasing.giveBackAtShutdown()).isFalse();
        assertThat(releasing.givenBack()).isFalse();

        HeldGrant released = watched(Duration.ofSeconds(30), System.nanoTime());
        released.markReleased();
        assertThat(released.giveBackAtShutdown()).isFalse();
    }

    @Test
    void onlyAHolderStillHoldingIsInterrupted() {
        HeldGrant held = watched(Duration.ofSeconds(30), System.nanoTime());
        Hold hold = held.begin(Thread.currentThread(), LockLostPolicy.INTERRUPT);
        try {
            assertThat(held.interruptHolderIfStillHolding(hold)).isTrue();
            assertThat(Thread.interrupted()).isTrue();

            held.handOver();
            assertThat(held.interruptHolderIfStillHolding(hold)).isFalse();
            Hold next = held.takeOver(Thread.currentThread(), LockLostPolicy.INTERRUPT);
            held.markReleasing();
            assertThat(held.interruptHolderIfStillHolding(next)).isFalse();

            HeldGrant released = watched(Duration.ofSeconds(30), System.nanoTime());
            Hold gone = released.begin(Thread.currentThread(), LockLostPolicy.INTERRUPT);
            released.markReleased();
            assertThat(released.interruptHolderIfStillHolding(gone)).isFalse();
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aHandedOverGrantIsTakenOverWithTheNextTokenWhileValidAndCountsItsHandOffs() {
        StubGrant grant = new StubGrant(new LockKey("stub", "k"), "o", Duration.ofSeconds(30), System.nanoTime(), 5, 2);
        HeldGrant held = new HeldGrant(grant, engine, true);
        Hold first = held.begin(Thread.currentThread(), LockLostPolicy.LOG);
        assertThat(held.hold()).isSameAs(first);
        assertThat(held.handoffs()).isZero();

        held.handOver();
        assertThat(held.hold()).isNull();
        assertThat(held.handoffs()).isEqualTo(1);
        Hold second = held.takeOver(Thread.currentThread(), LockLostPolicy.LOG);
        assertThat(second).isNotNull();
        assertThat(second.token()).isEqualTo(5);
        assertThat(held.hold()).isSameAs(second);

        held.handOver();
        held.markLost(new Loss(LossCause.TAKEN_OVER, "taken"));
        assertThat(held.takeOver(Thread.currentThread(), LockLostPolicy.LOG)).isNull();
        assertThat(held.handoffs()).isEqualTo(2);
    }

    @Test
    void aHoldWhoseThreadEndedCountsAsAbandonedOnlyWhileTheGrantIsStillItsOwn() throws Exception {
        HeldGrant held = watched(Duration.ofSeconds(30), System.nanoTime());
        Hold[] first = new Hold[1];
        Thread ended = new Thread(() -> first[0] = held.begin(Thread.currentThread(), LockLostPolicy.LOG));
        ended.start();
        ended.join();
        assertThat(held.heldByEnded(first[0])).as("its thread ended holding it").isTrue();

        HeldGrant handedOver = watched(Duration.ofSeconds(30), System.nanoTime());
        Hold[] before = new Hold[1];
        Thread gone = new Thread(() -> {
            before[0] = handedOver.begin(Thread.currentThread(), LockLostPolicy.LOG);
            handedOver.handOver(); // unlocked while another thread of the process waited
        });
        gone.start();
        gone.join();
        Hold live = handedOver.takeOver(Thread.currentThread(), LockLostPolicy.LOG);
        assertThat(live).isNotNull();
        assertThat(handedOver.heldByEnded(before[0]))
                .as("the ended thread's hold is no longer the grant's: a live thread took it over")
                .isFalse();
        assertThat(handedOver.heldByEnded(live)).as("the live holder").isFalse();

        held.markReleased();
        assertThat(held.heldByEnded(first[0])).as("released").isFalse();
    }
}
