package io.github.bizlock.contract;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The main class of the second JVM in cross-process tests ({@link ChildJvm}). Arguments: JDBC URL, user, password,
 * then a command:
 *
 * <ul>
 *   <li>{@code fuzz MODE LOCK_NAME THREADS ITERATIONS KEYS MAX_SLEEP_NANOS [PROCESS]}: prints {@code READY}, waits for
 *       {@code GO} on stdin, runs {@link FuzzWorkload} (its holders named after PROCESS, by default {@code child}),
 *       prints its log as {@code LOG} lines and {@code DONE overlaps failures}.
 *   <li>{@code hold MODE LOCK_NAME KEY WATCHDOG_LEASE_MILLIS}: acquires the lock (renewed by the watchdog), prints
 *       {@code ACQUIRED token}, and keeps it until killed.
 *   <li>{@code hold-fixed MODE LOCK_NAME KEY LEASE_MILLIS}: the same with a fixed lease.
 * </ul>
 */
public final class LockWorker {

    private LockWorker() {}

    public static void main(String[] args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword(args[2]);
        config.setMaximumPoolSize(24);
        config.setPoolName("lock-worker");
        String command = args[3];
        LockMode mode = LockMode.valueOf(args[4]);
        String lockName = args[5];
        try (HikariDataSource dataSource = new HikariDataSource(config)) {
            switch (command) {
                case "fuzz" -> fuzz(dataSource, mode, lockName, args);
                case "hold", "hold-fixed" -> hold(dataSource, mode, lockName, args, command.equals("hold"));
                default -> throw new IllegalArgumentException("Unknown command " + command);
            }
        }
        System.exit(0);
    }

    private static void fuzz(HikariDataSource dataSource, LockMode mode, String lockName, String[] args)
            throws Exception {
        int threads = Integer.parseInt(args[6]);
        int iterations = Integer.parseInt(args[7]);
        int keys = Integer.parseInt(args[8]);
        long maxSleepNanos = Long.parseLong(args[9]);
        String process = args.length > 10 ? args[10] : "child";
        try (LockManager manager = ContractManagers.builder(mode, dataSource, InstanceId.generate())
                .build()) {
            // Warm the pool so both processes start at full speed.
            dataSource.getConnection().close();
            System.out.println("READY");
            BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String go = stdin.readLine();
            if (!"GO".equals(go)) {
                throw new IllegalStateException("Expected GO, got " + go);
            }
            FuzzWorkload.Result result = FuzzWorkload.run(
                    manager, mode, dataSource, process, lockName, threads, iterations, keys, maxSleepNanos);
            StringBuilder out = new StringBuilder();
            for (FuzzWorkload.Entry entry : result.log()) {
                out.append(entry.toLine()).append('\n');
            }
            out.append("DONE ").append(result.overlaps()).append(' ').append(result.failures());
            System.out.println(out);
            System.out.flush();
        }
    }

    private static void hold(
            HikariDataSource dataSource, LockMode mode, String lockName, String[] args, boolean watchdog)
            throws Exception {
        String key = args[6];
        Duration lease = Duration.ofMillis(Long.parseLong(args[7]));
        LockManager.Builder builder = ContractManagers.builder(mode, dataSource, InstanceId.generate());
        LockManager manager = (watchdog ? builder.watchdogLease(lease) : builder).build();
        Optional<LockHandle> handle =
                manager.tryAcquire(new LockKey(lockName, key), mode, Duration.ofSeconds(30), watchdog ? null : lease);
        if (handle.isEmpty()) {
            System.out.println("NOT-ACQUIRED");
            System.exit(2);
        }
        System.out.println("ACQUIRED " + handle.get().fencingToken());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
