package io.github.bizlock.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.contract.ContractManagers;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ParentLink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One JVM of the soak ({@link FaultSoakTest}): threads lock random keys of one mode and, inside the lock, claim the
 * key's row of {@code soak_key} with their fencing token ({@code WHERE token < mine}), then write the key's counter and
 * free the claim only if the claim is still theirs. A claim refused (a newer token got there first) or taken away
 * during the hold means someone else held the lock at the same time: allowed only if this holder was told it lost the
 * lock, within {@link #TOLD_WITHIN}; otherwise it is a violation. With a number of permits, each key is a semaphore of
 * that many permits and the threads take permits of it instead of locks: the row claimed is the permit's slot's
 * ({@code k3#1}), so a slot never has two holders and its tokens increase, and in this JVM no key has more holders
 * than permits. Arguments: JDBC URL, user, password, mode, lock name, threads, keys, watchdog lease in ms, process
 * name, permits (0: plain locks). Answers {@code READY}, then reports a {@code STAT} line every
 * second and {@code VIOLATION} lines; the command {@code STOP} (or SIGTERM, or the end of its input) ends it after a
 * last {@code STAT} and {@code DONE}.
 */
public final class SoakWorker {

    /** How long a thread waits for a lock. */
    static final Duration WAIT = Duration.ofSeconds(5);

    /**
     * How soon a holder whose lock someone else took must have been told. The watchdog renews every third of the
     * lease and a session's heartbeat runs at least as often, so a loss is known a third of a lease after it could be
     * found; the rest is room for a busy machine.
     */
    static final Duration TOLD_WITHIN = Duration.ofSeconds(5);

    private final LongAdder acquired = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private final LongAdder told = new LongAdder();
    private final LongAdder overlapsTold = new LongAdder();
    private final LongAdder violations = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder late = new LongAdder();
    private final AtomicLong maxOverrunMillis = new AtomicLong();
    private final AtomicLong maxToldMillis = new AtomicLong();
    private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
    private final LockManager manager;
    private final LockTemplate template;
    private final int permits;
    private final JdbcTemplate jdbc;
    private final ParentLink parent;
    private final LockMode mode;
    private final String lockName;
    private final int keys;
    private volatile boolean stopping;

    /** A lock or a permit held, as a hold checks it. */
    private record Held(LongSupplier token, BooleanSupplier held, Runnable unlock) {

        static Held of(LockHandle handle) {
            return new Held(handle::fencingToken, handle::isHeld, handle::unlock);
        }

        static Held of(PermitHandle handle) {
            return new Held(handle::fencingToken, handle::isHeld, handle::unlock);
        }

        long fencingToken() {
            return token.getAsLong();
        }

        boolean isHeld() {
            return held.getAsBoolean();
        }
    }

    private SoakWorker(
            ParentLink parent,
            LockManager manager,
            JdbcTemplate jdbc,
            LockMode mode,
            String lockName,
            int keys,
            int permits) {
        this.parent = parent;
        this.manager = manager;
        this.template = new DefaultLockTemplate(manager, mode, WAIT, null);
        this.permits = permits;
        this.jdbc = jdbc;
        this.mode = mode;
        this.lockName = lockName;
        this.keys = keys;
        manager.addListener(event -> told.increment());
    }

    public static void main(String[] args) {
        ParentLink.run(args, SoakWorker::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        LockMode mode = LockMode.valueOf(args.get(3));
        int threads = Integer.parseInt(args.get(5));
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.get(0));
        config.setUsername(args.get(1));
        config.setPassword(args.get(2));
        config.setMaximumPoolSize(threads + 8);
        config.setConnectionTimeout(10_000);
        // Started again while the database may be out of reach (a fault of the schedule): start anyway.
        config.setInitializationFailTimeout(-1);
        // The soak's own statements on a cut-off connection: a read timeout, as an application would set one.
        config.addDataSourceProperty("socketTimeout", "15000");
        config.setPoolName("soak-worker");
        HikariDataSource dataSource = new HikariDataSource(config);
        LockManager manager = ContractManagers.fuzzBuilder(mode, dataSource, InstanceId.generate())
                .watchdogLease(Duration.ofMillis(Long.parseLong(args.get(7))))
                .build();
        SoakWorker worker = new SoakWorker(
                parent,
                manager,
                new JdbcTemplate(dataSource),
                mode,
                args.get(4),
                Integer.parseInt(args.get(6)),
                Integer.parseInt(args.get(9)));
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String holder = args.get(8) + "-" + t;
            workers.add(new Thread(() -> worker.loop(holder), "soak-" + holder));
        }
        Thread statistics = new Thread(worker::printStatistics, "soak-statistics");
        statistics.setDaemon(true);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> worker.stop(workers, manager, dataSource)));
        parent.answer("READY");
        workers.forEach(Thread::start);
        statistics.start();
        parent.serve(command -> {
            if (command.equals("STOP")) {
                System.exit(0); // the shutdown hook stops the threads and reports the last statistics
            }
        });
        // The input ended (the test is gone): the exit that follows runs the same shutdown hook.
    }

    private void stop(List<Thread> workers, LockManager manager, HikariDataSource dataSource) {
        stopping = true;
        for (Thread worker : workers) {
            try {
                worker.join(TimeUnit.SECONDS.toMillis(20));
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        manager.close(); // as a Spring context closing on SIGTERM does: what is still held is freed
        dataSource.close();
        parent.answer(statisticsLine());
        parent.answer("DONE");
    }

    private void printStatistics() {
        while (true) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            parent.answer(statisticsLine());
        }
    }

    private String statisticsLine() {
        return "STAT " + acquired.sum() + " " + timedOut.sum() + " " + told.sum() + " " + overlapsTold.sum() + " "
                + violations.sum() + " " + errors.sum() + " " + late.sum() + " " + maxOverrunMillis.get() + " "
                + maxToldMillis.get();
    }

    private void loop(String holder) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stopping) {
            String key = "k" + random.nextInt(keys);
            long started = System.nanoTime();
            Optional<Held> handle;
            String claimed = key;
            try {
                if (permits > 0) {
                    Optional<PermitHandle> permit = template.tryAcquirePermit(
                            lockName, key, permits, LockOptions.defaults().mode(mode));
                    handle = permit.map(Held::of);
                    if (permit.isPresent()) {
                        claimed = slotClaimed(permit.get(), key, holder);
                    }
                } else {
                    handle = manager.tryAcquire(new LockKey(lockName, key), mode, WAIT, null)
                            .map(Held::of);
                }
            } catch (InterruptedException ex) {
                return;
            } catch (RuntimeException ex) {
                errors.increment(); // the database unreachable, the manager closing: what faults do
                checkDeadline(started);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                continue;
            }
            checkDeadline(started);
            if (handle.isEmpty()) {
                timedOut.increment();
                continue;
            }
            acquired.increment();
            AtomicInteger holders = inside.computeIfAbsent(key + " permits", k -> new AtomicInteger());
            if (permits > 0 && holders.incrementAndGet() > permits) {
                violation("more than " + permits + " threads of " + jvm(holder) + " held permits of " + key);
            }
            try {
                hold(handle.get(), claimed, holder, random);
            } finally {
                if (permits > 0) {
                    holders.decrementAndGet();
                }
            }
        }
    }

    /** The row a permit claims: its slot's, which must be one of the semaphore's. */
    private String slotClaimed(PermitHandle permit, String key, String holder) {
        if (permit.slot() < 0 || permit.slot() >= permits || permit.permits() != permits) {
            violation(jvm(holder) + " got slot " + permit.slot() + " of " + permit.permits() + " permits of " + key
                    + ", a semaphore of " + permits);
        }
        return key + "#" + permit.slot();
    }

    private static String jvm(String holder) {
        return holder.substring(0, holder.lastIndexOf('-'));
    }

    /** A call must return within its wait plus the slack the README promises (1 s), or it is counted late. */
    private void checkDeadline(long started) {
        long overrun = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) - WAIT.toMillis();
        maxOverrunMillis.accumulateAndGet(overrun, Math::max);
        if (overrun > 1000) {
            late.increment();
        }
    }

    private void hold(Held handle, String key, String holder, ThreadLocalRandom random) {
        AtomicInteger here = inside.computeIfAbsent(key, k -> new AtomicInteger());
        boolean entered = false;
        try {
            long token = handle.fencingToken();
            entered = true;
            if (here.incrementAndGet() != 1) {
                violation("two threads of " + jvm(holder) + " held " + key + " at once");
            }
            int claimed = jdbc.update(
                    "UPDATE soak_key SET holder = ?, token = ? WHERE k = ? AND token < ?", holder, token, key, token);
            if (claimed == 0) {
                mustHaveBeenTold(handle, key, token, "found a token at least as high as its own on " + key);
                return;
            }
            LockSupport.parkNanos(random.nextLong(200_000));
            int written = jdbc.update(
                    "UPDATE soak_key SET n = n + 1, holder = NULL WHERE k = ? AND holder = ? AND token = ?",
                    key,
                    holder,
                    token);
            if (written == 0) {
                mustHaveBeenTold(handle, key, token, "found its claim on " + key + " taken during its hold");
            }
        } catch (LockLostException ex) {
            // fencingToken() of a lock already known lost: its listener was told
        } catch (RuntimeException ex) {
            errors.increment();
        } finally {
            if (entered) {
                here.decrementAndGet();
            }
            try {
                handle.unlock().run();
            } catch (LockLostException ex) {
                // reported to the listener already
            } catch (RuntimeException ex) {
                errors.increment();
            }
        }
    }

    /** Someone else held the lock during this hold: this holder must learn it lost the lock, within the bound. */
    private void mustHaveBeenTold(Held handle, String key, long token, String what) {
        long found = System.nanoTime();
        long deadline = found + TOLD_WITHIN.toNanos();
        while (handle.isHeld() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        if (handle.isHeld()) {
            violation("a holder (token " + token + ") " + what + " and was not told it lost the lock within "
                    + TOLD_WITHIN.toMillis() + " ms");
        } else {
            overlapsTold.increment();
            maxToldMillis.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - found), Math::max);
        }
    }

    private void violation(String text) {
        violations.increment();
        parent.answer("VIOLATION " + mode + " " + text);
    }
}
