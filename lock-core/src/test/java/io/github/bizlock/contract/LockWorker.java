package io.github.bizlock.contract;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockManagerBuilder;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.ParentLink;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The child JVM of the cross-process contract, lease and cluster tests. Arguments: JDBC URL, user, password, then a
 * command:
 *
 * <ul>
 *   <li>{@code fuzz MODE LOCK_NAME THREADS ITERATIONS KEYS MAX_SLEEP_NANOS [PROCESS]}: answers {@code READY}, waits for
 *       {@code GO}, runs {@link FuzzWorkload} (its holders named after PROCESS, by default {@code child}), answers its
 *       log as {@code LOG} lines and {@code DONE overlaps failures}, and exits.
 *   <li>{@code hold MODE LOCK_NAME KEY WATCHDOG_LEASE_MILLIS}: acquires the lock (renewed by the watchdog), answers
 *       {@code ACQUIRED token}, and keeps it until killed (or until the test ends).
 *   <li>{@code hold-fixed MODE LOCK_NAME KEY LEASE_MILLIS}: the same with a fixed lease.
 *   <li>{@code turns MODE LOCK_NAME KEY}: answers {@code READY}; then at each {@code ACQUIRE} acquires the lock (waiting
 *       up to 30 s), answers {@code ACQUIRED token}, releases it at once and answers {@code RELEASED}.
 * </ul>
 */
public final class LockWorker {

    private LockWorker() {}

    /**
     * Starts a worker with the database's connection settings, then the worker's own arguments. On a cluster the
     * worker connects to node 2, so that two processes contend through different nodes.
     */
    public static ChildJvm start(TestDatabase database, List<String> jvmOptions, String... workerArgs) {
        List<String> nodes = database.nodeJdbcUrls();
        return start(database, nodes.get(1 % nodes.size()), jvmOptions, workerArgs);
    }

    /** Starts a worker connected to the database through {@code jdbcUrl} (e.g. one node of a cluster). */
    public static ChildJvm start(TestDatabase database, String jdbcUrl, List<String> jvmOptions, String... workerArgs) {
        List<String> args = new ArrayList<>(List.of(jdbcUrl, database.username(), database.password()));
        args.addAll(List.of(workerArgs));
        return ChildJvm.builder(LockWorker.class)
                .name("lock-worker-" + workerArgs[0])
                .jvmOptions(jvmOptions.toArray(String[]::new))
                .args(args)
                .start();
    }

    public static void main(String[] args) {
        ParentLink.run(args, LockWorker::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.get(0));
        config.setUsername(args.get(1));
        config.setPassword(args.get(2));
        config.setMaximumPoolSize(24);
        config.setPoolName("lock-worker");
        String command = args.get(3);
        LockMode mode = LockMode.valueOf(args.get(4));
        String lockName = args.get(5);
        try (HikariDataSource dataSource = new HikariDataSource(config)) {
            switch (command) {
                case "fuzz" -> fuzz(parent, dataSource, mode, lockName, args);
                case "hold", "hold-fixed" -> hold(parent, dataSource, mode, lockName, args, command.equals("hold"));
                case "turns" -> turns(parent, dataSource, mode, lockName, args.get(6));
                default -> throw new IllegalArgumentException("Unknown command " + command);
            }
        }
    }

    private static void fuzz(
            ParentLink parent, HikariDataSource dataSource, LockMode mode, String lockName, List<String> args)
            throws Exception {
        int threads = Integer.parseInt(args.get(6));
        int iterations = Integer.parseInt(args.get(7));
        int keys = Integer.parseInt(args.get(8));
        long maxSleepNanos = Long.parseLong(args.get(9));
        String process = args.size() > 10 ? args.get(10) : "child";
        try (LockManager manager = ContractManagers.builder(mode, dataSource, InstanceId.generate())
                .build()) {
            // Warm the pool so both processes start at full speed.
            dataSource.getConnection().close();
            parent.answer("READY");
            parent.await("GO");
            FuzzWorkload.Result result = FuzzWorkload.run(
                    manager, mode, dataSource, process, lockName, threads, iterations, keys, maxSleepNanos);
            for (FuzzWorkload.Entry entry : result.log()) {
                parent.answer(entry.toLine());
            }
            parent.answer("DONE " + result.overlaps() + " " + result.failures());
        }
    }

    private static void turns(
            ParentLink parent, HikariDataSource dataSource, LockMode mode, String lockName, String key)
            throws Exception {
        try (LockManager manager = ContractManagers.builder(mode, dataSource, InstanceId.generate())
                .build()) {
            parent.answer("READY");
            parent.serve(command -> {
                if (!command.equals("ACQUIRE")) {
                    parent.answer("UNKNOWN " + command);
                    return;
                }
                // On a thread of its own: the test releases its hold only once this one waits.
                Thread turn = new Thread(() -> {
                    try {
                        LockHandle handle = manager.tryAcquire(
                                        new LockKey(lockName, key), mode, Duration.ofSeconds(30), null)
                                .orElseThrow();
                        parent.answer("ACQUIRED " + handle.fencingToken());
                        handle.unlock();
                        parent.answer("RELEASED");
                    } catch (Exception ex) {
                        ex.printStackTrace();
                        parent.answer("ERROR " + ex);
                    }
                });
                turn.start();
            });
        }
    }

    private static void hold(
            ParentLink parent,
            HikariDataSource dataSource,
            LockMode mode,
            String lockName,
            List<String> args,
            boolean watchdog)
            throws Exception {
        String key = args.get(6);
        Duration lease = Duration.ofMillis(Long.parseLong(args.get(7)));
        LockManagerBuilder builder = ContractManagers.builder(mode, dataSource, InstanceId.generate());
        LockManager manager = (watchdog ? builder.watchdogLease(lease) : builder).build();
        Optional<LockHandle> handle =
                manager.tryAcquire(new LockKey(lockName, key), mode, Duration.ofSeconds(30), watchdog ? null : lease);
        if (handle.isEmpty()) {
            throw new IllegalStateException("Not acquired: " + lockName + "/" + key);
        }
        parent.answer("ACQUIRED " + handle.get().fencingToken());
        parent.awaitEnd();
    }
}
