package io.github.bizlock.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.core.InstanceId;
import io.github.bizlock.core.LockKey;
import io.github.bizlock.core.LockManager;
import io.github.bizlock.jdbc.BizLockDao;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * R5: threads of one JVM waiting for the same lock wait on the JVM's gate, not on the database. Every statement the
 * engine prepares is counted: eight threads taking turns cost one acquire and one release per turn, however long the
 * others wait.
 */
@ExtendWith(TestDatabaseExtension.class)
class LeaseLocalWaitingTest {

    @Test
    void localWaitersDoNotPollTheDatabase(DataSource dataSource) throws Exception {
        LockFixture.createSchema(dataSource);
        AtomicInteger writes = new AtomicInteger();
        DataSource counting = counting(dataSource, writes);
        BizLockDao dao = LockFixture.dao(counting);
        LockKey key = new LockKey("local", "1");
        int threads = 8;
        int turns = 25;
        try (LockManager manager =
                LockFixture.manager(dao, InstanceId.generate()).build()) {
            // The first acquisition creates the row; count from a free, existing row on.
            manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            writes.set(0);
            int[] counter = {0};
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < turns; i++) {
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
            assertThat(counter[0]).isEqualTo(threads * turns);
            // One acquire and one release per turn; a watchdog renewal may add one if the run is slow.
            assertThat(writes.get()).isBetween(2 * threads * turns, 2 * threads * turns + 2);
            assertThat(manager.activeThreadCount()).isZero();
            assertThat(manager.heldCount()).isZero();
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
