package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.ThreadPerTask;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** The read-write lock in LEASE mode: reader rows per instance, the downgrade, and the NAMED refusal. */
class LeaseReadWriteLockTest extends AbstractReadWriteLockTest {

    @Override
    protected LockMode mode() {
        return LockMode.LEASE;
    }

    /** The child's watchdog lease (2 s), and the time to notice it ended. */
    @Override
    protected Duration crashBound() {
        return Duration.ofSeconds(5);
    }

    @Override
    protected void awaitWriterWaiting(DataSource dataSource) throws InterruptedException {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        Await.until(
                "the writer's intent",
                Duration.ofSeconds(10),
                () -> jdbc.queryForObject(
                                "SELECT COUNT(*) FROM biz_lock WHERE biz_type = ? AND write_intent_until > UTC_TIMESTAMP(6)",
                                Integer.class,
                                name)
                        > 0);
    }

    private int readerRows(DataSource dataSource) {
        Integer rows = new JdbcTemplate(dataSource)
                .queryForObject("SELECT COUNT(*) FROM biz_lock_reader WHERE biz_type = ?", Integer.class, name);
        return rows != null ? rows : 0;
    }

    @Test
    void threadsOfOneInstanceShareOneReadLease(DataSource dataSource) throws Exception {
        LockTemplate a = instance(dataSource);
        CountDownLatch bothRead = new CountDownLatch(2);
        CountDownLatch done = new CountDownLatch(1);
        CompletableFuture<?>[] readers = new CompletableFuture<?>[2];
        for (int i = 0; i < 2; i++) {
            readers[i] = CompletableFuture.runAsync(
                    () -> {
                        try (LockHandle ignored = a.acquire(name, "k", READ)) {
                            bothRead.countDown();
                            done.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    ThreadPerTask.EXECUTOR);
        }
        try {
            assertThat(bothRead.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(readerRows(dataSource))
                    .as("one read lease for both threads")
                    .isEqualTo(1);
        } finally {
            done.countDown();
            CompletableFuture.allOf(readers).get(30, TimeUnit.SECONDS);
        }
        assertThat(readerRows(dataSource)).as("ended with the last reader").isZero();
    }

    @Test
    void aWriterMayDowngradeAndNoOtherWriterGetsInBetween(DataSource dataSource) {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        LockHandle write = a.acquire(name, "k", WRITE);
        LockHandle read = a.acquire(name, "k", READ.waitTime(Duration.ZERO));
        assertThat(read.fencingToken())
                .as("the downgraded read's token is the write's")
                .isEqualTo(write.fencingToken());
        write.unlock();
        // Curator #796: once the write lock is gone, the downgraded read lock must still keep writers out.
        assertThat(freeFor(b, WRITE))
                .as("a writer while the downgraded read holds")
                .isFalse();
        assertThat(freeFor(b, READ)).as("other readers share it").isTrue();
        read.unlock();
        assertThat(freeFor(b, WRITE)).isTrue();
    }

    @Test
    void aNamedReadLockIsRefusedAndLeavesNothingBehind(DataSource dataSource) {
        LockTemplate a = instance(dataSource);
        assertThatThrownBy(() -> a.acquire(name, "k", READ.mode(LockMode.NAMED)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NAMED locks have no read lock")
                .hasMessageContaining("LEASE or ROW");
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM biz_lock_mode WHERE biz_type = ?", Integer.class, name))
                .as("the name is not bound")
                .isZero();
        assertThat(readerRows(dataSource)).isZero();
        assertThat(freeFor(a, WRITE.mode(LockMode.NAMED)))
                .as("the name may still be used in NAMED mode")
                .isTrue();
    }
}
