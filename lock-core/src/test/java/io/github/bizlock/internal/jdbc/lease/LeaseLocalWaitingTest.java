package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * R5: threads of one JVM waiting for the same lock wait on the JVM's gate, not on the database. Every statement the
 * engine prepares is counted: eight threads taking turns cost one acquire and one release per turn, however long the
 * others wait, and less when a release passes the lock straight to a waiting thread.
 */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseLocalWaitingTest {

    @BeforeAll
    void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    private static final int THREADS = 8;
    private static final int TURNS = 25;

    @Test
    void localWaitersDoNotPollTheDatabase(DataSource dataSource) throws Exception {
        int writes = takeTurns(dataSource, 0);
        // Without hand-offs: one acquire and one release per turn; a watchdog renewal may add one if the run is slow.
        assertThat(writes).isBetween(2 * THREADS * TURNS, 2 * THREADS * TURNS + 2);
    }

    @Test
    void localWaitersTakeTheLockFromEachOtherWithoutTheDatabase(DataSource dataSource) throws Exception {
        int writes = takeTurns(dataSource, LockManager.DEFAULT_LOCAL_HANDOFFS);
        // One acquire and one release per database grant, which passes from thread to thread up to 16 times.
        int grants = (THREADS * TURNS + LockManager.DEFAULT_LOCAL_HANDOFFS) / (LockManager.DEFAULT_LOCAL_HANDOFFS + 1);
        assertThat(writes).isBetween(2 * grants, THREADS * TURNS);
    }

    /** Eight threads take the lock 25 times each; returns the lock-table writes that cost. */
    private static int takeTurns(DataSource dataSource, int localHandoffs) throws Exception {
        AtomicInteger writes = new AtomicInteger();
        DataSource counting = counting(dataSource, writes);
        BizLockDao dao = LockFixture.dao(counting);
        LockKey key = new LockKey("local" + localHandoffs, "1");
        try (LockManager manager = LockFixture.manager(dao, InstanceId.generate())
                .localHandoffs(localHandoffs)
                .build()) {
            // The first acquisition creates the row; count from a free, existing row on.
            manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            writes.set(0);
            int[] counter = {0};
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < TURNS; i++) {
                                try (LockHandle handle = manager.tryAcquire(
                                                key, LockMode.LEASE, Duration.ofSeconds(60), null)
                                        .orElseThrow()) {
                                    int n = counter[0];
                                    Thread.sleep(1); // long enough for the other seven to queue up
                                    counter[0] = n + 1;
                                } catch (InterruptedException ex) {
                                    throw new IllegalStateException(ex);
                                }
                            }
                        },
                        runnable -> new Thread(runnable).start()));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            assertThat(counter[0]).isEqualTo(THREADS * TURNS);
            assertThat(manager.activeThreadCount()).isZero();
            assertThat(manager.heldCount()).isZero();
            return writes.get();
        }
    }

    /** The data source, counting the lock-table writes prepared on its connections. */
    private static DataSource counting(DataSource target, AtomicInteger writes) {
        return (DataSource) Proxy.newProxyInstance(
                LeaseLocalWaitingTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection connection ? countingConnection(connection, writes) : result;
                });
    }

    private static Connection countingConnection(Connection target, AtomicInteger writes) {
        return (Connection) Proxy.newProxyInstance(
                LeaseLocalWaitingTest.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args[0] instanceof String sql) {
                        String text = sql.strip().toUpperCase(Locale.ROOT);
                        if ((text.startsWith("UPDATE") || text.startsWith("INSERT")) && text.contains("BIZ_LOCK")) {
                            writes.incrementAndGet();
                        }
                    }
                    return invoke(target, method, args);
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }
}
