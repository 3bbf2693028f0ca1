package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.lock.StubEngine.StubGrant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which grants a tick renews, in which batches, and what it reports. Grants are dated back instead of waiting. */
class WatchdogTest {

    private static final long SECOND = 1_000_000_000L;

    private final StubEngine engine = new StubEngine();
    private final Map<HeldGrant, Loss> lost = new ConcurrentHashMap<>();
    /** The threads losses were reported on. */
    private final List<Thread> reportedOn = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final List<String> observed = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Watchdog watchdog = new Watchdog(
            Duration.ofSeconds(30),
            (held, loss) -> {
                lost.put(held, loss);
                reportedOn.add(Thread.currentThread());
            },
            new LockObserver() {
                @Override
                public void renewed(io.github.bizlock.LockMode mode, int count) {
                    observed.add("renewed " + count);
                }

                @Override
                public void renewalFailed(io.github.bizlock.LockMode mode, int count) {
                    observed.add("renewalFailed " + count);
                }
            });

    @AfterEach
    void close() {
        watchdog.close();
    }

    /** The grants renewed so far, in order. */
    private List<Grant> renewedGrants() {
        return engine.keptAlive.stream().flatMap(List::stream).toList();
    }

    /** Returns once a grant registered now has been renewed: every renewal run submitted before it has ended then. */
    private void awaitTheRenewalsBefore() throws InterruptedException {
        HeldGrant marker = takenAgo("marker", 11, true);
        watchdog.register(marker);
        Await.until(
                "a grant registered later is renewed",
                Duration.ofSeconds(5),
                () -> renewedGrants().contains(marker.grant()));
    }

    /** A grant of a 30 s lease (renewed every 10 s) taken {@code secondsAgo}. */
    private HeldGrant takenAgo(String key, double secondsAgo, boolean renewed) {
        return new HeldGrant(
                new StubGrant(
                        new LockKey("dog", key),
                        "o",
                        Duration.ofSeconds(30),
                        System.nanoTime() - (long) (secondsAgo * SECOND),
                        0,
                        0),
                engine,
                renewed);
    }

    @Test
    void grantsDueWithinHalfAnIntervalAreRenewedWithTheDueOnesInOneStatement() throws Exception {
        HeldGrant soon = takenAgo("soon", 7, true);
        HeldGrant later = takenAgo("later", 3, true);
        HeldGrant fixed = takenAgo("fixed", 11, false);
        watchdog.register(soon);
        watchdog.register(later);
        watchdog.register(fixed);
        watchdog.tick();
        assertThat(engine.keptAlive).as("none due yet").isEmpty();

        HeldGrant due = takenAgo("due", 11, true);
        watchdog.register(due);
        watchdog.tick();
        Await.until("renewed", Duration.ofSeconds(5), () -> observed.contains("renewed 2"));
        assertThat(engine.keptAlive)
                .singleElement()
                .satisfies(batch -> assertThat(batch).containsExactlyInAnyOrder(due.grant(), soon.grant()));
        assertThat(due.nextRenewalNanos() - System.nanoTime()).isGreaterThan(9 * SECOND);
        assertThat(watchdog.size()).as("the fixed lease is only watched").isEqualTo(4 - 1);
        assertThat(lost).isEmpty();
    }

    @Test
    void manyGrantsAreRenewedInBatchesOfAHundred() throws Exception {
        for (int i = 0; i <= Watchdog.BATCH_SIZE; i++) {
            watchdog.register(takenAgo("many-" + i, 11, true));
        }
        watchdog.tick();
        Await.until("renewed", Duration.ofSeconds(5), () -> observed.size() == 2);
        assertThat(engine.keptAlive).extracting(List::size).containsExactly(Watchdog.BATCH_SIZE, 1);
        assertThat(observed).containsExactly("renewed " + Watchdog.BATCH_SIZE, "renewed 1");
    }

    @Test
    void aFullBatchIsRenewedWithoutAnEmptyStatementAfterIt() throws Exception {
        List<HeldGrant> full = IntStream.range(0, Watchdog.BATCH_SIZE)
                .mapToObj(i -> takenAgo("full-" + i, 11, true))
                .toList();
        full.forEach(watchdog::register);
        watchdog.tick();
        Await.until(
                "all renewed",
                Duration.ofSeconds(5),
                () -> renewedGrants()
                        .containsAll(full.stream().map(HeldGrant::grant).toList()));

        awaitTheRenewalsBefore();

        assertThat(engine.keptAlive).allSatisfy(batch -> assertThat(batch).isNotEmpty());
    }

