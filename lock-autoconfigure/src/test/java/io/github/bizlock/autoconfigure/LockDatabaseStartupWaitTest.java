package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.bizlock.LockFixture;
import io.github.bizlock.service.LockService;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * What a lock that waits, and the application's start, do while the lock database does not answer: a lock with time
 * left tries again until its deadline and gets its lock once the database answers; a set-up mistake, or an
 * interrupt, ends the wait at once; the start goes on without the database unless told not to.
 */
@ExtendWith(TestDatabaseExtension.class)
class LockDatabaseStartupWaitTest {

    private static LockService lockService;

    @BeforeAll
    static void startLockService(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
        lockService = LockService.builder(dataSource)
                .lockConnections(dataSource)
                .housekeeping(false)
                .build();
    }

    @AfterAll
    static void closeLockService() {
        lockService.close();
    }

    @Test
    void aLockThatWaitsGetsTheServiceOnceTheDatabaseAnswersWithinItsWait() {
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            if (attempts.incrementAndGet() <= 2) {
                throw unreachable();
            }
            return lockService;
        });

        assertThat(startup.service(deadlineIn(Duration.ofSeconds(30)))).isSameAs(lockService);
        assertThat(attempts)
                .as("two failed attempts, then the one that built it")
                .hasValue(3);

        assertThat(startup.service()).isSameAs(lockService);
        assertThat(startup.createdService()).isSameAs(lockService);
        assertThat(attempts).as("built once").hasValue(3);
    }

    @Test
    void aLockThatWaitsTriesAgainAboutOncePerRetryIntervalAndEndsWithTheLastFailure() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<LockDatabaseUnreachableException> last = new AtomicReference<>();
        LockDatabaseStartup startup = startup(() -> {
            attempts.incrementAndGet();
            last.set(unreachable());
            throw last.get();
        });

        Throwable failure = catchThrowable(() -> startup.service(deadlineIn(Duration.ofSeconds(1))));

        assertThat(failure).isSameAs(last.get());
        // One attempt at once, then one per 200 ms (WAITING_RETRY_EVERY) within the second: not one only, and not an
        // attempt after another without a pause (hundreds).
        assertThat(attempts.get()).as("attempts within a 1 s wait").isBetween(3, 7);
        assertThat(startup.createdService()).isNull();
    }

    @Test
    void aSetUpMistakeFailsALockThatWaitsAtOnce() {
        AtomicInteger attempts = new AtomicInteger();
        IllegalStateException mistake = new IllegalStateException("bizlock's lock tables are missing");
        LockDatabaseStartup startup = startup(() -> {
            attempts.incrementAndGet();
            throw mistake;
        });

        assertThatThrownBy(() -> startup.service(deadlineIn(Duration.ofSeconds(30))))
                .isSameAs(mistake);
        assertThat(attempts).as("no new attempt would mend it").hasValue(1);

        // After the failed start, a lock with time left gets the same failure without waiting for a new attempt.
        assertThatThrownBy(() -> startup.service(deadlineIn(Duration.ofSeconds(30))))
                .isSameAs(mistake);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void anInterruptedLockThatWaitsStopsAtOnceAndKeepsItsInterrupt() {
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            attempts.incrementAndGet();
            throw unreachable();
        });

        Thread.currentThread().interrupt();
        Throwable failure = catchThrowable(() -> startup.service(deadlineIn(Duration.ofSeconds(30))));

        assertThat(Thread.interrupted()).as("the interrupt kept").isTrue();
        assertThat(failure).isInstanceOf(LockDatabaseUnreachableException.class);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void aLockInterruptedWhileItPausesBetweenAttemptsStopsAndKeepsItsInterrupt() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            attempts.incrementAndGet();
            throw unreachable();
        });
        Thread caller = Thread.currentThread();
        ExecutorService interrupter = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Void> interrupt = CompletableFuture.runAsync(
                    () -> {
                        // The caller's first attempt has failed and it sleeps until its next try.
                        while (attempts.get() < 1 || caller.getState() != Thread.State.TIMED_WAITING) {
                            if (Thread.currentThread().isInterrupted()) {
                                return;
                            }
                            Thread.onSpinWait();
                        }
                        caller.interrupt();
                    },
                    interrupter);

            Throwable failure = catchThrowable(() -> startup.service(deadlineIn(Duration.ofSeconds(30))));

            assertThat(Thread.interrupted()).as("the interrupt kept").isTrue();
            interrupt.get(10, TimeUnit.SECONDS);
            assertThat(failure).isInstanceOf(LockDatabaseUnreachableException.class);
            assertThat(attempts).as("no attempt after the interrupt").hasValue(1);
        } finally {
            interrupter.shutdownNow();
            Thread.interrupted(); // an interrupt that came late is not the next test's
        }
    }

    @Test
    void aLockThatCannotWaitStillWaitsForANewAttemptAsLongAsADatabaseThatAnswersNeeds() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            if (attempts.incrementAndGet() == 1) {
                throw unreachable();
            }
            pause(Duration.ofMillis(200)); // the database answers, not at once
            return lockService;
        });
        assertThat(catchThrowable(startup::service)).isInstanceOf(LockDatabaseUnreachableException.class);
        Thread.sleep(LockDatabaseStartup.RETRY_AFTER.toMillis() + 100); // past it, the next lock tries again

        // Its deadline is now, but it waits up to NEW_ATTEMPT_WAIT (1 s) for the attempt it started.
        assertThat(startup.service()).isSameAs(lockService);
        assertThat(attempts).hasValue(2);
    }

    @Test
    void aLockThatWaitsWaitsForAnotherCallersAttemptUnderWay() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        CountDownLatch secondAttemptStarted = new CountDownLatch(1);
        CountDownLatch databaseAnswers = new CountDownLatch(1);
        LockDatabaseStartup startup = startup(() -> {
            if (attempts.incrementAndGet() == 1) {
                throw unreachable();
            }
            secondAttemptStarted.countDown();
            await(databaseAnswers);
            return lockService;
        });
        assertThat(catchThrowable(startup::service)).isInstanceOf(LockDatabaseUnreachableException.class);
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<LockService> first =
                    CompletableFuture.supplyAsync(() -> startup.service(deadlineIn(Duration.ofSeconds(30))), callers);
            assertThat(secondAttemptStarted.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<LockService> second =
                    CompletableFuture.supplyAsync(() -> startup.service(deadlineIn(Duration.ofSeconds(30))), callers);

            databaseAnswers.countDown();

            assertThat(first.get(30, TimeUnit.SECONDS)).isSameAs(lockService);
            assertThat(second.get(30, TimeUnit.SECONDS)).isSameAs(lockService);
            assertThat(attempts)
                    .as("the second caller made no attempt of its own")
                    .hasValue(2);
        } finally {
            databaseAnswers.countDown();
            callers.shutdownNow();
        }
    }

    @Test
    void anErrorOfANewAttemptReachesTheLockThatStartedIt() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            if (attempts.incrementAndGet() == 1) {
                throw unreachable();
            }
            throw new NoClassDefFoundError("org/mariadb/jdbc/Driver");
        });
        assertThat(catchThrowable(startup::service)).isInstanceOf(LockDatabaseUnreachableException.class);
        Thread.sleep(LockDatabaseStartup.RETRY_AFTER.toMillis() + 100);

        assertThatThrownBy(startup::service)
                .isInstanceOf(NoClassDefFoundError.class)
                .hasMessage("org/mariadb/jdbc/Driver");
    }

    @Test
    void aStartWithoutTheDatabaseGoesOnUnlessFailFastIsSet() {
        LockDatabaseStartup tolerant = new LockDatabaseStartup(
                beans(() -> {
                    throw unreachable();
                }),
                false);
        tolerant.afterSingletonsInstantiated();
        assertThat(tolerant.createdService()).isNull();

        LockDatabaseStartup failFast = new LockDatabaseStartup(
                beans(() -> {
                    throw unreachable();
                }),
                true);
        assertThatThrownBy(failFast::afterSingletonsInstantiated).isInstanceOf(LockDatabaseUnreachableException.class);
    }

    @Test
    void aStartFailsForCredentialsTheServerRefusesAndForASetUpMistake() {
        LockDatabaseUnreachableException refused = new LockDatabaseUnreachableException(
                "jdbc:mariadb://db:3306/app",
                "Access denied for user 'app'@'10.0.0.7'",
                new SQLException("Access denied for user 'app'@'10.0.0.7'", "28000", 1045));
        LockDatabaseStartup credentials = new LockDatabaseStartup(
                beans(() -> {
                    throw refused;
                }),
                false);
        assertThatThrownBy(credentials::afterSingletonsInstantiated).isSameAs(refused);

        IllegalStateException mistake = new IllegalStateException("bizlock's lock tables are missing");
        LockDatabaseStartup tablesMissing = new LockDatabaseStartup(
                beans(() -> {
                    throw mistake;
                }),
                false);
        assertThatThrownBy(tablesMissing::afterSingletonsInstantiated).isSameAs(mistake);
    }

    @Test
    void aStartWithTheDatabaseBuildsTheService() {
        LockDatabaseStartup startup = startup(() -> lockService);

        startup.afterSingletonsInstantiated();

        assertThat(startup.createdService()).isSameAs(lockService);
    }

    @Test
    void theFirstLockOfADatabaseThatAnswersGetsTheServiceItBuilt() {
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            attempts.incrementAndGet();
            return lockService;
        });

        assertThat(startup.service()).isSameAs(lockService);
        assertThat(startup.service(deadlineIn(Duration.ofSeconds(30)))).isSameAs(lockService);
        assertThat(attempts).hasValue(1);
    }

    /**
     * A start-up whose lock service is built by {@code lockService}, each call an attempt to reach the database, and
     * whose failures reach the start-up as thrown (a bean factory would wrap them in a {@code BeanCreationException}).
     */
    private static LockDatabaseStartup startup(Supplier<LockService> lockService) {
        return new LockDatabaseStartup(beans(lockService), false);
    }

    private static DefaultListableBeanFactory beans(Supplier<LockService> lockService) {
        return new DefaultListableBeanFactory() {
            @Override
            public <T> T getBean(Class<T> requiredType) {
                return requiredType.cast(lockService.get());
            }
        };
    }

    private static LockDatabaseUnreachableException unreachable() {
        return new LockDatabaseUnreachableException(
                "jdbc:mariadb://db:3306/app",
                "Connection refused",
                new SQLTransientConnectionException("Connection refused", "08000"));
    }

    private static long deadlineIn(Duration wait) {
        return System.nanoTime() + wait.toNanos();
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
