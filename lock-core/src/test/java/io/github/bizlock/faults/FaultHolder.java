package io.github.bizlock.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ParentLink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The holder of {@link FaultHarnessTest}: a JVM that takes one lock in each mode (name {@code PREFIX-MODE}, key
 * {@code k}, renewed by the watchdog) and answers {@code HOLDING mode token}, then {@code READY}. Arguments: JDBC URL,
 * user, password, watchdog lease in ms, lock name prefix. Every loss is reported as the event {@code LOST mode cause
 * epochMillis}. Commands, answered per mode with the call's duration in ms and its outcome:
 *
 * <ul>
 *   <li>{@code TRY}: acquires another key with a 500 ms wait, all modes at once: {@code TRIED mode ms outcome};
 *   <li>{@code UNLOCK}: unlocks the held locks: {@code UNLOCKED mode ms outcome};
 *   <li>{@code WRITE}: a fenced write with the held lock's token, as a holder that does not know it lost the lock
 *       would make it: {@code WROTE mode rows} (0: refused by a newer token);
 *   <li>{@code HELD}: {@code HELD? mode isHeld}.
 * </ul>
 *
 * SIGTERM closes the lock manager, as a Spring context closing does; it answers {@code CLOSED} after.
 */
public final class FaultHolder {

    static final Duration TRY_WAIT = Duration.ofMillis(500);
    /** The application pool's size: HikariCP's defaults otherwise (validation timeout 5 s). */
    static final int POOL_SIZE = 3;

    private FaultHolder() {}

    public static void main(String[] args) {
        ParentLink.run(args, FaultHolder::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.get(0));
        config.setUsername(args.get(1));
        config.setPassword(args.get(2));
        config.setPoolName("fault-holder");
        config.setMaximumPoolSize(POOL_SIZE);
        HikariDataSource dataSource = new HikariDataSource(config);
        LockManager manager = LockFixture.managerOfEveryMode(dataSource)
                .watchdogLease(Duration.ofMillis(Long.parseLong(args.get(3))))
                .build();
        String prefix = args.get(4);
        manager.addListener(event ->
                parent.answer("LOST " + event.mode() + " " + event.cause() + " " + System.currentTimeMillis()));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            manager.close();
            parent.answer("CLOSED");
        }));
        Map<LockMode, LockHandle> held = new EnumMap<>(LockMode.class);
        Map<LockMode, Long> tokens = new EnumMap<>(LockMode.class);
        for (LockMode mode : LockMode.values()) {
            LockHandle handle = manager.tryAcquire(
                            new LockKey(prefix + "-" + mode, "k"), mode, Duration.ofSeconds(30), null)
                    .orElseThrow(() -> new IllegalStateException("not acquired: " + mode));
            held.put(mode, handle);
            tokens.put(mode, handle.fencingToken());
            parent.answer("HOLDING " + mode + " " + handle.fencingToken());
        }
        Thread watcher = new Thread(() -> watch(parent, held), "fault-holder-watcher");
        watcher.setDaemon(true);
        watcher.start();
        parent.answer("READY");
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        parent.serve(command -> {
            switch (command) {
                case "TRY" -> tryOthers(parent, manager, prefix);
                case "UNLOCK" -> {
                    for (LockMode mode : LockMode.values()) {
                        long started = System.nanoTime();
                        String outcome = outcome(() -> {
                            held.get(mode).unlock();
                            return "unlocked";
                        });
                        parent.answer("UNLOCKED " + mode + " " + millisSince(started) + " " + outcome);
                    }
                }
                case "WRITE" -> {
                    for (LockMode mode : LockMode.values()) {
                        long token = tokens.get(mode);
                        parent.answer("WROTE " + mode + " "
                                + outcome(() -> Integer.toString(jdbc.update(
                                        "UPDATE fault_fence SET token = ? WHERE k = ? AND token < ?",
                                        token,
                                        mode.name(),
                                        token))));
                    }
                }
                case "HELD" -> {
                    for (LockMode mode : LockMode.values()) {
                        parent.answer("HELD? " + mode + " " + held.get(mode).isHeld());
                    }
                }
                default -> parent.answer("UNKNOWN " + command);
            }
        });
    }

    /**
     * Reports {@code NOTHELD mode epochMillis} when a lock's {@code isHeld()} first turns false: what a holder that
     * checks before it writes sees, which may come before the loss event (a LEASE lock's local deadline passes on its
     * own).
     */
    private static void watch(ParentLink parent, Map<LockMode, LockHandle> held) {
        Map<LockMode, Boolean> reported = new EnumMap<>(LockMode.class);
        while (reported.size() < held.size()) {
            for (Map.Entry<LockMode, LockHandle> lock : held.entrySet()) {
                if (!reported.containsKey(lock.getKey()) && !lock.getValue().isHeld()) {
                    reported.put(lock.getKey(), true);
                    parent.answer("NOTHELD " + lock.getKey() + " " + System.currentTimeMillis());
                }
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException ex) {
                return;
            }
        }
    }

    /** Acquires key {@code other} in every mode at once, each on a thread of its own, and answers each outcome. */
    private static void tryOthers(ParentLink parent, LockManager manager, String prefix) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (LockMode mode : LockMode.values()) {
            Thread thread = new Thread(() -> {
                long started = System.nanoTime();
                String outcome = outcome(() -> {
                    Optional<LockHandle> other =
                            manager.tryAcquire(new LockKey(prefix + "-" + mode, "other"), mode, TRY_WAIT, null);
                    other.ifPresent(LockHandle::unlock);
                    return other.isPresent() ? "acquired" : "timed-out";
                });
                parent.answer("TRIED " + mode + " " + millisSince(started) + " " + outcome);
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private interface Call {
        String run() throws Exception;
    }

    private static String outcome(Call call) {
        try {
            return call.run();
        } catch (Exception ex) {
            return ex.getClass().getSimpleName() + " "
                    + String.valueOf(ex.getMessage()).replace('\n', ' ');
        }
    }

    private static long millisSince(long started) {
        return (System.nanoTime() - started) / 1_000_000;
    }
}
