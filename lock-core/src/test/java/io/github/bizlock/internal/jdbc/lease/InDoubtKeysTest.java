package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.LockTest;
import io.github.bizlock.Locks;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The in-doubt keys of a LEASE engine, with their passes run by the test (each pass one call, no waiting for the
 * background): a row naming this owner that no grant here holds is freed; one a grant holds is not; doubt ends after
 * its window and not before; the per-key lock keeps an acquisition and a pass apart, and never outlives either.
 */
@LockTest
class InDoubtKeysTest {

    private static final String OWNER = "in-doubt-owner";
    private static final Duration LEASE = Duration.ofHours(1);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private LeaseDao dao;
    private InDoubtKeys keys;

    @BeforeEach
    void setUp(Locks locks) {
        dao = locks.dao();
        keys = new InDoubtKeys(dao, OWNER);
    }

    @AfterEach
    void close() {
        keys.close();
    }

    /** A row naming {@link #OWNER} for an hour, as an acquisition that committed without an answer leaves it. */
    private long committedLate(LockKey key) {
        return dao.tryAcquire(key, OWNER, LEASE, 1, true, System.nanoTime() + 5 * SECOND)
                .orElseThrow();
    }

    private boolean heldByOwner(LockKey key) {
        return dao.find(key)
                .filter(row -> row.held() && OWNER.equals(row.owner()))
                .isPresent();
    }

    @Test
    void aPassFreesTheRowOfAnInDoubtKeyThatNoGrantHereHolds() throws Exception {
        LockKey key = new LockKey("doubt", "free");
        keys.doubt(key, null).lock.unlock();
        committedLate(key);

        keys.pass();

        assertThat(heldByOwner(key)).as("freed by the pass").isFalse();
        assertThat(keys.lockIfInDoubt(key, System.nanoTime() + SECOND))
                .as("still in doubt within its window")
                .isNotNull();
    }

    @Test
    void aRowAGrantHereHoldsIsKeptUntilTheGrantIsGivenBack() throws Exception {
        LockKey key = new LockKey("doubt", "granted");
        InDoubtKeys.Doubt doubt = keys.doubt(key, null);
        long token = committedLate(key);
        doubt.grants.add(token);
        doubt.lock.unlock();

        keys.pass();
        assertThat(heldByOwner(key)).as("a grant holds it").isTrue();

        keys.released(key, token);
        keys.pass();
        assertThat(heldByOwner(key)).as("given back, then freed").isFalse();
    }

    @Test
    void aDoubtEndsAtAPassAfterItsWindowAndNotBefore() throws Exception {
        LockKey key = new LockKey("doubt", "window");
        InDoubtKeys.Doubt doubt = keys.doubt(key, null);
        assertThat(doubt.untilNanos - System.nanoTime())
                .as("the window, from now")
                .isBetween(InDoubtKeys.WINDOW_NANOS - 10 * SECOND, InDoubtKeys.WINDOW_NANOS);
        doubt.lock.unlock();

        keys.pass();
        InDoubtKeys.Doubt kept = keys.lockIfInDoubt(key, System.nanoTime() + SECOND);
        assertThat(kept).as("within the window").isSameAs(doubt);
        kept.untilNanos = System.nanoTime() - 1;
        kept.lock.unlock();

        keys.pass();
        assertThat(keys.lockIfInDoubt(key, System.nanoTime() + SECOND))
                .as("after the window")
                .isNull();
    }

    @Test
    void aFailedAttemptAgainExtendsTheDoubtItAlreadyHoldsWithoutLockingItTwice() throws Exception {
        LockKey key = new LockKey("doubt", "again");
        InDoubtKeys.Doubt doubt = keys.doubt(key, null);
        doubt.untilNanos = System.nanoTime() - 1;

        assertThat(keys.doubt(key, doubt)).isSameAs(doubt);
        assertThat(doubt.untilNanos - System.nanoTime()).isGreaterThan(InDoubtKeys.WINDOW_NANOS - 10 * SECOND);
        assertThat(doubt.lock.getHoldCount()).isEqualTo(1);
        doubt.lock.unlock();
    }

