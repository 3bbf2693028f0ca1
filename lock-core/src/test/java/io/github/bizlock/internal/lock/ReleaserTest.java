package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockReleaseException;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.lock.StubEngine.StubGrant;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;

/** Where a release runs, what its failure tells the unlocking thread, and its retries in the background. */
class ReleaserTest {

    private final StubEngine engine = new StubEngine();
    private final Releaser releaser = new Releaser();

    @AfterEach
    void close() {
        releaser.close();
    }

    private HeldGrant held() {
        return new HeldGrant(new StubGrant(Duration.ofSeconds(30), System.nanoTime()), engine, true);
    }

    @Test
    void anEngineThatBoundsItsReleasesReleasesOnTheUnlockingThread() {
        engine.releaseAnswer = new Loss(LossCause.SESSION_ENDED, "gone");
        assertThat(releaser.release(held())).isEqualTo(engine.releaseAnswer);
        assertThat(engine.releaseThreads)
                .extracting(Thread::getName)
                .containsExactly(Thread.currentThread().getName());
    }

    @Test
    void anyOtherEngineReleasesOnAThreadOfItsOwnAndTheUnlockingThreadGetsTheAnswer() {
        engine.boundsRelease = false;
        engine.releaseAnswer = new Loss(LossCause.REMOVED, "removed");
        assertThat(releaser.release(held())).isEqualTo(engine.releaseAnswer);
        assertThat(engine.releaseThreads).extracting(Thread::getName).containsExactly("bizlock-release");
    }

    @Test
    void anInterruptedUnlockingThreadStillWaitsForTheAnswerAndKeepsTheInterrupt() {
        engine.boundsRelease = false;
        engine.releaseAnswer = new Loss(LossCause.REMOVED, "removed");
        Thread.currentThread().interrupt();
        try {
            assertThat(releaser.release(held())).isEqualTo(engine.releaseAnswer);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void releasesThatGetNoAnswerRunOnTwoThreadsAtMostAndTheOthersQueue() throws Exception {
        engine.boundsRelease = false;
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        CountDownLatch answer = new CountDownLatch(1);
        engine.onRelease = () -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                answer.await(); // a database that does not answer, until the test lets it
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            running.decrementAndGet();
        };
        for (int i = 0; i < 6; i++) {
            releaser.releaseInBackground(held());
        }
        Await.until("two releases wait for the database", Duration.ofSeconds(5), () -> running.get() >= 2);
        Thread.sleep(200); // time for more threads to start, had the releaser started one per release
        assertThat(running.get())
                .as("releases waiting for the database at once")
                .isEqualTo(Releaser.THREADS);

        answer.countDown();
        Await.until("every release ran", Duration.ofSeconds(5), () -> engine.released.size() == 6);
        assertThat(mostAtOnce.get()).isEqualTo(Releaser.THREADS);
    }

    @Test
    void aFailedBoundedReleaseIsNotRetried() {
        engine.releaseFailure = new DataAccessResourceFailureException("connection reset");
        HeldGrant held = held();
        assertThatThrownBy(() -> releaser.release(held))
                .isInstanceOf(LockReleaseException.class)
                .hasMessage("Lock stub/k (LEASE) could not be released: the release failed: connection reset. It was"
                        + " held until this unlock, and this thread no longer holds it")
                .hasCause(engine.releaseFailure);
        assertThat(engine.releaseThreads).hasSize(1);
    }

    @Test
    void aFailedReleaseOnItsOwnThreadIsRetriedInTheBackgroundUntilItSucceeds() throws Exception {
        engine.boundsRelease = false;
        engine.releaseFailure = new DataAccessResourceFailureException("connection reset");
        engine.releaseFailures.set(1);
        HeldGrant held = held();
        assertThatThrownBy(() -> releaser.release(held))
                .isInstanceOf(LockReleaseException.class)
                .hasMessageContaining("could not be released: the release failed: ")
                .hasMessageContaining("connection reset")
                .hasMessageEndingWith("; the release is retried in the background, and the lock frees when it succeeds,"
                        + " at the latest when its lease ends (LEASE) or the server drops its session (ROW, NAMED)")
                .hasCause(engine.releaseFailure);
        Await.until("released at the second attempt", Duration.ofSeconds(5), () -> engine.released.size() == 1);
        assertThat(engine.releaseThreads)
                .extracting(Thread::getName)
                .containsExactly("bizlock-release", "bizlock-release");
    }

    @Test
    void aFailedBoundedReleaseOfAnEngineThatRetriesIsTriedAgainInTheBackgroundUntilItSucceeds() throws Exception {
        engine.retriesFailedRelease = true; // LEASE: its statements have deadlines, and a failed release frees nothing
        engine.releaseFailure = new DataAccessResourceFailureException("connection reset");
        HeldGrant held = held();
        assertThatThrownBy(() -> releaser.release(held))
                .isInstanceOf(LockReleaseException.class)
                .hasMessageContaining("the release failed: connection reset")
                .hasMessageContaining("retried in the background");
        assertThat(engine.releaseThreads.get(0))
                .as("the first attempt ran on the unlocking thread")
                .isSameAs(Thread.currentThread());
        engine.releaseFailure = null;
        Await.until("released in the background", Duration.ofSeconds(10), () -> engine.releaseThreads.size() == 2);
        assertThat(engine.releaseThreads.get(1).getName()).isEqualTo("bizlock-release");
    }

    @Test
    void aBackgroundReleaseOfABoundingEngineIsNotRetried() throws Exception {
        engine.releaseFailure = new DataAccessResourceFailureException("connection reset");
        releaser.releaseInBackground(held());
        Await.until("tried once", Duration.ofSeconds(5), () -> engine.releaseThreads.size() == 1);
        releaser.close();
        assertThat(engine.releaseThreads).extracting(Thread::getName).containsExactly("bizlock-release");
    }

    @Test
    void onceClosedAReleaseRunsOnceOnTheCallingThread() {
        releaser.close();
        engine.boundsRelease = false;
        HeldGrant held = held();
        assertThat(releaser.release(held)).isNull();
        releaser.releaseInBackground(held);
        assertThat(engine.releaseThreads)
                .extracting(Thread::getName)
                .containsExactly(
                        Thread.currentThread().getName(), Thread.currentThread().getName());

        engine.releaseFailure = new DataAccessResourceFailureException("connection reset");
        assertThatThrownBy(() -> releaser.release(held))
                .isInstanceOf(LockReleaseException.class)
                .hasCause(engine.releaseFailure);
    }

    @Test
    void onceClosedAFailedReleaseThatNobodyWaitsForIsLoggedNotThrown() {
        releaser.close();
        engine.boundsRelease = false;
        engine.releaseFailure = new DataAccessResourceFailureException("connection reset");
        try (CapturedLog log = new CapturedLog(LockManager.class)) {
            // A lock known lost, unlocked after shutdown: its unlock answers with the loss, not with this failure.
            releaser.releaseInBackground(held());
            assertThat(log.lines())
                    .containsExactly("WARN bizlock gave up releasing lock stub/k (LEASE) after 1 attempt(s), as it is"
                            + " closed; it frees when its lease or session ends (connection reset)");
        }
        assertThat(engine.releaseThreads).containsExactly(Thread.currentThread());
    }
}
