package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.bizlock.service.LockService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * While one caller tries a lock database that does not answer again (which can take the pool's whole connection
 * timeout), the other callers fail at once with the last attempt's failure instead of queueing behind it.
 */
class LockDatabaseStartupTest {

    @Test
    void callersDoNotWaitBehindAnotherCallersNewAttempt() throws Exception {
        CountDownLatch secondAttemptStarted = new CountDownLatch(1);
        CountDownLatch databaseAnswers = new CountDownLatch(1);
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            if (attempts.incrementAndGet() > 1) {
                secondAttemptStarted.countDown();
                await(databaseAnswers);
            }
            throw new IllegalStateException("the lock database does not answer");
        });
        assertThatThrownBy(startup::service).hasStackTraceContaining("the lock database does not answer");

        ExecutorService retrying = Executors.newSingleThreadExecutor();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            // The first caller after the retry interval tries again, and the database keeps it waiting.
            CompletableFuture<Void> retry = CompletableFuture.runAsync(
                    () -> {
                        while (attempts.get() < 2) {
                            try {
                                startup.service();
                            } catch (RuntimeException stillWithinTheRetryInterval) {
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                            }
                        }
                    },
                    retrying);
            assertThat(secondAttemptStarted.await(30, TimeUnit.SECONDS))
                    .as("a new attempt")
                    .isTrue();

            CompletableFuture<Throwable> another = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            startup.service();
                            return null;
                        } catch (RuntimeException ex) {
                            return ex;
                        }
                    },
                    other);
            // Waiting behind the attempt would last until the database answers, which it does only after this.
            Throwable failure = another.get(20, TimeUnit.SECONDS);
            assertThat(failure)
                    .isInstanceOf(BeanCreationException.class)
                    .hasStackTraceContaining("the lock database does not answer");
            assertThat(attempts)
                    .as("the other caller made no attempt of its own")
                    .hasValue(2);

            databaseAnswers.countDown();
            retry.get(30, TimeUnit.SECONDS);
        } finally {
            databaseAnswers.countDown();
            retrying.shutdownNow();
            other.shutdownNow();
        }
    }

    @Test
    void callersRightAfterAFailedAttemptGetItsFailureWithoutConnectingAgain() {
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("the lock database does not answer");
        });

        Throwable first = catchThrowable(startup::service);
        Throwable second = catchThrowable(startup::service);

        assertThat(first).isInstanceOf(BeanCreationException.class);
        // Well within LockDatabaseStartup.RETRY_AFTER (1 s) on any machine: the same failure, no new attempt.
        assertThat(second).isSameAs(first);
        assertThat(attempts).hasValue(1);
        assertThat(startup.createdService()).isNull();
    }

    @Test
    void theFirstLockAfterAFailedStartWaitsForANewAttemptOnlyABoundedTime() throws Exception {
        CountDownLatch databaseAnswers = new CountDownLatch(1);
        AtomicInteger attempts = new AtomicInteger();
        LockDatabaseStartup startup = startup(() -> {
            // The start's attempt fails; the next one meets a database that takes connections and
            // says nothing, until the driver's connect timeout (here: until the test lets it end).
            if (attempts.incrementAndGet() > 1) {
                await(databaseAnswers);
            }
            throw new IllegalStateException("the lock database does not answer");
        });
        Throwable atStart = catchThrowable(startup::service);
        Thread.sleep(LockDatabaseStartup.RETRY_AFTER.toMillis() + 100); // past it, the next lock tries again

        long started = System.nanoTime();
        Throwable firstLock = catchThrowable(startup::service);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        try {
            assertThat(attempts).as("the first lock tried again").hasValue(2);
            // Ceiling, not a measurement: the caller waited for the whole connect (here up to 60 s).
            assertThat(millis).as("the first lock after a failed start").isLessThan(10_000);
            assertThat(firstLock)
                    .as("the last attempt's failure, where the database is and what to check")
                    .isSameAs(atStart);
        } finally {
            databaseAnswers.countDown();
        }
    }

    /** A start-up whose lock service is built by {@code lockService}: each call is an attempt to reach the database. */
    private static LockDatabaseStartup startup(Supplier<LockService> lockService) {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition(
                "bizLockService",
                BeanDefinitionBuilder.genericBeanDefinition(LockService.class, lockService)
                        .getBeanDefinition());
        return new LockDatabaseStartup(beans, false);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
