package io.github.bizlock.contract;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockReleaseException;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.ParentLink;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One instance of {@link ClusterNodeCrashTest}: the exclusion fuzz on LEASE locks, for a time rather than a count,
 * through a failover URL, so that it goes on while a node of the cluster is killed. The section's own statements are
 * retried while the cluster stalls or the connection fails over (they are idempotent); the lock is always unlocked.
 * Arguments: URL, user, password, lock name, threads, seconds, keys, process name, URL for the counter. Answers
 * {@code READY}, waits for {@code GO}, then answers {@code LOG key value token holder acquiredMillis releasedMillis}
 * per section and {@code DONE overlaps failures deferredReleases}.
 */
public final class ClusterCrashWorker {

    private ClusterCrashWorker() {}

    /** An instance of {@code threads} threads for {@code seconds} on {@code keys} keys, through {@code url}. */
    static ChildJvm.Builder instance(
            TestDatabase database, String url, String name, int threads, int seconds, int keys) {
        return ChildJvm.builder(ClusterCrashWorker.class)
                .name("cluster-crash-" + name)
                .args(
                        url,
                        database.username(),
                        database.password(),
                        "crash",
                        String.valueOf(threads),
                        String.valueOf(seconds),
                        String.valueOf(keys),
                        name,
                        url + "&sessionVariables=wsrep_sync_wait=3");
    }

    public static void main(String[] args) {
        ParentLink.run(args, ClusterCrashWorker::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.get(0));
        config.setUsername(args.get(1));
        config.setPassword(args.get(2));
        config.setMaximumPoolSize(24);
        config.setConnectionTimeout(60_000);
        config.setPoolName("locks");
        String lockName = args.get(3);
        int threads = Integer.parseInt(args.get(4));
        long endMillis = Long.parseLong(args.get(5)) * 1000;
        int keys = Integer.parseInt(args.get(6));
        String process = args.get(7);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger deferred = new AtomicInteger();
        // The protected data (the counter) goes through a pool of its own whose URL makes every session wait for the
        // cluster (sessionVariables=wsrep_sync_wait=3), as an application on Galera should for data it reads under a
        // lock. A pool's connectionInitSql is not enough: a Connector/J failover connection falls back to its first
        // host by opening a new session of its own, without it, and reads there missed the previous holder's write
        // (seen as lost updates, with the lock passed on correctly). bizlock's own statements need neither.
        HikariConfig workload = new HikariConfig();
        config.copyStateTo(workload);
        workload.setJdbcUrl(args.get(8));
        workload.setPoolName("workload");
        try (HikariDataSource dataSource = new HikariDataSource(config);
                HikariDataSource workloadDataSource = new HikariDataSource(workload);
                LockManager manager = ContractManagers.builder(LockMode.LEASE, dataSource, InstanceId.generate())
                        .build()) {
            JdbcTemplate jdbc = new JdbcTemplate(workloadDataSource);
            parent.answer("READY");
            parent.await("GO");
            long end = System.currentTimeMillis() + endMillis;
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String holder = process + "-" + t;
                Thread worker = new Thread(() -> {
                    while (System.currentTimeMillis() < end) {
                        String key = "k" + ThreadLocalRandom.current().nextInt(keys);
                        Optional<LockHandle> handle;
                        try {
                            handle = manager.tryAcquire(
                                    new LockKey(lockName, key), LockMode.LEASE, Duration.ofSeconds(60), null);
                        } catch (InterruptedException ex) {
                            return;
                        } catch (RuntimeException ex) {
                            ex.printStackTrace();
                            failures.incrementAndGet();
                            continue;
                        }
                        if (handle.isEmpty()) {
                            failures.incrementAndGet();
                            continue;
                        }
                        long acquired = System.currentTimeMillis();
                        long released;
                        try {
                            if (retried(() -> jdbc.update(
                                            "UPDATE fuzz_counter SET holder = ? WHERE k = ?"
                                                    + " AND (holder IS NULL OR holder = ?)",
                                            holder,
                                            key,
                                            holder))
                                    != 1) {
                                overlaps.incrementAndGet();
                                System.err.println("OVERLAP on " + key + ": " + holder + " (token "
                                        + handle.get().fencingToken() + ") found "
                                        + retried(() -> jdbc.queryForList(
                                                "SELECT holder, n, @@wsrep_node_name AS node FROM fuzz_counter"
                                                        + " WHERE k = ?",
                                                key)));
                            }
                            int n = retried(() ->
                                    jdbc.queryForObject("SELECT n FROM fuzz_counter WHERE k = ?", Integer.class, key));
                            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(200_000));
                            retried(() -> jdbc.update(
                                    "UPDATE fuzz_counter SET n = ?, holder = NULL WHERE k = ? AND holder = ?",
                                    n + 1,
                                    key,
                                    holder));
                            released = System.currentTimeMillis();
                            log.add("LOG " + key + " " + (n + 1) + " "
                                    + handle.get().fencingToken() + " " + holder + " " + acquired + " " + released);
                        } finally {
                            try {
                                handle.get().unlock();
                            } catch (LockReleaseException ex) {
                                deferred.incrementAndGet(); // retried in the background on a live node
                            }
                        }
                    }
                });
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            log.forEach(parent::answer);
            parent.answer("DONE " + overlaps.get() + " " + failures.get() + " " + deferred.get());
        }
    }

    /** Runs a statement of the section again while the cluster stalls or the connection fails over. */
    private static <T> T retried(Supplier<T> statement) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return statement.get();
            } catch (DataAccessException ex) {
                if (System.nanoTime() > deadline) {
                    throw ex;
                }
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }
    }
}