    @Test
    void anAcquisitionWaitsForAPassOnlyUntilItsDeadlineAndAPassSkipsAKeyAnAcquisitionHolds() throws Exception {
        LockKey key = new LockKey("doubt", "busy");
        keys.doubt(key, null); // held by this thread, as by an acquisition
        committedLate(key);

        CompletableFuture.runAsync(keys::pass, ThreadPerTask.EXECUTOR).get(10, TimeUnit.SECONDS);
        assertThat(heldByOwner(key))
                .as("the acquisition holding the key reclaims such a row itself")
                .isTrue();

        CountDownLatch asked = new CountDownLatch(1);
        CompletableFuture<InDoubtKeys.Doubt> other = CompletableFuture.supplyAsync(
                () -> {
                    asked.countDown();
                    try {
                        return keys.lockIfInDoubt(key, System.nanoTime() - SECOND);
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
        assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(other.get(10, TimeUnit.SECONDS))
                .as("a deadline already passed: no wait for the key's lock")
                .isSameAs(InDoubtKeys.BUSY);
    }

    @Test
    void aPassRunOnAnotherThreadLeavesTheKeysLockFree() throws Exception {
        LockKey key = new LockKey("doubt", "unlocked");
        keys.doubt(key, null).lock.unlock();

        CompletableFuture.runAsync(keys::pass, ThreadPerTask.EXECUTOR).get(10, TimeUnit.SECONDS);

        InDoubtKeys.Doubt doubt = keys.lockIfInDoubt(key, System.nanoTime() + SECOND);
        assertThat(doubt).as("not BUSY: the pass let go of the key").isNotSameAs(InDoubtKeys.BUSY);
        doubt.lock.unlock();
    }

    @Test
    void theBackgroundPassesStartWithTheFirstDoubtAndStopAtClose() throws Exception {
        Set<Thread> before = passThreads();
        LockKey key = new LockKey("doubt", "background");
        keys.doubt(key, null).lock.unlock();
        keys.doubt(key, null).lock.unlock();
        committedLate(key);

        Await.until("the background pass frees the row", Duration.ofSeconds(10), () -> !heldByOwner(key));
        Set<Thread> started = passThreads();
        started.removeAll(before);
        assertThat(started).as("one pass thread, however many doubts").hasSize(1);

        Thread thread = started.iterator().next();
        assertThat(thread.isDaemon()).as("no pass keeps the JVM from exiting").isTrue();
        keys.close();
        thread.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(thread.isAlive()).as("stopped by close").isFalse();
    }

    @Test
    void anAcquisitionWaitingForAKeyWhoseDoubtAPassEndsFindsItNoLongerInDoubtAndLetsGo() throws Exception {
        LockKey key = new LockKey("doubt", "ended-while-waiting");
        InDoubtKeys.Doubt ended = keys.doubt(key, null); // held by this thread, as by an acquisition
        CompletableFuture<InDoubtKeys.Doubt> waiting = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return keys.lockIfInDoubt(key, System.nanoTime() + 10 * SECOND);
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
        endWhileWaitedFor(ended);

        assertThat(waiting.get(10, TimeUnit.SECONDS)).as("no longer in doubt").isNull();
        assertThat(ended.lock.isLocked()).as("the ended doubt's lock, let go").isFalse();
    }

    @Test
    void aFailedAttemptWaitingForADoubtAPassEndsPutsTheKeyInDoubtAnew() throws Exception {
        LockKey key = new LockKey("doubt", "anew");
        InDoubtKeys.Doubt ended = keys.doubt(key, null);
        CompletableFuture<InDoubtKeys.Doubt> failedAttempt = CompletableFuture.supplyAsync(
                () -> {
                    InDoubtKeys.Doubt doubt = keys.doubt(key, null);
                    doubt.lock.unlock();
                    return doubt;
                },
                ThreadPerTask.EXECUTOR);
        endWhileWaitedFor(ended);

        InDoubtKeys.Doubt anew = failedAttempt.get(10, TimeUnit.SECONDS);
        assertThat(anew).as("a doubt of its own, not the ended one").isNotSameAs(ended);
        assertThat(ended.lock.isLocked()).as("the ended doubt's lock, let go").isFalse();
        InDoubtKeys.Doubt found = keys.lockIfInDoubt(key, System.nanoTime() + SECOND);
        assertThat(found).as("the key in doubt again").isSameAs(anew);
        found.lock.unlock();
    }

    /**
     * Once another thread waits for the doubt's lock, which this thread holds, a pass on this thread ends the doubt
     * (its window over) and the lock is let go.
     */
    private void endWhileWaitedFor(InDoubtKeys.Doubt doubt) throws InterruptedException {
        Await.until("another thread waits for the key", Duration.ofSeconds(10), doubt.lock::hasQueuedThreads);
        doubt.untilNanos = System.nanoTime() - 1;
        keys.pass(); // the lock is reentrant: the pass runs although this thread holds it
        doubt.lock.unlock();
    }

    private static Set<Thread> passThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().equals("bizlock-lease-in-doubt"))
                .collect(Collectors.toSet());
    }
}