    @Test
    void ticksWhileARenewalRunsSkipItsEngineInsteadOfQueueingMoreRenewals() throws Exception {
        CountDownLatch renewing = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        engine.onKeepAlive = () -> {
            renewing.countDown();
            try {
                goOn.await();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt(); // closed
            }
        };
        HeldGrant slow = takenAgo("slow", 11, true);
        watchdog.register(slow);
        watchdog.tick();
        assertThat(renewing.await(5, TimeUnit.SECONDS)).isTrue();
        // Still due while its renewal runs: each of these ticks would renew it once more, had it queued a run.
        watchdog.tick();
        watchdog.tick();
        watchdog.tick();
        goOn.countDown();

        awaitTheRenewalsBefore();

        assertThat(engine.keptAlive)
                .filteredOn(batch -> batch.contains(slow.grant()))
                .as("the slow run, and at most one by a tick that read the due grants just before it ended")
                .hasSizeBetween(1, 2);
    }

    @Test
    void closingEndsTheRenewalThreads() throws Exception {
        watchdog.register(takenAgo("renewed", 11, true));
        watchdog.tick();
        Await.until("renewed", Duration.ofSeconds(5), () -> !engine.keepAliveThreads.isEmpty());
        Thread renewer = engine.keepAliveThreads.get(0);
        assertThat(renewer.getName()).isEqualTo("bizlock-renew-lease");

        watchdog.close();

        renewer.join(5000);
        assertThat(renewer.isAlive()).isFalse();
    }

    @Test
    void stoppingEndsTheTicks() throws Exception {
        // Nobody else ticks here: the ended lease is reported by the watchdog's own tick, on its thread.
        watchdog.register(takenAgo("ended", 30, false));
        Await.until("reported", Duration.ofSeconds(5), () -> !reportedOn.isEmpty());
        Thread ticker = reportedOn.get(0);
        assertThat(ticker.getName()).isEqualTo("bizlock-watchdog");

        watchdog.stop();

        ticker.join(5000);
        assertThat(ticker.isAlive()).isFalse();
    }

    @Test
    void aGrantTheDatabaseNoLongerHoldsIsReportedAndNoLongerWatched() throws Exception {
        HeldGrant due = takenAgo("gone", 11, true);
        watchdog.register(due);
        engine.keepAliveLoss = new Loss(LossCause.REMOVED, "row deleted");
        watchdog.tick();
        Await.until("reported", Duration.ofSeconds(5), () -> !lost.isEmpty());
        assertThat(lost).containsEntry(due, engine.keepAliveLoss);
        assertThat(watchdog.size()).isZero();
        assertThat(observed).as("none renewed").isEmpty();
    }

    @Test
    void aLeaseThatEndedWhileHeldIsReportedWithoutAskingTheDatabase() {
        HeldGrant ended = takenAgo("ended", 30, false);
        watchdog.register(ended);
        watchdog.tick();
        assertThat(lost).containsEntry(ended, ended.expiryLoss());
        assertThat(engine.keptAlive).isEmpty();
        assertThat(watchdog.stop()).isEmpty();
    }

    @Test
    void failedRenewalsAreRetriedSoonAndMakeRenewedGrantsOverdueAfterHalfALease() throws Exception {
        engine.keepAliveFailure = new IllegalStateException("database down");
        HeldGrant overdue = takenAgo("overdue", 16, true);
        HeldGrant fixed = takenAgo("fixed", 16, false);
        watchdog.register(overdue);
        watchdog.register(fixed);
        assertThat(watchdog.overdueCount()).isEqualTo(1);
        HeldGrant shortLease = new HeldGrant(
                new StubGrant(
                        new LockKey("dog", "short"),
                        "o",
                        Duration.ofSeconds(3),
                        System.nanoTime() - 1_100_000_000L,
                        0,
                        0),
                engine,
                true);
        watchdog.register(shortLease);
        long before = System.nanoTime();
        watchdog.tick();
        Await.until("failed", Duration.ofSeconds(5), () -> observed.contains("renewalFailed 2"));
        long after = System.nanoTime();
        assertThat(overdue.nextRenewalNanos())
                .as("retried a third of an interval later, at most 1 s")
                .isBetween(before + SECOND, after + SECOND);
        assertThat(shortLease.nextRenewalNanos())
                .as("a third of its 1 s interval later")
                .isBetween(before + SECOND / 3, after + SECOND / 3);
        assertThat(overdue.expiryLoss().reason()).contains("database down");
        assertThat(lost).isEmpty();

        List<HeldGrant> stopped = watchdog.stop();
        assertThat(stopped).containsExactlyInAnyOrder(overdue, fixed, shortLease);
        assertThat(watchdog.size()).isZero();
        List<Grant> none =
                new ArrayList<>(engine.keptAlive.stream().flatMap(List::stream).toList());
        assertThat(none).isEmpty();
    }
}
